"""bench/run.py --small works end to end: it exits 0 and writes every table and ratio line.

No timing is asserted: the benchmark reports its ratios against targets, it never fails on them.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RATIO_IDS = ("R1", "R2", "R3a", "R4", "R5", "RF")
STEPS = ("history_build", "incremental", "full_refresh", "floor", "floor_full")


def test_bench_small_writes_tables_and_ratios(tmp_path: Path) -> None:
    doc = tmp_path / "b.md"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--small", "--out", str(tmp_path / "out"),
         "--doc", str(doc)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    text = doc.read_text()
    for size in ("20k", "60k"):
        assert f"### N = {size} events" in text
    for step in STEPS:
        rows = re.findall(rf"^\| {step} \| .*\| [0-9.,]+ \|", text, flags=re.M)
        assert len(rows) == 2, f"missing table row for {step}"
    assert re.search(r"^\| peer_incremental \| ", text, flags=re.M)
    assert re.search(r"^\| idempotency \| ", text, flags=re.M)
    for rid in RATIO_IDS:
        line = re.search(rf"^\| {rid} \| .* \| \*\*(met|not met|not measured)\*\*", text, flags=re.M)
        assert line, f"ratio line {rid} missing"
    # the floor reproduces dbt's business tables, and a full refresh converges with the increments
    assert "floor vs dbt incremental: fct_order_items **equal**, fct_daily_revenue **equal**" in text
    assert "full refresh vs incremental: fct_order_items **equal**, fct_daily_revenue **equal**" in text
    assert "one-pass floor vs dbt full refresh: fct_order_items **equal**, fct_daily_revenue **equal**" in text
    # the same table goes to stdout
    assert "## Ratios" in proc.stdout and "R1 " in proc.stdout
