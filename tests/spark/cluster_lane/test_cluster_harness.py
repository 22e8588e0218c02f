"""The harness's checks on the cluster (`--target spark_thrift`).

The harness's CLI drives Spark's `method: session` only (harness/target.py refuses another
method, and harness/engines/spark.py works on the in-process session's catalog), so on the
cluster these tests run the harness's own comparison code over a Thrift connection
(tests/spark/project.py's ThriftSql: harness.engines.spark.SparkSql's SQL, sent to the Thrift
server):

- the diff (harness.diff) on a pair of tables with every kind of difference a diff must see (a
  duplicated row, NULL = NULL, a NULL moved to another column, a changed value, a removed and
  an added key) finds on the cluster what it finds on DuckDB;
- idempotency on the pipeline: after a build of 2 small generated days, a second build with
  nothing new leaves every model's table identical (harness.diff, each model's
  meta.rerun_safe.volatile_columns and the load stamps excluded, as the harness's check does).
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from pathlib import Path

import pytest

from harness.dbt_invoke import run_dbt
from harness.diff import Side, diff_sides
from harness.project import load_manifest
from pipeline_demo.generate import GeneratorConfig, generate
from tests.pipeline.project import PROJECT_DIR
from tests.spark.project import ClusterPipeline, ThriftSql
from tests.spark.scenarios import diff

pytestmark = pytest.mark.spark


def test_a_diff_on_the_cluster_finds_what_it_finds_on_duckdb(spark_cluster) -> None:
    place = "h_" + uuid.uuid4().hex[:12]
    sql = ThriftSql(spark_cluster.connect())
    try:
        sql.execute(f"create database {place}")
        diff.a_diff_on_spark_finds_what_it_finds_on_duckdb(sql, place)
    finally:
        sql.execute(f"drop database if exists {place} cascade")
        sql.close()


def test_idempotency_of_the_pipeline_on_the_cluster(tmp_path: Path, spark_cluster) -> None:
    deliveries = tmp_path / "deliveries"
    generate(dataclasses.replace(GeneratorConfig(days=2, events_per_day=12), seed=5), deliveries)
    spark = ClusterPipeline(tmp_path / "spark", spark_cluster)
    try:
        spark.deliver(*sorted(deliveries.glob("*.csv")))
        spark.run_ok()
        parsed = tmp_path / "parsed"
        invocation = run_dbt(["parse", "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR),
                              "--target", "spark_thrift", "--target-path", str(parsed),
                              "--vars", json.dumps({"landing_path": str(spark.landing)})],
                             target_path=parsed, env=spark.dbt_env())
        assert invocation.success, invocation.error
        project = load_manifest(parsed)
        models = [m for m in project.models if m.resource_type == "model" and m.materialized != "view"]
        assert {"fct_order_items", "fct_daily_revenue", "fct_revenue_ledger", "int_event_copies_classified"} <= {
            m.name for m in models}, [m.name for m in models]
        before = spark.schema + "_before"
        sql = spark.sql()
        sql.execute(f"create database {before}")
        for model in models:
            sql.execute(f"create table {before}.{model.identifier} using parquet as"
                        f" select * from {spark.schema}.{model.identifier}")
        rows_before = {m.identifier: sql.fetchall(f"select count(*) from {before}.{m.identifier}")[0][0] for m in models}
        assert rows_before["fct_order_items"] > 0 and rows_before["fct_revenue_ledger"] > 0, rows_before
        spark.run_ok()  # nothing new
        spark.close()  # a session that read the tables before the build would read stale listings
        sql = spark.sql()
        stamps = project.load_stamps()
        changed = {}
        for model in models:
            left = Side(f"{before}.{model.identifier}", sql.columns(f"{before}.{model.identifier}"))
            right = Side(f"{spark.schema}.{model.identifier}", sql.columns(f"{spark.schema}.{model.identifier}"))
            result = diff_sides(sql, model.name, left, right, key=model.unique_key,
                                excluded=tuple(model.rerun_safe.volatile_columns) + tuple(stamps))
            if not result.identical:
                changed[model.name] = diff.summary(result) | {"schema_changes": result.schema_changes}
        assert not changed, f"a run with nothing new changed tables on the cluster: {changed}"
        sql.execute(f"drop database if exists {before} cascade")
    finally:
        spark.close()
