"""The portable `default__` of a dispatched macro gives what the engine's own implementation
gives, forced on DuckDB by calling it by name: dedupe_by_key's keeps exactly the relation's
columns and the same rows, parse_utc_timestamp's parses and refuses the same texts, and
scan_landing_file's, which has no portable form, stops at compile time naming the adapter."""

from __future__ import annotations

from pathlib import Path

from tests.package.dbt_show import run_show, show_inline

# (k, a, b, c): nulls in the key and in both order columns, and a row delivered twice (k = 4)
ROWS = (
    "(1, null, 5, 'p'), (1, 3, null, 'q'), (1, 3, 1, 'r'), (2, null, 9, 's'), (2, null, 4, 't'), "
    "(null, 1, 1, 'n1'), (null, 2, 1, 'n2'), (3, 7, 7, 'only'), (4, 1, 1, 'twice'), (4, 1, 1, 'twice')"
)
DEDUPE = (
    "with t as (select * from (values " + ROWS + ") as v (k, a, b, c)) "
    "select * from ({{{{ rerun_safe.{impl}__dedupe_by_key('t', ['k'], ['a desc', 'b nulls first', 'c']) }}}}) "
    "as d order by k nulls last"
)
TIMESTAMPS = [
    "2026-11-01T10:15:00Z",
    "2026-11-01 10:15:00",
    "2028-02-29 00:00:00",
    "0001-01-01 00:00:00",
    "2026-13-01 10:15:00",
    "2026-02-29 10:15:00",
    "2026-04-31 10:15:00",
    "2026-11-01 24:00:00",
    "2026-11-01 23:59:60",
    "2026-11-01 1:5:0",
    "2026-11-01T10:15:00",
    "2026-11-01 10:15:00Z",
    " 2026-11-01 10:15:00",
    "",
]


def test_default_dedupe_by_key_returns_the_relation_columns_and_the_engine_rows(tmp_path: Path) -> None:
    portable = show_inline(DEDUPE.format(impl="default"), tmp_path, limit=100)
    native = show_inline(DEDUPE.format(impl="duckdb"), tmp_path, limit=100)
    assert [list(row) for row in portable] == [["k", "a", "b", "c"]] * 5, portable
    assert portable == native
    assert [row["c"] for row in portable] == ["q", "t", "only", "twice", "n2"]


def test_default_parse_utc_timestamp_agrees_with_duckdb(tmp_path: Path) -> None:
    # year 0000 left out: DuckDB reads it as 1 BC, the portable parse refuses it (see the macro)
    values = ", ".join(f"('{text}')" for text in TIMESTAMPS) + ", (null)"
    rows = show_inline(
        f"select t.v, cast({{{{ rerun_safe.default__parse_utc_timestamp('t.v') }}}} as varchar) as portable, "
        f"cast({{{{ rerun_safe.duckdb__parse_utc_timestamp('t.v') }}}} as varchar) as native "
        f"from (values {values}) as t (v)",
        tmp_path,
        limit=100,
    )
    assert len(rows) == len(TIMESTAMPS) + 1
    assert [(row["v"], row["portable"]) for row in rows] == [(row["v"], row["native"]) for row in rows]
    parsed = [row["v"] for row in rows if row["portable"] is not None]
    assert parsed == TIMESTAMPS[:4], parsed  # the check is not vacuous: both outcomes occur


def test_default_scan_landing_file_names_the_adapter_and_the_supported_ones(tmp_path: Path) -> None:
    proc = run_show("select * from ({{ rerun_safe.default__scan_landing_file(none, []) }}) as s", tmp_path, limit=1)
    assert proc.returncode != 0
    message = (
        "no landing reader for adapter duckdb (scan_landing_file reads deliveries on duckdb, postgres and spark only)"
    )
    assert message in proc.stdout + proc.stderr
