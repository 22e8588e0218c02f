"""literal_date_ranges (macros/pruning) renders a set of dates as `between` ranges of consecutive
days: exactly the dates when they form at most `max_ranges` runs, one range from the first to the
last date beyond that (a superset, which its callers narrow by a key test), `false` for none.
Rendered by `dbt show --inline` in this project, applied to every day of a calendar, and checked
against sets computed in Python."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from tests.package.dbt_show import show_inline

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
        f"cast('{START + dt.timedelta(days=40)}' as date), interval 1 day) as r (d)) " + " union all ".join(parts)
    )
    rows = show_inline(inline, tmp_path, limit=1000)
    for name, offsets in CASES.items():
        got = {(dt.date.fromisoformat(str(r["d"])[:10]) - START).days for r in rows if r["case_name"] == name}
        assert got == expected(offsets), (name, sorted(got), sorted(expected(offsets)))
    # the cases tell an exact rendering from a span and from nothing
    assert expected(CASES["many_runs"]) > set(CASES["many_runs"])
    assert expected(CASES["runs"]) == set(CASES["runs"])
