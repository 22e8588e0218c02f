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

import pytest

from harness.cli import main
from harness.target import render_user_target
from pipeline_demo.generate import GeneratorConfig, generate
from tests.spark.scenarios import diff

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def store(spark_dir):
    """A SparkStore on the session dbt-spark would start (the spark target's settings)."""
    from harness.engines.spark import SparkStore

    _, _, settings = render_user_target(REPO, REPO, "spark", {})
    store = SparkStore(settings, "t" + "0" * 7, logical_schema="rerun_safe")
    yield store
    store.close()
    assert store.schemas(store.prefix) == []  # every scratch database dropped


def test_a_diff_on_spark_finds_what_it_finds_on_duckdb(store) -> None:
    place = store.place(Path("."))
    store.create_schema(place)
    diff.a_diff_on_spark_finds_what_it_finds_on_duckdb(store.sql, place)


def test_a_checkpoint_restores_rows_and_partitions(store) -> None:
    place = store.place(Path("."))
    store.create_schema(place)
    store.create_schema(place + "_marts")
    store.sql.execute(
        f"create table {place}_marts.days using parquet partitioned by (day) as "
        "select * from values (1, 'a', 1), (2, 'b', 2) as v(n, x, day)"
    )
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
    code = main(
        [
            "idempotency",
            "--target",
            "spark",
            "--deliveries",
            str(deliveries),
            "--work-dir",
            str(tmp_path / "work"),
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "idempotency: PASS" in out
    assert "rerun_safe.fct_revenue_ledger key (posting_id)" in out and "identical" in out
