"""literal_date_ranges (macros/pruning) renders a set of dates as `between` ranges of consecutive
days: exactly the dates when they form at most `max_ranges` runs, one range from the first to the
last date beyond that (a superset, which its callers narrow by a key test), `false` for none.
Rendered by `dbt show --inline` in this project, applied to every day of a calendar, and checked
against sets computed in Python."""
from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DBT = Path(sys.executable).with_name("dbt")
START = dt.date(2026, 12, 30)  # the runs cross a year end

CASES = {
    # three runs: exactly these days
    "runs": [0, 1, 2, 6, 9, 10],
    # a single day, and the same day listed twice
    "one_day": [4, 4],
    # nine runs (every other day) > max_ranges=8: one range, first to last day
    "many_runs": list(range(0, 18, 2)),
    # nothing: no day at all
    "none": [],
}


def expected(offsets: list[int], max_ranges: int = 8) -> set[int]:
    days = sorted(set(offsets))
    if not days:
        return set()
    runs = sum(1 for i, d in enumerate(days) if i == 0 or d != days[i - 1] + 1)
    return set(range(days[0], days[-1] + 1)) if runs > max_ranges else set(days)


def dates_sql(offsets: list[int]) -> str:
    if not offsets:
        return "select cast(null as date) as d"
    values = ", ".join(f"(cast('{START + dt.timedelta(days=o)}' as date))" for o in offsets)
    return f"select d from (values {values}) as v (d)"


def test_literal_date_ranges_selects_the_dates_or_their_span(tmp_path: Path) -> None:
    parts = [
        f"select '{name}' as case_name, calendar.d from calendar "
        f"where {{{{ rerun_safe.literal_date_ranges('calendar.d', {dates_sql(offsets)!r}) }}}}"
        for name, offsets in CASES.items()
    ]
    inline = (
        f"with calendar as (select cast(d as date) as d from range(cast('{START - dt.timedelta(days=5)}' as date), "
        f"cast('{START + dt.timedelta(days=40)}' as date), interval 1 day) as r (d)) "
        + " union all ".join(parts)
    )
    env = dict(os.environ, DBT_DUCKDB_PATH=str(tmp_path / "show.duckdb"))
    proc = subprocess.run(
        [str(DBT), "show", "--quiet", "--output", "json", "--limit", "1000", "--project-dir", str(REPO),
         "--profiles-dir", str(REPO), "--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs"),
         "--inline", inline],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = json.loads(proc.stdout)["show"]
    for name, offsets in CASES.items():
        got = {(dt.date.fromisoformat(str(r["d"])[:10]) - START).days for r in rows if r["case_name"] == name}
        assert got == expected(offsets), (name, sorted(got), sorted(expected(offsets)))
    # the cases tell an exact rendering from a span and from nothing
    assert expected(CASES["many_runs"]) > set(CASES["many_runs"])
    assert expected(CASES["runs"]) == set(CASES["runs"])
