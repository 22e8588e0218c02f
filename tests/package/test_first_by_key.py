"""first_by_key (macros/dedup) keeps the same row per key as dedupe_by_key's ROW_NUMBER, nulls
last, in every direction: on DuckDB it is an arg_max/arg_min aggregate (all terms descending or
all ascending) or the window (mixed directions). Rendered by `dbt show --inline` in this
project and checked against an ordering written in Python."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.package.dbt_show import show_inline

# (k, a, b, c): a and b order the rows, c is the column kept; nulls in both order columns
ROWS = [
    (1, None, 5, "p"),
    (1, 3, None, "q"),
    (1, 3, 1, "r"),
    (2, None, 9, "s"),
    (2, None, 4, "t"),
    (3, None, 100, "u"),
    (3, 1, 0, "v"),
    (3, 2, 0, "w"),
]
ORDERS = {
    "desc": ["a desc", "b desc"],
    "asc": ["a", "b asc"],
    "mixed": ["a desc", "b"],
}


def expected(order: list[str]) -> dict[int, str]:
    """The first row per k when sorted by `order`, nulls last in either direction."""

    def sort_key(row):
        key = []
        for term in order:
            column, *direction = term.split()
            value = row["ab".index(column) + 1]
            descending = direction == ["desc"]
            key += [value is None, 0 if value is None else (-value if descending else value)]
        return key

    first: dict[int, str] = {}
    for row in sorted(ROWS, key=sort_key):
        first.setdefault(row[0], row[3])
    return first


def values_sql() -> str:
    def lit(v):
        return "null" if v is None else (f"'{v}'" if isinstance(v, str) else str(v))

    return ", ".join("(" + ", ".join(lit(v) for v in row) + ")" for row in ROWS)


def test_first_by_key_keeps_the_rows_dedupe_by_key_keeps(tmp_path: Path) -> None:
    parts = []
    for name, order in ORDERS.items():
        parts.append(
            f"select '{name}' as ordering, f.k, f.c as first_c, d.c as dedupe_c "
            f"from ({{{{ rerun_safe.first_by_key('t', ['k'], {order!r}, ['c']) }}}}) as f "
            f"full join (select k, c from ({{{{ rerun_safe.dedupe_by_key('t', ['k'], {order!r}) }}}}) as dd) as d "
            "on f.k = d.k"
        )
    inline = f"with t as (select * from (values {values_sql()}) as v (k, a, b, c)) " + " union all ".join(parts)
    rows = show_inline(inline, tmp_path, limit=100)
    for name, order in ORDERS.items():
        got = {r["k"]: (r["first_c"], r["dedupe_c"]) for r in rows if r["ordering"] == name}
        want = expected(order)
        assert got == {k: (c, c) for k, c in want.items()}, (name, got, want)
    # the data tells the directions and the null placement apart
    assert len({tuple(sorted(expected(o).items())) for o in ORDERS.values()}) == len(ORDERS)


@pytest.mark.parametrize("order", [["a desc"], ["a"]])
def test_expected_puts_nulls_last(order: list[str]) -> None:
    assert expected(order)[3] in ("v", "w")
