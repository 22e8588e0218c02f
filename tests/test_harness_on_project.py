"""`python -m harness all` on this project passes and writes its reports.

Small deliveries keep CI short; the checks themselves are proven able to fail by the buggy
fixture projects in tests/harness.
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from pipeline_demo.generate import GeneratorConfig, generate

PROJECT_DIR = Path(__file__).resolve().parents[1]


def test_harness_all_passes_on_this_project(tmp_path: Path) -> None:
    """Every check of the harness passes on rerun_safe with generated deliveries of three days."""
    deliveries = tmp_path / "deliveries"
    generate(GeneratorConfig(seed=3, days=3, events_per_day=120, companies=3), deliveries)
    junit, summary = tmp_path / "harness.xml", tmp_path / "harness.md"
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "all",
            "--project-dir",
            str(PROJECT_DIR),
            "--deliveries",
            str(deliveries),
            "--junit",
            str(junit),
            "--summary",
            str(summary),
            "--work-dir",
            str(tmp_path / "work"),
            "--quiet",
            # crash: fail one model before COMMIT, in the middle batch only; no kill (the harness's
            # kills: tests/harness/test_crash.py; a model failing before COMMIT rolls back with its
            # progress: tests/pipeline/test_late_data_and_recovery.py; builds of this project
            # killed at seeded statements of every kind: tests/faults)
            "--fault-var",
            "rerun_safe_fail_model",
            "--crash-points",
            "1",
            "--kill-points",
            "0",
            "--crash-batches",
            "2",
            # batches: the reverse split (coarse: tests/harness/test_verdict_rules.py); all
            # deliveries at once against one batch per day is the convergence check
            "--splits",
            "reverse",
        ],
        capture_output=True,
        text=True,
        timeout=1500,
        cwd=PROJECT_DIR,
    )
    assert completed.returncode == 0, completed.stdout[-6000:] + completed.stderr[-3000:]
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "0" and suite.get("errors") == "0"
    names = {case.get("name") for case in suite.iter("testcase")}
    assert {"idempotency", "convergence", "replay", "batches", "crash", "concurrency", "lateness"} <= names, names
    rows = [line for line in summary.read_text().splitlines() if line.startswith("| ") and " s |" in line]
    assert {row.split("|")[1].strip() for row in rows} == names
    assert all("pass" in row.split("|")[2] for row in rows), rows
