"""bench/large.py (`make bench-large`): a size whose files do not fit on the disk is refused before
anything is written, and a small run goes end to end and sets its measurement beside the per-row
prediction of docs/benchmarks.md. No timing is asserted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LARGE = ROOT / "bench" / "large.py"


def test_a_size_the_disk_cannot_hold_is_refused_before_any_write(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, str(LARGE), "--size", "100000000M", "--out", str(out),
                           "--doc", str(tmp_path / "large.md")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert re.search(r"refused before writing anything: 1e\+08M events need about [0-9.]+ GB: landing files "
                     r"[0-9.]+ GB .*; [0-9.]+ GB are free", proc.stderr), proc.stderr
    assert "--size" in proc.stderr
    assert not out.exists() and not (tmp_path / "large.md").exists()


def test_a_small_run_sets_its_incremental_run_beside_the_prediction(tmp_path: Path) -> None:
    doc = tmp_path / "large.md"
    proc = subprocess.run([sys.executable, str(LARGE), "--size", "300k", "--batch-events", "20000", "--steps", "2",
                           "--out", str(tmp_path / "out"), "--doc", str(doc)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    text = doc.read_text()
    for step in ("history_build", "incremental"):
        assert re.search(rf"^\| {step} \| dbt run .*\| [0-9.,]+ \|$", text, flags=re.M), step
    # the history in two runs of whole days (15 days: 7 and 8), the second one incremental
    assert re.search(r"^\| history run 1/2 \| dbt run \(from empty, 2026-11-01 to 2026-11-07, ", text, flags=re.M), text
    assert re.search(r"^\| history run 2/2 \| dbt run \(incremental, 2026-11-08 to 2026-11-15, ", text, flags=re.M), text
    assert re.search(r"need about [0-9.]+ GB: .* \(built in 2 runs of about 0.15M events: ", text), text
    # the committed page's line, evaluated at 0.3M, beside the measured run
    for measure in ("model", "wall"):
        assert re.search(rf"^\| our incremental run, {measure} s \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| "
                         r"[0-9.]+ \|$", text, flags=re.M), measure
    # the incremental run's wall time in phases, and DuckDB's checkpoint apart from the models
    assert re.search(r"^\| exit: connections closed.*\| [0-9.]+ \|$", text, flags=re.M)
    assert re.search(r"^\| of the run phase, DuckDB's checkpoint .*\| [0-9.]+ \|$", text, flags=re.M)
    assert re.search(r"the warehouse and its spill folder at their largest [1-9][0-9]* B per history event", text)
    assert not (tmp_path / "out" / "300k").exists()  # the work folder goes unless --keep
