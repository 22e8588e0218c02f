"""This pipeline's own tooling (pipeline_demo): the demo builds batch by batch, and both
commands answer through `python -m pipeline_demo`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pipeline_demo.__main__ import main
from tests.harness.helpers import DELIVERIES, PROJECTS

REPO = Path(__file__).resolve().parents[1]


def test_demo_builds_batch_by_batch_and_prints_tables(tmp_path: Path, capsys) -> None:
    code = main([
        "demo", "--project-dir", str(PROJECTS / "correct"), "--deliveries", str(DELIVERIES),
        "--landing", str(tmp_path / "landing"), "--warehouse", str(tmp_path / "w.duckdb"),
        "--target-path", str(tmp_path / "target"),
    ])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "batch 3/3 2026-11-03: landed 1 file(s), dbt build ok" in out
    assert "main.current_events" in out and "main.run_log" in out
    assert len(list((tmp_path / "landing").glob("*.csv"))) == 4


def test_generate_runs_as_a_module(tmp_path: Path) -> None:
    out = tmp_path / "deliveries"
    done = subprocess.run(
        [sys.executable, "-m", "pipeline_demo", "generate", "--out", str(out), "--days", "2",
         "--events-per-day", "20", "--seed", "1"],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wrote" in done.stdout and sorted(out.glob("2026-11-01_*.csv"))
    helped = subprocess.run(
        [sys.executable, "-m", "pipeline_demo", "demo", "--help"],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )
    assert helped.returncode == 0 and "--project-dir" in helped.stdout and "--warehouse" in helped.stdout
