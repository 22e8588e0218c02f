"""Print, as JSON, the business tables of a Spark warehouse built by another process.

`python -m tests.spark.dump_tables` with RERUN_SAFE_SPARK_DIR and RERUN_SAFE_SPARK_SCHEMA set,
as the dbt child that built it had them: a Spark session of its own on the same warehouse
folder and Derby metastore (which admits one process at a time), the tables as
tests/spark/test_spark_target.py's `business()` reads them.
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


def main() -> None:
    from tests.spark.test_spark_target import business

    tables = SparkTables()
    state = business(tables)
    state["runs"] = sorted(tables.query("select status from rerun_safe_runs"))
    json.dump(state, sys.stdout, default=str)


if __name__ == "__main__":
    main()
