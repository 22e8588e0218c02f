"""diff.py on hand-made DuckDB files: multiset, keyed, null-safe, exclusions."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from harness.diff import Side, diff_sides, relation_columns
from harness.engines.duckdb import DuckDBSql
from harness.results import Column, Retyped, SchemaDiff


def make_db(path: Path, sql: str) -> Path:
    con = duckdb.connect(str(path))
    con.execute(sql)
    con.close()
    return path


@pytest.fixture
def attach(tmp_path: Path):
    """Write a left and a right file from SQL, attach both read-only, return the connection."""
    connections = []

    def _attach(left_sql: str, right_sql: str) -> duckdb.DuckDBPyConnection:
        left = make_db(tmp_path / "left.duckdb", left_sql)
        right = make_db(tmp_path / "right.duckdb", right_sql)
        con = duckdb.connect()
        con.execute(f"attach '{left}' as l (read_only)")
        con.execute(f"attach '{right}' as r (read_only)")
        connections.append(con)
        return con

    yield _attach
    for con in connections:
        con.close()


def diff(con: duckdb.DuckDBPyConnection, **kwargs):
    left, right = "l.main.t", "r.main.t"
    wrapped = DuckDBSql(con)
    return diff_sides(
        wrapped,
        "main.t",
        Side(left, relation_columns(wrapped, left)),
        Side(right, relation_columns(wrapped, right)),
        **kwargs,
    )


def test_duplicated_row_is_a_difference(attach) -> None:
    # The right side holds one row twice: EXCEPT would call the tables equal; we must not.
    con = attach(
        "create table t as select * from (values (1, 'a'), (2, 'b')) v(id, x)",
        "create table t as select * from (values (1, 'a'), (2, 'b'), (2, 'b')) v(id, x)",
    )
    result = diff(con)
    assert not result.identical
    assert (result.surplus_left, result.surplus_right) == (0, 1)
    assert result.duplicated_groups == 1
    assert "duplicated rows" in result.kinds()
    assert "2" in result.sample and "'b'" in result.sample


def test_sample_values_print_as_sql_literals_null_as_null(attach) -> None:
    con = attach(
        "create table t as select * from (values (1, 'a', 1.5), (2, null, null)) v(id, x, amount)",
        "create table t as select * from (values (1, 'a', 1.5), (2, null, 2.5)) v(id, x, amount)",
    )
    result = diff(con, key=("id",))
    assert "NULL" in result.sample and "'a'" not in result.sample
    assert "NaN" not in result.sample and "None" not in result.sample


def test_changed_column_is_reported_by_name_with_its_key(attach) -> None:
    con = attach(
        "create table t as select * from (values (1, 'a', 10), (2, 'b', 20)) v(id, x, amount)",
        "create table t as select * from (values (1, 'a', 10), (2, 'b', 25)) v(id, x, amount)",
    )
    result = diff(con, key=("id",))
    assert result.key == ("id",)
    assert result.keys_changed == 1
    assert (result.keys_added, result.keys_removed) == (0, 0)
    assert result.changed_columns == {"amount": 1}
    sample_lines = [line.split() for line in result.sample.splitlines()[1:]]
    assert {tuple(line[2:]) for line in sample_lines} == {("2", "'b'", "20"), ("2", "'b'", "25")}


def test_added_and_removed_keys(attach) -> None:
    con = attach(
        "create table t as select * from (values (1, 'a'), (2, 'b')) v(id, x)",
        "create table t as select * from (values (1, 'a'), (3, 'c')) v(id, x)",
    )
    result = diff(con, key=("id",))
    assert (result.keys_removed, result.keys_added, result.keys_changed) == (1, 1, 0)


def test_null_equals_null(attach) -> None:
    table = "create table t as select * from (values (1, null, null::int), (null, 'x', 3)) v(id, x, n)"
    con = attach(table, table)
    assert diff(con).identical
    assert diff(con, key=("id",)).identical


def test_null_versus_value_is_a_difference(attach) -> None:
    con = attach(
        "create table t as select * from (values (1, null)) v(id, x)",
        "create table t as select * from (values (1, 'a')) v(id, x)",
    )
    result = diff(con, key=("id",))
    assert result.changed_columns == {"x": 1}


def test_excluded_columns_are_excluded_and_reported(attach) -> None:
    con = attach(
        "create table t as select 1 as id, 'a' as x, timestamp '2026-01-01' as loaded_at",
        "create table t as select 1 as id, 'a' as x, timestamp '2026-06-01' as loaded_at",
    )
    assert not diff(con, key=("id",)).identical
    result = diff(con, key=("id",), excluded=("loaded_at",))
    assert result.identical
    assert result.excluded_columns == ("loaded_at",)


def test_schema_change_is_a_difference(attach) -> None:
    con = attach(
        "create table t as select 1 as id, 'a' as x",
        "create table t as select 1 as id, 'a' as x, 2 as extra",
    )
    result = diff(con)
    assert not result.identical
    assert result.schema_changes == ["column extra only on the right"]
    assert result.schema == SchemaDiff(added=(Column("extra", "INTEGER"),))


def test_duplicate_keys_are_counted(attach) -> None:
    con = attach(
        "create table t as select * from (values (1, 'a'), (2, 'b')) v(id, x)",
        "create table t as select * from (values (1, 'a'), (1, 'z'), (2, 'b')) v(id, x)",
    )
    result = diff(con, key=("id",))
    assert (result.duplicate_keys_left, result.duplicate_keys_right) == (0, 1)
    assert "duplicate keys" in result.kinds()


def test_row_order_does_not_matter(attach) -> None:
    con = attach(
        "create table t as select * from (values (1, 'a'), (2, null), (2, null)) v(id, x)",
        "create table t as select * from (values (2, null), (1, 'a'), (2, null)) v(id, x)",
    )
    result = diff(con, key=("id",))
    assert result.identical and result.left_rows == result.right_rows == 3


def test_a_changed_column_type_is_reported(attach) -> None:
    con = attach(
        "create table t as select 1 as id, 10 as amount",
        "create table t as select 1 as id, 10.5 as amount",
    )
    result = diff(con, key=("id",))
    assert not result.identical
    assert any(change.startswith("column amount type INTEGER -> DECIMAL") for change in result.schema_changes)
    assert [(c.name, c.left) for c in result.schema.retyped] == [("amount", "INTEGER")]


def test_a_schema_diff_of_two_column_maps_says_what_was_added_removed_and_retyped() -> None:
    left = {"id": "INTEGER", "note": "VARCHAR", "amount": "INTEGER", "day": "DATE"}
    right = {"id": "INTEGER", "amount": "DECIMAL(18,2)", "day": "DATE", "extra": "BOOLEAN"}
    schema = SchemaDiff.between(left, right)
    assert schema.added == (Column("extra", "BOOLEAN"),)
    assert schema.removed == (Column("note", "VARCHAR"),)
    assert schema.retyped == (Retyped("amount", "INTEGER", "DECIMAL(18,2)"),)
    assert schema.has_changes
    assert schema.lines() == [
        "column note only on the left",
        "column amount type INTEGER -> DECIMAL(18,2)",
        "column extra only on the right",
    ]
    same = SchemaDiff.between(left, dict(reversed(left.items())))  # matched by name, not position
    assert same == SchemaDiff() and not same.has_changes and same.lines() == []
