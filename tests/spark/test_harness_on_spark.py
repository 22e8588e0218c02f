"""The harness on Spark (`--target spark`): its SQL, its scratch databases, and a check on the
pipeline itself.

The diffs are the same SQL on every engine (harness.diff); on Spark they run in the session
dbt-spark started in this process. The first test builds one pair of tables on Spark and on
DuckDB, the kinds of difference a diff must see (a duplicated row, NULL = NULL, a NULL moved to
another column, a changed value, a removed and an added key), and asserts both engines find the
same. The last one runs the harness's idempotency check on the pipeline on Spark (2 small
days); `docs/engines.md` ("Spark") records the other checks' run on Spark, which is too
slow for CI.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import duckdb
import pytest

from harness.cli import main
from harness.diff import Side, diff_sides
from harness.target import render_user_target
from pipeline_demo.generate import GeneratorConfig, generate

REPO = Path(__file__).resolve().parents[2]
LEFT = [(1, "a", None), (2, "b", "x"), (2, "b", "x"), (3, None, "y"), (4, "d", None), (5, "e", "z")]
RIGHT = [(1, "a", None), (2, "b", "x"), (3, "y", None), (4, "d", "changed"), (6, "f", "z")]
COMPARED = ("left_rows", "right_rows", "surplus_left", "surplus_right", "duplicated_groups",
            "keys_added", "keys_removed", "keys_changed", "duplicate_keys_left", "duplicate_keys_right",
            "changed_columns")


@pytest.fixture(scope="module")
def store(spark_dir):
    """A SparkStore on the session dbt-spark would start (the spark target's settings)."""
    from harness.engines.spark import SparkStore

    _, _, settings = render_user_target(REPO, REPO, "spark", {})
    store = SparkStore(settings, "t" + "0" * 7, logical_schema="rerun_safe")
    yield store
    store.close()
    assert store.schemas(store.prefix) == []  # every scratch database dropped


def _values(rows: list[tuple]) -> str:
    def literal(value):
        return "cast(null as string)" if value is None else (str(value) if isinstance(value, int) else f"'{value}'")

    return ", ".join("(" + ", ".join(literal(v) for v in row) + ")" for row in rows)


def _summary(result) -> dict:
    return {name: getattr(result, name) for name in COMPARED}


def test_a_diff_on_spark_finds_what_it_finds_on_duckdb(store) -> None:
    place = store.place(Path("."))
    store.create_schema(place)
    for name, rows in (("l", LEFT), ("r", RIGHT)):
        store.sql.execute(f"create table {place}.{name} using parquet as "
                          f"select * from values {_values(rows)} as v(id, x, y)")
    spark = diff_sides(
        store.sql, "t", Side(f"{place}.l", store.sql.columns(f"{place}.l")),
        Side(f"{place}.r", store.sql.columns(f"{place}.r")), key=("id",),
    )
    con = duckdb.connect()
    for name, rows in (("l", LEFT), ("r", RIGHT)):
        con.execute(f"create table {name} (id integer, x varchar, y varchar)")
        con.executemany(f"insert into {name} values (?, ?, ?)", rows)
    local = diff_sides(con, "t", Side("l", (("id", "INTEGER"), ("x", "VARCHAR"), ("y", "VARCHAR"))),
                       Side("r", (("id", "INTEGER"), ("x", "VARCHAR"), ("y", "VARCHAR"))), key=("id",))
    assert not spark.identical
    assert _summary(spark) == _summary(local)
    # what a correct diff sees here, worked out by hand
    assert (spark.left_rows, spark.right_rows) == (6, 5)
    # removed 5 | added 6 | changed: 2 (two copies -> one), 3 (NULL moved), 4 (a value)
    assert (spark.keys_removed, spark.keys_added, spark.keys_changed) == (1, 1, 3)
    assert spark.duplicate_keys_left == 1 and spark.duplicated_groups == 1
    # identical tables are identical (the fingerprint path)
    same = diff_sides(store.sql, "t", Side(f"{place}.l", store.sql.columns(f"{place}.l")),
                      Side(f"{place}.l", store.sql.columns(f"{place}.l")), key=("id",))
    assert same.identical and same.left_rows == 6


def test_a_checkpoint_restores_rows_and_partitions(store) -> None:
    place = store.place(Path("."))
    store.create_schema(place)
    store.create_schema(place + "_marts")
    store.sql.execute(f"create table {place}_marts.days using parquet partitioned by (day) as "
                      "select * from values (1, 'a', 1), (2, 'b', 2) as v(n, x, day)")
    store.sql.execute(f"create view {place}.recent as select n from {place}_marts.days where day > 1")
    saved = store.save_checkpoint(place, Path("."))
    store.sql.execute(f"insert overwrite table {place}_marts.days partition (day) select 9, 'z', 2")
    store.restore(place, saved)
    assert sorted(store.sql.fetchall(f"select n, x, day from {place}_marts.days")) == [(1, "a", 1), (2, "b", 2)]
    assert store.table_recipe(place + "_marts", "days") == ("day",)
    assert store.sql.fetchall(f"select n from {place}.recent") == [(2,)]
    # a snapshot is named by the logical schema, and frozen: later writes do not reach it
    snapshot = store.snapshot(place, Path("."), "s", None)
    assert {r.display_name for r in snapshot.relations} == {"rerun_safe.recent", "rerun_safe_marts.days"}
    store.sql.execute(f"insert into {place}_marts.days select 3, 'c', 3")
    copied = dict(snapshot.schemas)["rerun_safe"]
    assert store.sql.fetchall(f"select n from {copied}.recent") == [(2,)]


def test_idempotency_of_the_pipeline_on_spark(spark_dir, tmp_path: Path, capsys, monkeypatch) -> None:
    deliveries = tmp_path / "deliveries"
    generate(dataclasses.replace(GeneratorConfig(days=2, events_per_day=12), seed=5), deliveries)
    monkeypatch.chdir(REPO)
    code = main(["idempotency", "--target", "spark", "--deliveries", str(deliveries),
                 "--work-dir", str(tmp_path / "work"), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "idempotency: PASS" in out
    assert "rerun_safe.fct_revenue_ledger key (posting_id)" in out and "identical" in out
