"""A child process on a Spark warehouse built by other processes: optionally dbt builds, then the
business tables, as JSON in a file.

`python -m tests.spark.dump_tables OUT.json [BUILDS.json]` with RERUN_SAFE_SPARK_DIR and
RERUN_SAFE_SPARK_SCHEMA set, as the dbt children that built the warehouse had them. BUILDS is a
list of `{"args": [...], "if_failed": bool}`: each is a `dbt build` in this process (dbt-spark's
session method, one JVM for all of them and the dump), run only if the previous one failed when
`if_failed` is set. Then a Spark session on the same warehouse folder and Derby metastore (which
admits one process at a time) reads the tables as `engine_state()` of tests/pipeline/project.py
does. One JVM instead of one per build and one for the dump: each costs 15-20 s to start.
"""
from __future__ import annotations

import json
import os
import sys


class SparkTables:
    def __init__(self) -> None:
        from pyspark.sql import SparkSession

        spark_dir = os.environ["RERUN_SAFE_SPARK_DIR"]
        self.session = (
            SparkSession.builder.master("local[1]")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.warehouse.dir", f"{spark_dir}/warehouse")
            .config("spark.hadoop.javax.jdo.option.ConnectionURL",
                    f"jdbc:derby:;databaseName={spark_dir}/metastore_db;create=true")
            .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={spark_dir}")
            .enableHiveSupport()
            .getOrCreate()
        )
        self.session.catalog.setCurrentDatabase(os.environ["RERUN_SAFE_SPARK_SCHEMA"])

    def query(self, sql: str) -> list[tuple]:
        return [tuple(row) for row in self.session.sql(sql).collect()]


def build(args: list[str]) -> dict:
    """One `dbt build` in this process: its success and the messages of the nodes that failed."""
    from dbt.cli.main import dbtRunner

    outcome = dbtRunner().invoke(["build", *args])
    results = getattr(outcome.result, "results", None) or []
    failed = [f"{r.node.unique_id}: {r.message}" for r in results if str(r.status) in ("error", "fail")]
    if outcome.exception is not None:
        failed.append(str(outcome.exception))
    return {"success": bool(outcome.success), "failed": failed}


def main() -> None:
    from tests.pipeline.project import engine_state

    out, builds = sys.argv[1], json.loads(sys.argv[2]) if len(sys.argv) > 2 else []
    report: dict = {"builds": []}
    for step in builds:
        if step.get("if_failed") and report["builds"][-1]["success"]:
            continue
        report["builds"].append(build(step["args"]))
    tables = SparkTables()  # dbt-spark's session, when a build ran: getOrCreate returns it
    state = engine_state(tables)
    state["runs"] = sorted(tables.query("select status from rerun_safe_runs"))
    report["tables"] = state
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(report, handle, default=str)


if __name__ == "__main__":
    main()
