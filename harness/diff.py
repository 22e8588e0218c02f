"""Multiset-correct, keyed, null-safe table diffs computed inside the warehouse.

Both sides are relation expressions in one connection (harness.engines): two DuckDB snapshot files
attached read-only, or two snapshot schemas of a PostgreSQL database. Rows are compared as a
multiset: every distinct row is counted on each side (`group by` treats NULLs as equal), so a
duplicated row is a difference and NULL equals NULL. Plain EXCEPT would hide both.

Most comparisons find identical tables, so a multiset fingerprint goes first: the row count
and two sums of independent 64-bit row hashes (different column order, a salt) per side.
Only when a fingerprint differs does the exact `group by` diff run (about 5x slower: 10M rows
take ~4 s to fingerprint, ~20 s to diff exactly, on 2 cores). Two different multisets with
equal fingerprints would need two simultaneous 64-bit sum collisions.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pandas as pd

from harness.engines.base import Sql
from harness.engines.duckdb import as_sql
from harness.results import SchemaDiff, TableDiff

# New values of changed columns kept for the hints (does a value appear in the input?)
MAX_VALUE_COLUMNS = 5
MAX_VALUES = 3


@dataclass(frozen=True)
class Side:
    """A relation to compare: SQL that can follow `from`, and its (name, type) columns."""

    sql: str
    columns: tuple[tuple[str, str], ...]


def relation_columns(con: Sql, sql: str) -> tuple[tuple[str, str], ...]:
    return as_sql(con).columns(sql)


def _fingerprint(con: Sql, sql: str, columns: list[str]) -> tuple[int, int, int]:
    row = con.fetchone(
        f"""
        select
            count(*),
            {con.row_hash_sum(columns, salted=False)},
            {con.row_hash_sum(list(reversed(columns)), salted=True)}
        from {sql} as __fingerprinted
        """
    )
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


def _scalar(con: Sql, sql: str) -> int:
    row = con.fetchone(sql)
    return int(row[0] or 0) if row else 0


def diff_sides(
    con: Sql,
    table: str,
    left: Side,
    right: Side,
    *,
    key: tuple[str, ...] = (),
    excluded: tuple[str, ...] = (),
    mode: str = "exact",
    sample_size: int = 5,
) -> TableDiff:
    con = as_sql(con)
    excluded_lower = {name.lower() for name in excluded}
    left_cols = {name: type_ for name, type_ in left.columns if name.lower() not in excluded_lower}
    right_cols = {name: type_ for name, type_ in right.columns if name.lower() not in excluded_lower}
    schema = SchemaDiff.between(left_cols, right_cols)
    common = [name for name in left_cols if name in right_cols]
    result = TableDiff(table=table, mode=mode, excluded_columns=tuple(excluded), schema=schema)
    if not common:
        result.schema_problems.append("no column in common")
        return result
    left_print = _fingerprint(con, left.sql, common)
    right_print = _fingerprint(con, right.sql, common)
    result.left_rows, result.right_rows = left_print[0], right_print[0]
    usable_key = tuple(name for name in key if name in common)
    if left_print == right_print and not schema.has_changes:
        result.key = usable_key if len(usable_key) == len(key) else ()
        return result

    quote = con.quote
    cols = ", ".join(quote(name) for name in common)
    diff_table = f"__rerun_safe_diff_{uuid.uuid4().hex[:12]}"
    try:
        con.create_temp(
            diff_table,
            f"""
            select {cols}, sum(__in_left) as __n_left, sum(__in_right) as __n_right
            from (
                select {cols}, 1 as __in_left, 0 as __in_right from {left.sql} as __l
                union all
                select {cols}, 0 as __in_left, 1 as __in_right from {right.sql} as __r
            ) as both_sides
            group by {cols}
            having sum(__in_left) <> sum(__in_right)
            """,
        )
    except con.errors as exc:  # e.g. a column changed to a type the other side cannot take
        result.schema_problems.append(f"rows not comparable: {str(exc).splitlines()[0]}")
        return result
    try:
        surplus = con.fetchone(
            f"""
            select
                coalesce(sum(greatest(__n_left - __n_right, 0)), 0),
                coalesce(sum(greatest(__n_right - __n_left, 0)), 0),
                count(*) filter (where __n_left > 0 and __n_right > 0)
            from {diff_table}
            """
        )
        assert surplus is not None
        result.surplus_left, result.surplus_right, result.duplicated_groups = (int(v) for v in surplus)

        if key and len(usable_key) == len(key):
            result.key = usable_key
            if not result.identical:
                _keyed_details(con, result, left, right, diff_table, common)
        elif key:
            result.schema_problems.append(f"key column(s) missing: {', '.join(set(key) - set(common))}")
        if not result.identical:
            result.sample = _sample(con, diff_table, common, result.key, sample_size)
    finally:
        con.drop_temp(diff_table)
    return result


def _keyed_details(
    con: Sql,
    result: TableDiff,
    left: Side,
    right: Side,
    diff_table: str,
    common: list[str],
) -> None:
    quote = con.quote
    key_cols = ", ".join(quote(name) for name in result.key)
    for side, attr in ((left, "duplicate_keys_left"), (right, "duplicate_keys_right")):
        setattr(
            result,
            attr,
            _scalar(
                con,
                f"select count(*) from (select {key_cols} from {side.sql} as __s"
                f" group by {key_cols} having count(*) > 1) as __d",
            ),
        )
    if len(result.key) > 1:  # a key with a NULL column never matches in a merge (NULL = NULL is not true)
        any_null = " or ".join(f"{quote(k)} is null" for k in result.key)
        result.null_key_duplicates_right = _scalar(
            con,
            f"select count(*) from (select {key_cols} from {right.sql} as __s where {any_null}"
            f" group by {key_cols} having count(*) > 1) as __d",
        )
    presence = con.fetchone(
        f"""
        with keys as (
            select {key_cols}, 1 as __on_left, 0 as __on_right
            from (select distinct {key_cols} from {left.sql} as __l) as __lk
            union all
            select {key_cols}, 0 as __on_left, 1 as __on_right
            from (select distinct {key_cols} from {right.sql} as __r) as __rk
        ),
        per_key as (
            select {key_cols}, sum(__on_left) as __lefts, sum(__on_right) as __rights
            from keys
            group by {key_cols}
        )
        select count(*) filter (where __rights = 0), count(*) filter (where __lefts = 0) from per_key
        """
    )
    assert presence is not None
    result.keys_removed, result.keys_added = int(presence[0]), int(presence[1])
    differing_keys = _scalar(con, f"select count(*) from (select distinct {key_cols} from {diff_table}) as __k")
    result.keys_changed = differing_keys - result.keys_removed - result.keys_added

    value_cols = [name for name in common if name not in result.key]
    if not value_cols or result.keys_changed <= 0:
        return
    join_on = " and ".join(f"__l.{quote(k)} is not distinct from __r.{quote(k)}" for k in result.key)
    key_row = con.struct(", ".join(f"__l.{quote(k)}" for k in result.key))
    counts = ", ".join(
        f"count(distinct {key_row}) filter (where __l.{quote(c)} is distinct from __r.{quote(c)})" for c in value_cols
    )
    row = con.fetchone(
        f"""
        select {counts}
        from (select * from {diff_table} where __n_left > __n_right) as __l
        inner join (select * from {diff_table} where __n_right > __n_left) as __r
            on {join_on}
        """
    )
    assert row is not None
    result.changed_columns = {c: int(n) for c, n in zip(value_cols, row, strict=True) if n}
    for column in list(result.changed_columns)[:MAX_VALUE_COLUMNS]:
        # the values as they are, made text here: `cast(... as varchar)` is no type on Spark
        _, values = con.query(
            f"select distinct {quote(column)} from {diff_table} "
            f"where __n_right > __n_left and {quote(column)} is not null limit {MAX_VALUES}"
        )
        result.changed_values[column] = tuple(str(v[0]) for v in values)


def _sample(
    con: Sql,
    diff_table: str,
    common: list[str],
    key: tuple[str, ...],
    sample_size: int,
) -> str:
    if sample_size <= 0:
        return ""
    quote = con.quote
    order = ", ".join(quote(name) for name in (key or tuple(common)))
    # Keyed: show both sides of each key next to each other.
    limit = sample_size * 2 if key else sample_size
    names, rows = con.query(
        f"""
        select
            case when __n_left > __n_right then '-' else '+' end as _side,
            cast(abs(__n_right - __n_left) as bigint) as _copies,
            {", ".join(quote(name) for name in common)}
        from {diff_table}
        order by {order}, _side
        limit {limit}
        """
    )
    from harness.keys import sql_literal  # harness.keys reads harness.diff's results

    # values as SQL literals ('e9', NULL, 42): pandas would print a NULL as NaN or None
    shown = [tuple(value if index < 2 else sql_literal(value) for index, value in enumerate(row)) for row in rows]
    shown = shorten_where_they_differ(shown, tuple(2 + common.index(k) for k in key if k in common))
    frame = pd.DataFrame(shown, columns=names, dtype=object)
    return frame.to_string(index=False, max_colwidth=WIDTH + 10)


WIDTH = 40  # characters of a value the sample shows


def excerpt(value: str, start: int, width: int = WIDTH) -> str:
    """`value` cut to about `width` characters around `start` (the first character that differs
    from the other side), with `…` where it was cut."""
    if len(value) <= width:
        return value
    begin = max(0, min(start - width // 4, len(value) - width))
    end = begin + width
    return ("…" if begin else "") + value[begin:end] + ("…" if end < len(value) else "")


def first_difference(left: str, right: str) -> int:
    """Index of the first character where two texts differ (the shorter's length if one is a
    prefix of the other)."""
    for index, (a, b) in enumerate(zip(left, right, strict=False)):
        if a != b:
            return index
    return min(len(left), len(right))


def shorten_where_they_differ(rows: list[tuple[object, ...]], key_at: tuple[int, ...]) -> list[tuple[object, ...]]:
    """Sample rows with every long text value cut around where it differs from the row next to
    it of the other side with the same key (the row before or after it: `key_at`, the key's
    columns; no key: any neighbour of the other side), else at its start: a long value's first
    40 characters may be the same on both sides."""

    def key_of(row: tuple[object, ...]) -> tuple[object, ...]:
        return tuple(row[i] for i in key_at)

    cut: list[tuple[object, ...]] = []
    for index, row in enumerate(rows):
        partners = [
            rows[other]
            for other in (index - 1, index + 1)
            if 0 <= other < len(rows) and rows[other][0] != row[0] and key_of(rows[other]) == key_of(row)
        ]
        values: list[object] = []
        for column, value in enumerate(row):
            if not isinstance(value, str) or len(value) <= WIDTH:
                values.append(value)
                continue
            start = 0
            for partner in partners:
                other = partner[column]
                if isinstance(other, str) and other != value:
                    start = first_difference(value, other)
                    break
            values.append(excerpt(value, start))
        cut.append(tuple(values))
    return cut
