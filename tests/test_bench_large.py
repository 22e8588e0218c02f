"""`python -m bench large` (`make bench-large`): a size whose files do not fit on the disk, or a bad
SIZE or STEPS from make, is refused before anything is written, and a small run goes end to end
and sets its measurement beside the per-row prediction of docs/benchmarks.results.json. No timing
is asserted."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.records import LargeResults
from bench.results import load

ROOT = Path(__file__).resolve().parent.parent


def large(*args: str, env: dict[str, str] | None = None, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench", "large", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def test_a_size_the_disk_cannot_hold_is_refused_before_any_write(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = large("--size", "100000000M", "--out", str(out), "--doc", str(tmp_path / "large.md"))
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert re.search(
        r"refused before writing anything: 1e\+08M events need about [0-9.]+ GB: landing files "
        r"[0-9.]+ GB .*; [0-9.]+ GB are free",
        proc.stderr,
    ), proc.stderr
    assert "--size" in proc.stderr
    assert not out.exists() and not (tmp_path / "large.md").exists()


MAKE_CASES = {
    "bench_large_size_injection": ("SIZE", "100M; rm -rf /"),
    "bench_large_steps_substitution": ("STEPS", "$(touch x)"),
}


@pytest.mark.parametrize(("name", "value"), list(MAKE_CASES.values()), ids=list(MAKE_CASES))
def test_a_bad_make_variable_is_refused_naming_it(tmp_path: Path, name: str, value: str) -> None:
    env = dict(os.environ, **{f"RERUN_SAFE_MAKE_{name}": value})
    proc = large("--out", str(tmp_path / "out"), "--doc", str(tmp_path / "large.md"), env=env)
    assert proc.returncode == 2 and proc.stderr.startswith(f"bench-large: {name}: "), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "large.md").exists() and not (ROOT / "x").exists()


def test_a_small_run_sets_its_incremental_run_beside_the_prediction(tmp_path: Path) -> None:
    doc = tmp_path / "large.md"
    proc = large(
        "--size",
        "120k",
        "--batch-events",
        "20000",
        "--steps",
        "2",
        "--out",
        str(tmp_path / "out"),
        "--doc",
        str(doc),
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    text = doc.read_text()
    for step in ("history_build", "incremental"):
        assert re.search(rf"^\| {step} \| dbt run .*\| [0-9.,]+ \|$", text, flags=re.M), step
    # the history in two runs of whole days (6 days: 3 and 3), the second one incremental
    first, second = r"\(from empty, 2026-11-01 to 2026-11-03, ", r"\(incremental, 2026-11-04 to 2026-11-06, "
    assert re.search(rf"^\| history run 1/2 \| dbt run {first}", text, flags=re.M), text
    assert re.search(rf"^\| history run 2/2 \| dbt run {second}", text, flags=re.M), text
    assert re.search(r"need about [0-9.]+ GB: .* \(built in 2 runs of about 0.06M events: ", text), text
    # the committed results' line, evaluated at 0.12M, beside the measured run
    for measure in ("model", "wall"):
        assert re.search(
            rf"^\| our incremental run, {measure} s \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| "
            r"[0-9.]+ \|$",
            text,
            flags=re.M,
        ), measure
    assert "of benchmarks.results.json (fitted to 1M, 30M)" in text
    # the incremental run's wall time in phases, and DuckDB's checkpoint apart from the models
    assert re.search(r"^\| exit: connections closed.*\| [0-9.]+ \|$", text, flags=re.M)
    assert re.search(r"^\| of the run phase, DuckDB's checkpoint .*\| [0-9.]+ \|$", text, flags=re.M)
    assert re.search(r"the warehouse and its spill folder at their largest [1-9][0-9]* B per history event", text)
    assert not (tmp_path / "out" / "120k").exists()  # the work folder goes unless --keep
    saved = load(LargeResults, doc.with_suffix(".results.json"))
    assert saved.label == "120k" and len(saved.history_steps) == 2 and saved.disk.steps == 2
