"""The harness's diff (harness.diff) on Spark finds what it finds on DuckDB, on one pair of
tables with every kind of difference a diff must see: a duplicated row, NULL = NULL, a NULL
moved to another column, a changed value, a removed and an added key. `sql` is the lane's way
to Spark (harness.engines.spark.SparkSql in the session, tests/spark/project.py's ThriftSql on
the cluster); `place` a database that exists.
"""

from __future__ import annotations

import duckdb

from harness.diff import Side, diff_sides
from harness.engines.duckdb import DuckDBSql

LEFT = [(1, "a", None), (2, "b", "x"), (2, "b", "x"), (3, None, "y"), (4, "d", None), (5, "e", "z")]
RIGHT = [(1, "a", None), (2, "b", "x"), (3, "y", None), (4, "d", "changed"), (6, "f", "z")]
COMPARED = (
    "left_rows",
    "right_rows",
    "surplus_left",
    "surplus_right",
    "duplicated_groups",
    "keys_added",
    "keys_removed",
    "keys_changed",
    "duplicate_keys_left",
    "duplicate_keys_right",
    "changed_columns",
)


def values_sql(rows: list[tuple]) -> str:
    def literal(value):
        return "cast(null as string)" if value is None else (str(value) if isinstance(value, int) else f"'{value}'")

    return ", ".join("(" + ", ".join(literal(v) for v in row) + ")" for row in rows)


def summary(result) -> dict:
    return {name: getattr(result, name) for name in COMPARED}


def a_diff_on_spark_finds_what_it_finds_on_duckdb(sql, place: str) -> None:
    for name, rows in (("l", LEFT), ("r", RIGHT)):
        sql.execute(
            f"create table {place}.{name} using parquet as select * from values {values_sql(rows)} as v(id, x, y)"
        )
    left, right = Side(f"{place}.l", sql.columns(f"{place}.l")), Side(f"{place}.r", sql.columns(f"{place}.r"))
    assert [name for name, _type in left.columns] == ["id", "x", "y"], left.columns
    spark = diff_sides(sql, "t", left, right, key=("id",))
    con = duckdb.connect()
    for name, rows in (("l", LEFT), ("r", RIGHT)):
        con.execute(f"create table {name} (id integer, x varchar, y varchar)")
        con.executemany(f"insert into {name} values (?, ?, ?)", rows)
    local = diff_sides(
        DuckDBSql(con),
        "t",
        Side("l", (("id", "INTEGER"), ("x", "VARCHAR"), ("y", "VARCHAR"))),
        Side("r", (("id", "INTEGER"), ("x", "VARCHAR"), ("y", "VARCHAR"))),
        key=("id",),
    )
    assert not spark.identical
    assert summary(spark) == summary(local)
    # what a correct diff sees here, worked out by hand
    assert (spark.left_rows, spark.right_rows) == (6, 5)
    # removed 5 | added 6 | changed: 2 (two copies -> one), 3 (NULL moved), 4 (a value)
    assert (spark.keys_removed, spark.keys_added, spark.keys_changed) == (1, 1, 3)
    assert spark.duplicate_keys_left == 1 and spark.duplicated_groups == 1
    same = diff_sides(sql, "t", left, left, key=("id",))  # identical tables: the fingerprint path
    assert same.identical and same.left_rows == 6
