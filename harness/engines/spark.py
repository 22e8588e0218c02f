"""Spark: its SQL dialect, and each lane a scratch database (schema) of the session's metastore.

The harness drives dbt-spark's `method: session` target: Spark runs inside this process, and
the harness's SQL runs on the same session (dbt-spark's; one per process). Snapshots and
checkpoints are parquet copies; a table keeps its partition columns when it is restored, so an
`insert_overwrite` after a restore still replaces partitions, not the whole table. The
embedded Derby metastore admits one process, so the checks that need a second dbt process
(crash, concurrency) do not apply on Spark (harness.checks say so).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.engines.base import LoadPlan, Sql
from harness.engines.schema_store import SchemaStore


def backtick(identifier: str) -> str:
    return "`" + identifier.replace("`", "``") + "`"


class SparkSql(Sql):
    """The Spark session dbt-spark runs in this process (`method: session`). Statements are
    eager (DDL) or collected; a temporary table is a cached temporary view."""

    dialect = "spark"
    quote = staticmethod(backtick)

    def __init__(self, raw: Any) -> None:
        from py4j.protocol import Py4JError
        from pyspark.errors import PySparkException

        self.raw = raw
        self.errors = (PySparkException, Py4JError)

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> None:
        self.raw.sql(sql, args=list(params) if params is not None else None).collect()

    def fetchall(self, sql: str, params: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in self.raw.sql(sql, args=list(params) if params is not None else None).collect()]

    def query(self, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        frame = self.raw.sql(sql)
        return list(frame.columns), [tuple(row) for row in frame.collect()]

    def columns(self, relation_sql: str) -> tuple[tuple[str, str], ...]:
        schema = self.raw.sql(f"select * from {relation_sql} as __described limit 0").schema
        return tuple((field.name, field.dataType.simpleString()) for field in schema.fields)

    def row_hash_sum(self, columns: Sequence[str], salted: bool) -> str:
        # Spark's hashes skip NULL arguments: each column's null flag goes in too, so a NULL
        # in another column is another row hash.
        cols = ", ".join(f"isnull({backtick(name)}), {backtick(name)}" for name in columns)
        salt = "'rerun_safe', " if salted else ""
        return f"coalesce(sum(cast(xxhash64({salt}{cols}) as decimal(38, 0))), 0)"

    def create_temp(self, name: str, select: str) -> None:
        self.raw.sql(f"cache table {name} as {select}")

    def drop_temp(self, name: str) -> None:
        self.raw.sql(f"uncache table if exists {name}")
        self.raw.sql(f"drop view if exists {name}")

    def struct(self, expressions: str) -> str:
        return f"struct({expressions})"

    def close(self) -> None:
        """The session belongs to dbt-spark (and lives as long as the process)."""


ONE_PROCESS = (
    "Spark's session target runs in the harness's process, with an embedded metastore that "
    "admits one process: a second dbt process (to kill it, or to run two at once) cannot open it"
)


class SparkStore(SchemaStore):
    adapter = "spark"

    def __init__(self, settings: dict[str, Any], token: str, logical_schema: str) -> None:
        super().__init__(token, logical_schema)
        self.settings = settings
        self._sql: SparkSql | None = None

    @property
    def sql(self) -> SparkSql:
        if self._sql is None:
            from pyspark.sql import SparkSession

            session = SparkSession.getActiveSession()
            if session is None:  # no dbt run yet: the same configuration dbt-spark would use
                builder = SparkSession.builder.enableHiveSupport()
                for key, value in (self.settings.get("server_side_parameters") or {}).items():
                    builder = builder.config(str(key), str(value))
                session = builder.getOrCreate()
            self._sql = SparkSql(session)
        return self._sql

    def connected(self) -> bool:
        if self._sql is not None:
            return True
        try:
            from pyspark.sql import SparkSession
        except ImportError:
            return False
        return SparkSession.getActiveSession() is not None

    def all_schemas(self) -> list[str]:
        return [str(row[0]) for row in self.sql.fetchall("show databases") if str(row[0]).startswith(self.prefix)]

    def relations(self, schemas: Sequence[str]) -> list[tuple[str, str, str]]:
        found = []
        for schema in schemas:
            for table in self.sql.raw.catalog.listTables(schema):
                if table.isTemporary:
                    continue
                found.append((schema, table.name, "view" if table.tableType == "VIEW" else "table"))
        return sorted(found)

    def table_recipe(self, schema: str, name: str) -> tuple[str, ...]:
        """The table's partition columns."""
        columns = self.sql.raw.catalog.listColumns(name, schema)
        return tuple(column.name for column in columns if column.isPartition)

    def copy_table(self, source: str, dest: str, name: str, recipe: Any = None) -> None:
        q = backtick
        partitioned = f" partitioned by ({', '.join(q(c) for c in recipe)})" if recipe else ""
        self.sql.execute(
            f"create table {q(dest)}.{q(name)} using parquet{partitioned} as select * from {q(source)}.{q(name)}"
        )

    def view_definitions(self, schemas: Sequence[str]) -> list[tuple[str, str, str]]:
        views = []
        for schema, name, kind in self.relations(schemas):
            if kind == "view":
                text = self.sql.raw.sql(f"describe table extended {backtick(schema)}.{backtick(name)}").collect()
                original = next((str(r[1]) for r in text if str(r[0]) == "View Text"), "")
                views.append((schema, name, original))
        return views

    def create_schema(self, schema: str) -> None:
        self.sql.execute(f"create database if not exists {backtick(schema)}")

    def drop_schema(self, schema: str) -> None:
        self.sql.execute(f"drop database if exists {backtick(schema)} cascade")

    def load_sources(self, place: str, plan: LoadPlan) -> int:
        raise NotImplementedError(
            "--load-sources on Spark is not built: deliver files into a landing folder the "
            "project reads (the default mode)"
        )
