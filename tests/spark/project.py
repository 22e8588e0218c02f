"""tests/pipeline's `Pipeline`, pointed at Spark.

`ClusterPipeline`: the `spark_thrift` target of profiles.yml, on the standalone cluster of
tests/spark/cluster.py (the Spark lane of the tests). The same deliveries and dbt invocations
(in-process: dbt is a client of the Thrift server, so a build costs no JVM start), plus
`--target spark_thrift` and a schema of its own; queries go to the Thrift server through a
PyHive connection of the pipeline's own, with Spark's text values of timestamps, dates and
dates turned back into Python values (as DuckDB and pyspark return them).

`SparkPipeline`: the `spark` target (`method: session`, Spark inside the test process).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from harness.engines.spark import SparkSql
from tests.pipeline.project import BuildResult, Pipeline


def _value(type_code: str, value: Any) -> Any:
    """PyHive turns timestamps and decimals into Python values itself, and leaves dates as text."""
    if not isinstance(value, str):
        return value
    if type_code == "TIMESTAMP_TYPE":
        return datetime.fromisoformat(value)
    if type_code == "DATE_TYPE":
        return date.fromisoformat(value)
    if type_code == "DECIMAL_TYPE":
        return Decimal(value)
    return value


def fetch(cursor: Any, sql: str) -> tuple[list[str], list[tuple]]:
    """Run `sql` on a PyHive cursor: column names and rows, values as Python types."""
    cursor.execute(sql)
    if not cursor.description:
        return [], []
    types = [column[1] for column in cursor.description]
    rows = [tuple(_value(t, v) for t, v in zip(types, row, strict=True)) for row in cursor.fetchall()]
    return [column[0] for column in cursor.description], rows


class ThriftSql(SparkSql):
    """The harness's Spark SQL (harness.engines.spark.SparkSql: the same hashes, temporary
    tables and quoting) over a PyHive connection to the Thrift server instead of an in-process
    session."""

    def __init__(self, connection: Any) -> None:
        from pyhive.exc import Error

        self.raw = connection
        self.cursor = connection.cursor()
        self.errors = (Error,)

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> None:
        assert params is None, "no parameters over Thrift here"
        fetch(self.cursor, sql)

    def fetchall(self, sql: str, params: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
        assert params is None, "no parameters over Thrift here"
        return fetch(self.cursor, sql)[1]

    def query(self, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        return fetch(self.cursor, sql)

    def columns(self, relation_sql: str) -> tuple[tuple[str, str], ...]:
        described = self.fetchall(f"describe query select * from {relation_sql} as __described")
        return tuple((str(name), str(type_)) for name, type_, *_ in described)

    def create_temp(self, name: str, select: str) -> None:
        self.execute(f"cache table {name} as {select}")

    def drop_temp(self, name: str) -> None:
        self.execute(f"uncache table if exists {name}")
        self.execute(f"drop view if exists {name}")

    def close(self) -> None:
        self.cursor.close()
        self.raw.close()


class ClusterPipeline(Pipeline):
    shares_parse = False  # absolute landing paths: the executors read them, not this process
    records_empty_deliveries = False

    def __init__(self, root: Path, cluster: Any) -> None:
        super().__init__(root)
        self.cluster = cluster
        self.spark_dir = cluster.root  # its warehouse/ holds <schema>.db
        self.schema = "t_" + uuid.uuid4().hex[:12]
        self._connection: Any = None

    def dbt(self, command: str, *args: str, vars: dict[str, Any] | None = None) -> BuildResult:
        return super().dbt(command, *args, "--target", "spark_thrift", vars=vars)

    def dbt_env(self) -> dict[str, str]:
        return {**super().dbt_env(), **self.cluster.env(self.schema)}

    def sql(self) -> ThriftSql:
        if self._connection is None:
            self._connection = ThriftSql(self.cluster.connect(self.schema))
        return self._connection

    def query(self, sql: str) -> list[tuple]:
        """On a fresh Thrift session: a session that read a table before a build rewrote it keeps
        its old file listing and fails (FAILED_READ_FILE.FILE_NOT_EXIST, seen in the lane)."""
        self.close()
        try:
            return self.sql().fetchall(sql)
        finally:
            self.close()

    def columns(self, name: str) -> list[str]:
        return [
            name_ for (name_, *_rest) in self.query(f"describe table {name}") if name_ and not name_.startswith("#")
        ]

    def table(self, name: str, exclude: Sequence[str] = ()) -> list[tuple]:
        columns = [c for c in dict.fromkeys(self.columns(name)) if c not in exclude]
        return sorted(self.query(f"select {', '.join(columns)} from {name}"), key=repr)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


class SparkPipeline(Pipeline):
    shares_parse = False  # absolute landing and warehouse paths, as the server or the JVM needs
    records_empty_deliveries = False

    def __init__(self, root: Path, spark_dir: Path) -> None:
        super().__init__(root)
        self.spark_dir = spark_dir
        self.schema = "t_" + uuid.uuid4().hex[:12]

    def dbt(self, command: str, *args: str, vars: dict[str, Any] | None = None) -> BuildResult:
        return super().dbt(command, *args, "--target", "spark", vars=vars)

    def dbt_env(self) -> dict[str, str]:
        return {
            **super().dbt_env(),
            "RERUN_SAFE_SPARK_DIR": str(self.spark_dir),
            "RERUN_SAFE_SPARK_SCHEMA": self.schema,
        }

    def query(self, sql: str) -> list[tuple]:
        from pyspark.sql import SparkSession

        session = SparkSession.builder.getOrCreate()  # the one dbt-spark started
        session.catalog.setCurrentDatabase(self.schema)
        return [tuple(row) for row in session.sql(sql).collect()]

    def columns(self, name: str) -> list[str]:
        return [
            name_ for (name_, *_rest) in self.query(f"describe table {name}") if name_ and not name_.startswith("#")
        ]

    def table(self, name: str, exclude: Sequence[str] = ()) -> list[tuple]:
        columns = [c for c in dict.fromkeys(self.columns(name)) if c not in exclude]
        return sorted(self.query(f"select {', '.join(columns)} from {name}"), key=repr)


# What a Spark scenario (tests/spark/scenarios) runs on: the lane's pipeline.
LanePipeline = ClusterPipeline | SparkPipeline
