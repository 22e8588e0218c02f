"""One SQL connection to a warehouse, and the few expressions that differ between engines.

The diffs (harness.diff) and the key check (harness.keys) run inside the warehouse: on DuckDB
in an in-process connection to snapshot files, on PostgreSQL through the connection dbt's
postgres adapter opens with the target's own credentials. Their SQL is written once; what
differs per engine lives here: a 64-bit row hash summed without overflow, and how a query's
columns are described.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


class Sql:
    """A connection that runs statements and fetches rows; `errors` are the engine's own
    exception classes (a statement that fails leaves the connection usable)."""

    dialect = "duckdb"
    quote = staticmethod(quote)

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        import duckdb

        self.errors: tuple[type[BaseException], ...] = (duckdb.Error,)

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> None:
        self.raw.execute(sql, params) if params is not None else self.raw.execute(sql)

    def fetchall(self, sql: str, params: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
        cursor = self.raw.execute(sql, params) if params is not None else self.raw.execute(sql)
        return [tuple(row) for row in cursor.fetchall()]

    def fetchone(self, sql: str, params: Sequence[Any] | None = None) -> tuple[Any, ...] | None:
        rows = self.fetchall(sql, params)
        return rows[0] if rows else None

    def query(self, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Column names and rows of a query."""
        cursor = self.raw.execute(sql)
        names = [column[0] for column in cursor.description]
        return names, [tuple(row) for row in cursor.fetchall()]

    def columns(self, relation_sql: str) -> tuple[tuple[str, str], ...]:
        """(name, type) of every column of `relation_sql` (anything that can follow `from`)."""
        described = self.raw.execute(f"describe select * from {relation_sql}").fetchall()
        return tuple((str(row[0]), str(row[1])) for row in described)

    def row_hash_sum(self, columns: Sequence[str], salted: bool) -> str:
        """An aggregate: the sum of a 64-bit hash of each row's `columns`, exact (no overflow).
        `salted` gives an independent second hash."""
        cols = ", ".join(quote(name) for name in columns)
        salt = ", 'rerun_safe'" if salted else ""
        return f"coalesce(sum(cast(hash({cols}{salt}) as hugeint)), 0)"

    def create_temp(self, name: str, select: str) -> None:
        """A temporary table of this connection holding `select`'s rows."""
        self.execute(f"create temp table {name} as {select}")

    def drop_temp(self, name: str) -> None:
        self.execute(f"drop table if exists {name}")

    def struct(self, expressions: str) -> str:
        """One value made of several (for count(distinct ...) of a composite key)."""
        return f"row({expressions})"

    def close(self) -> None:
        self.raw.close()


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


def as_sql(con: Any) -> Sql:
    """A Sql as is; a raw DuckDB connection wrapped."""
    return con if isinstance(con, Sql) else Sql(con)


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
