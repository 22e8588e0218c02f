"""A child process on a Spark warehouse built by other processes: optionally dbt builds, then the
business tables, as JSON in a file.

`python -m tests.spark.dump_tables OUT.json [BUILDS.json]` with RERUN_SAFE_SPARK_DIR and
RERUN_SAFE_SPARK_SCHEMA set, as the dbt children that built the warehouse had them. BUILDS is a
list of `{"args": [...], "target_path": ..., "if_failed": bool}`: each is a `dbt build` in this process (dbt-spark's
session method, one JVM for all of them and the dump), run only if the previous one failed when
`if_failed` is set. Then a Spark session on the same warehouse folder and Derby metastore (which
admits one process at a time) reads the tables as `engine_state()` of tests/pipeline/project.py
does. One JVM instead of one per build and one for the dump: each costs 15-20 s to start. (The
kill test also starts it with two builds and kills it during the second, before any dump.)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


class SparkTables:
    def __init__(self) -> None:
        from pyspark.sql import SparkSession

        spark_dir = os.environ["RERUN_SAFE_SPARK_DIR"]
        self.session = (
            SparkSession.builder.master("local[1]")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.warehouse.dir", f"{spark_dir}/warehouse")
            .config(
                "spark.hadoop.javax.jdo.option.ConnectionURL",
                f"jdbc:derby:;databaseName={spark_dir}/metastore_db;create=true",
            )
            .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={spark_dir}")
            .enableHiveSupport()
            .getOrCreate()
        )
        self.session.catalog.setCurrentDatabase(os.environ["RERUN_SAFE_SPARK_SCHEMA"])

    def query(self, sql: str) -> list[tuple]:
        return [tuple(row) for row in self.session.sql(sql).collect()]


def build(args: list[str], target_path: str) -> dict:
    """One `dbt build` in this process (harness.dbt_invoke.run_dbt, the invoker the tests share):
    its success and the messages of the nodes that failed."""
    from harness.dbt_invoke import run_dbt

    invocation = run_dbt(["build", *args], target_path=Path(target_path))
    failed = [f"{node.unique_id}: {node.message}" for node in invocation.nodes if node.status in ("error", "fail")]
    if invocation.error is not None:
        failed.append(invocation.error)
    return {"success": invocation.success, "failed": failed}


def main() -> None:
    from tests.pipeline.project import engine_state

    out, builds = sys.argv[1], json.loads(sys.argv[2]) if len(sys.argv) > 2 else []
    report: dict = {"builds": []}
    for step in builds:
        if step.get("if_failed") and report["builds"][-1]["success"]:
            continue
        report["builds"].append(build(step["args"], step["target_path"]))
    tables = SparkTables()  # dbt-spark's session, when a build ran: getOrCreate returns it
    state = engine_state(tables)
    state["runs"] = sorted(tables.query("select status from rerun_safe_runs"))
    report["tables"] = state
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(report, handle, default=str)


if __name__ == "__main__":
    main()
