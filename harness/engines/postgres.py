"""PostgreSQL: its SQL dialect, and lanes as scratch schemas (harness.engines.schema_store).

The connection is the one dbt's postgres adapter opens from the target's own credentials
(host, port, user, password, sslmode, ...), in autocommit. Statements are built from quoted
identifiers only; values go as parameters. A checkpoint copies tables with `create table as`
(column types kept; indexes, constraints and grants are not).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from harness.engines.base import LoadPlan, Sql, quote
from harness.engines.schema_store import SchemaStore
from harness.errors import EngineError


class PostgresSql(Sql):
    """psycopg2 in autocommit: each statement commits on its own, a failed one is undone."""

    dialect = "postgres"

    def __init__(self, raw: Any) -> None:
        import psycopg2

        self.raw = raw
        self.raw.autocommit = True
        self.errors = (psycopg2.Error,)

    def _cursor(self, sql: str, params: Sequence[Any] | None) -> Any:
        cursor = self.raw.cursor()
        cursor.execute(sql, params)
        return cursor

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> None:
        self._cursor(sql, params).close()

    def fetchall(self, sql: str, params: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
        cursor = self._cursor(sql, params)
        try:
            return [tuple(row) for row in cursor.fetchall()]
        finally:
            cursor.close()

    def query(self, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        cursor = self._cursor(sql, None)
        try:
            return [column[0] for column in cursor.description], [tuple(r) for r in cursor.fetchall()]
        finally:
            cursor.close()

    def columns(self, relation_sql: str) -> tuple[tuple[str, str], ...]:
        cursor = self._cursor(f"select * from {relation_sql} as __described limit 0", None)
        try:
            described = [(str(column[0]), int(column[1])) for column in cursor.description]
        finally:
            cursor.close()
        oids = sorted({oid for _, oid in described})
        names = dict(self.fetchall("select oid, format_type(oid, null) from pg_type where oid = any(%s)", [oids]))
        return tuple((name, str(names.get(oid, oid))) for name, oid in described)

    def row_hash_sum(self, columns: Sequence[str], salted: bool) -> str:
        # The row's text form tells NULL from '' ("()" vs "(\"\")"); hashtextextended is 64-bit
        # (PostgreSQL 11+), summed as numeric.
        cols = ", ".join(quote(name) for name in columns)
        seed = 7 if salted else 0
        return f"coalesce(sum(hashtextextended(cast(row({cols}) as text), {seed})::numeric), 0)"


# DuckDB types of a delivery file's columns -> the PostgreSQL types of the source table the
# harness creates for them (the others become text).
PG_TYPES = {
    "BOOLEAN": "boolean",
    "TINYINT": "smallint",
    "SMALLINT": "smallint",
    "INTEGER": "integer",
    "BIGINT": "bigint",
    "HUGEINT": "numeric",
    "FLOAT": "real",
    "DOUBLE": "double precision",
    "DATE": "date",
    "TIME": "time",
    "TIMESTAMP": "timestamp",
    "TIMESTAMP WITH TIME ZONE": "timestamptz",
    "VARCHAR": "text",
    "UUID": "uuid",
}


class PostgresStore(SchemaStore):
    adapter = "postgres"

    def serial_env(self) -> tuple[dict[str, str], str]:
        """No parallel workers (libpq's PGOPTIONS, added to the user's): a plan without Gather."""
        options = (os.environ.get("PGOPTIONS", "") + " -c max_parallel_workers_per_gather=0").strip()
        return {"PGOPTIONS": options}, "max_parallel_workers_per_gather = 0"

    def __init__(self, settings: dict[str, Any], token: str, logical_schema: str) -> None:
        super().__init__(token, logical_schema)
        self.settings = settings
        self._sql: PostgresSql | None = None

    @property
    def sql(self) -> PostgresSql:
        if self._sql is None:
            self._sql = PostgresSql(open_connection(self.settings))
        return self._sql

    def connected(self) -> bool:
        return self._sql is not None

    def all_schemas(self) -> list[str]:
        return [
            str(row[0])
            for row in self.sql.fetchall(
                "select nspname from pg_namespace where left(nspname, %s) = %s", [len(self.prefix), self.prefix]
            )
        ]

    def relations(self, schemas: Sequence[str]) -> list[tuple[str, str, str]]:
        rows = self.sql.fetchall(
            "select table_schema, table_name, table_type from information_schema.tables "
            "where table_schema = any(%s) order by table_schema, table_name",
            [list(schemas)],
        )
        return [(str(s), str(n), "view" if t == "VIEW" else "table") for s, n, t in rows]

    def view_definitions(self, schemas: Sequence[str]) -> list[tuple[str, str, str]]:
        # pg_get_viewdef qualifies every relation outside the search path: the lane's own
        # schema names stay in the text, and `restore` puts the views back into the same lane
        rows = self.sql.fetchall(
            "select schemaname, viewname, definition from pg_views where schemaname = any(%s) "
            "order by schemaname, viewname",
            [list(schemas)],
        )
        return [(str(s), str(n), str(d)) for s, n, d in rows]

    # -- deliveries into source tables ----------------------------------------------------
    def load_sources(self, place: str, plan: LoadPlan) -> int:
        """Append every file's rows to its source table in the lane (the table created from
        its first file's columns, as on DuckDB), by column name."""
        import duckdb

        reader = duckdb.connect()
        appended = 0
        try:
            for table in (*plan.creates, *plan.appends):
                relation = reader.sql(f"select * from {table.reader}")
                schema = self.physical(place, table.schema)
                columns = ", ".join(
                    f"{quote(name)} {PG_TYPES.get(str(type_).upper(), _decimal(str(type_)))}"
                    for name, type_ in zip(relation.columns, relation.types, strict=True)
                )
                self.sql.execute(f"create schema if not exists {quote(schema)}")
                self.sql.execute(f"create table if not exists {quote(schema)}.{quote(table.identifier)} ({columns})")
            for table in plan.appends:
                relation = reader.sql(f"select * from {table.reader}")
                rows = relation.fetchall()
                if not rows:
                    continue
                from psycopg2.extras import execute_values

                schema = self.physical(place, table.schema)
                cursor = self.sql.raw.cursor()
                try:
                    execute_values(
                        cursor,
                        f"insert into {quote(schema)}.{quote(table.identifier)} "
                        f"({', '.join(quote(c) for c in relation.columns)}) values %s",
                        rows,
                    )
                finally:
                    cursor.close()
                appended += len(rows)
        finally:
            reader.close()
        return appended

    def close(self, keep: bool = False) -> None:
        try:
            super().close(keep)
        finally:
            if self._sql is not None:
                self._sql.close()
                self._sql = None


def _decimal(type_: str) -> str:
    return "numeric" + type_[len("DECIMAL") :] if type_.upper().startswith("DECIMAL") else "text"


def open_connection(settings: dict[str, Any]) -> Any:
    """A psycopg2 connection opened by dbt's postgres adapter from the rendered target."""
    from dbt.adapters.contracts.connection import Connection
    from dbt.adapters.postgres.connections import PostgresConnectionManager, PostgresCredentials

    values = {k: v for k, v in settings.items() if k not in ("type", "threads")}
    values["schema"] = "rerun_safe_harness"  # the credentials need one; the harness never uses it
    credentials = PostgresCredentials.from_dict(PostgresCredentials.translate_aliases(values))
    connection = Connection(type="postgres", name="rerun_safe_harness", credentials=credentials)  # type: ignore[arg-type]
    PostgresConnectionManager.open(connection)  # type: ignore[no-untyped-call]  # dbt-postgres leaves open() unannotated
    if connection.handle is None or getattr(connection.state, "value", connection.state) != "open":
        raise EngineError(f"could not connect to {settings.get('host')}:{settings.get('port')}")
    return connection.handle
