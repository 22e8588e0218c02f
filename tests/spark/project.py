"""tests/pipeline's `Pipeline`, pointed at the `spark` target of profiles.yml.

The same deliveries and dbt invocations (in-process, so one Spark session serves them all),
plus `--target spark` and a schema of its own; queries go through that Spark session.
"""
from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Sequence

from tests.pipeline.project import BuildResult, Pipeline


class SparkPipeline(Pipeline):
    shares_parse = False  # absolute landing and warehouse paths, as the server or the JVM needs

    def __init__(self, root: Path, spark_dir: Path) -> None:
        super().__init__(root)
        self.spark_dir = spark_dir
        self.schema = "t_" + uuid.uuid4().hex[:12]

    def dbt(self, command: str, *args: str, vars: dict[str, Any] | None = None) -> BuildResult:
        return super().dbt(command, *args, "--target", "spark", vars=vars)

    def dbt_env(self) -> dict[str, str]:
        return {**super().dbt_env(), "RERUN_SAFE_SPARK_DIR": str(self.spark_dir), "RERUN_SAFE_SPARK_SCHEMA": self.schema}

    def run_ok(self, *args: str, vars: dict[str, Any] | None = None) -> BuildResult:
        """`dbt run`, asserting that every model succeeded."""
        result = self.run(*args, vars=vars)
        failed = {k: result.messages.get(k, "")[:500] for k, v in result.statuses.items() if v != "success"}
        assert result.success and not failed, f"run failed: {failed}"
        return result

    def query(self, sql: str) -> list[tuple]:
        from pyspark.sql import SparkSession

        session = SparkSession.builder.getOrCreate()  # the one dbt-spark started
        session.catalog.setCurrentDatabase(self.schema)
        return [tuple(row) for row in session.sql(sql).collect()]

    def columns(self, name: str) -> list[str]:
        return [name_ for (name_, *_rest) in self.query(f"describe table {name}")
                if name_ and not name_.startswith("#")]

    def table(self, name: str, exclude: Sequence[str] = ()) -> list[tuple]:
        columns = [c for c in dict.fromkeys(self.columns(name)) if c not in exclude]
        return sorted(self.query(f"select {', '.join(columns)} from {name}"), key=repr)
