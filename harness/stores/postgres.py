"""PostgreSQL: each lane is a scratch schema of its own; snapshots and checkpoints are copies.

Every schema the harness creates starts with the run's prefix `rs_<8 hex>_`: lanes `..._l01`,
snapshots `..._s001`, checkpoints `..._c01`, and the `<schema>_<custom>` schemas dbt derives from
each (a model with `schema: marts` builds into `rs_<run>_l01_marts`). They are dropped when the
run ends (`close`), unless the work folder is kept. Nothing else is written: the preflight
(harness.target) refused every node and source that would land outside the lane's schemas.

The connection is the one dbt's postgres adapter opens from the target's own credentials
(host, port, user, password, sslmode, ...), in autocommit. Statements are built from quoted
identifiers only; values go as parameters.

A checkpoint keeps tables (copied with `create table as`, so column types are kept; indexes,
constraints and grants are not) and the text of views; `restore` drops the lane's schemas and
copies them back, then recreates the views in an order that satisfies their dependencies.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.sql import PostgresSql, Sql, quote
from harness.stores import NameOf, Store
from harness.target import SCHEMA_ENV
from harness.warehouse import Relation, Snapshot

if TYPE_CHECKING:
    from harness.sources import SourceLoader

# DuckDB types of a delivery file's columns -> the PostgreSQL types of the source table the
# harness creates for them (the others become text).
PG_TYPES = {
    "BOOLEAN": "boolean", "TINYINT": "smallint", "SMALLINT": "smallint", "INTEGER": "integer",
    "BIGINT": "bigint", "HUGEINT": "numeric", "FLOAT": "real", "DOUBLE": "double precision",
    "DATE": "date", "TIME": "time", "TIMESTAMP": "timestamp", "TIMESTAMP WITH TIME ZONE": "timestamptz",
    "VARCHAR": "text", "UUID": "uuid",
}


@dataclass(frozen=True)
class Checkpoint:
    schema: str  # the checkpoint's base schema: <prefix>_cNN
    suffixes: tuple[str, ...]  # the lane's schemas, as suffixes of its place ("" is the place)
    views: tuple[tuple[str, str, str], ...]  # (suffix, name, definition)


class PostgresStore(Store):
    adapter = "postgres"

    def __init__(self, settings: dict[str, Any], token: str, logical_schema: str) -> None:
        self.settings = settings
        self.prefix = f"rs_{token}"
        self.logical = logical_schema
        self.counts = {"l": 0, "s": 0, "c": 0}
        self._sql: PostgresSql | None = None

    # -- the connection -------------------------------------------------------------------
    @property
    def sql(self) -> PostgresSql:
        if self._sql is None:
            self._sql = PostgresSql(open_connection(self.settings))
        return self._sql

    def _name(self, kind: str, width: int) -> str:
        self.counts[kind] += 1
        return f"{self.prefix}_{kind}{self.counts[kind]:0{width}d}"

    def place(self, lane_root: Path) -> str:
        del lane_root
        return self._name("l", 2)

    def env(self, place: str) -> dict[str, str]:
        return {SCHEMA_ENV: place}

    def schema_map(self, place: str) -> tuple[str, str]:
        return (place, self.logical)

    def physical(self, place: str, logical_schema: str) -> str:
        """The lane's schema for a logical one (`analytics_marts` -> `rs_<run>_l01_marts`)."""
        if logical_schema.lower() == self.logical.lower():
            return place
        if logical_schema.lower().startswith(self.logical.lower() + "_"):
            return place + logical_schema[len(self.logical):]
        raise ValueError(f"schema {logical_schema!r} is not derived from the target schema {self.logical!r}")

    def schemas(self, base: str) -> list[str]:
        """`base` and every `base_<suffix>` schema that exists."""
        rows = self.sql.fetchall(
            "select nspname from pg_namespace where nspname = %s or left(nspname, %s) = %s order by nspname",
            [base, len(base) + 1, base + "_"],
        )
        return [str(row[0]) for row in rows]

    def _relations(self, schemas: Sequence[str]) -> list[tuple[str, str, str]]:
        rows = self.sql.fetchall(
            "select table_schema, table_name, table_type from information_schema.tables "
            "where table_schema = any(%s) order by table_schema, table_name",
            [list(schemas)],
        )
        return [(str(s), str(n), "view" if t == "VIEW" else "table") for s, n, t in rows]

    def exists(self, place: str) -> bool:
        return bool(self.schemas(place))

    # -- snapshots ------------------------------------------------------------------------
    def snapshot(self, place: str, folder: Path, label: str, freeze: Collection[tuple[str, str]] | None) -> Snapshot:
        """Every relation of the lane copied into snapshot schemas (views frozen: `freeze` does
        not matter here, a view left as a view would still read the lane)."""
        del folder, freeze
        base = self._name("s", 3)
        relations: list[Relation] = []
        errors: list[tuple[str, str]] = []
        mapping: dict[str, str] = {}
        for schema, name, kind in self._relations(self.schemas(place)):
            suffix = schema[len(place):]
            copy_schema, logical = base + suffix, self.logical + suffix
            if logical.lower() not in mapping:
                self.sql.execute(f"create schema if not exists {quote(copy_schema)}")
                mapping[logical.lower()] = copy_schema
            relation = Relation(schema=logical, name=name, kind=kind)
            relations.append(relation)
            try:
                self.sql.execute(
                    f"create table {quote(copy_schema)}.{quote(name)} as "
                    f"select * from {quote(schema)}.{quote(name)}"
                )
            except self.sql.errors as exc:
                errors.append((relation.display_name, str(exc).splitlines()[0]))
        return Snapshot(
            label=label, path=None, relations=tuple(relations), view_errors=tuple(errors),
            schemas=tuple(sorted(mapping.items())), location=base, store=self,
        )

    def discard(self, snapshot: Snapshot) -> None:
        for schema in self.schemas(snapshot.location):
            self.sql.execute(f"drop schema if exists {quote(schema)} cascade")

    # -- checkpoints ----------------------------------------------------------------------
    def save_checkpoint(self, place: str, folder: Path) -> Checkpoint:
        del folder
        base = self._name("c", 2)
        schemas = self.schemas(place)
        suffixes = tuple(schema[len(place):] for schema in schemas)
        for suffix in suffixes:
            self.sql.execute(f"create schema {quote(base + suffix)}")
        for schema, name, kind in self._relations(schemas):
            if kind == "table":
                self.sql.execute(
                    f"create table {quote(base + schema[len(place):])}.{quote(name)} as "
                    f"select * from {quote(schema)}.{quote(name)}"
                )
        views = self.sql.fetchall(
            "select schemaname, viewname, definition from pg_views where schemaname = any(%s) "
            "order by schemaname, viewname",
            [schemas],
        )
        return Checkpoint(base, suffixes, tuple((str(s)[len(place):], str(n), str(d)) for s, n, d in views))

    def restore(self, place: str, checkpoint: Checkpoint | None) -> None:
        for schema in self.schemas(place):
            self.sql.execute(f"drop schema if exists {quote(schema)} cascade")
        if checkpoint is None:
            return
        for suffix in checkpoint.suffixes:
            self.sql.execute(f"create schema {quote(place + suffix)}")
            for _, name, _ in self._relations([checkpoint.schema + suffix]):
                self.sql.execute(
                    f"create table {quote(place + suffix)}.{quote(name)} as "
                    f"select * from {quote(checkpoint.schema + suffix)}.{quote(name)}"
                )
        pending = list(checkpoint.views)
        while pending:  # a view may read another one: retry until a round creates none
            failed = []
            for suffix, name, definition in pending:
                try:
                    self.sql.execute(f"create view {quote(place + suffix)}.{quote(name)} as {definition}")
                except self.sql.errors:
                    failed.append((suffix, name, definition))
            if len(failed) == len(pending):
                shown = ", ".join(place + s + "." + n for s, n, _ in failed)
                raise RuntimeError(f"checkpoint {checkpoint.schema}: views could not be restored: {shown}")
            pending = failed

    # -- reading and comparing -----------------------------------------------------------
    @contextlib.contextmanager
    def reading(self, place: str) -> Iterator[tuple[Sql, Callable[[str, str], str]]]:
        yield self.sql, lambda schema, name: f"{quote(self.physical(place, schema))}.{quote(name)}"

    @contextlib.contextmanager
    def comparing(self, left: Snapshot, right: Snapshot) -> Iterator[tuple[Sql, NameOf]]:
        def name_of(snapshot: Snapshot, relation: Relation) -> str:
            return f"{quote(dict(snapshot.schemas)[relation.schema.lower()])}.{quote(relation.name)}"

        yield self.sql, name_of

    # -- deliveries into source tables ----------------------------------------------------
    def load_sources(self, place: str, loader: SourceLoader, files: Sequence[Path]) -> int:
        """Append every file's rows to its source table in the lane (the table created from
        its first file's columns, as on DuckDB), by column name."""
        import duckdb

        plan, templates = loader.plan(files)
        reader = duckdb.connect()
        appended = 0
        try:
            for path, table in [*templates, *plan]:
                relation = reader.sql(f"select * from {loader.reader(path)}")
                schema = self.physical(place, table.schema)
                columns = ", ".join(
                    f"{quote(name)} {PG_TYPES.get(str(type_).upper(), _decimal(str(type_)))}"
                    for name, type_ in zip(relation.columns, relation.types)
                )
                self.sql.execute(f"create schema if not exists {quote(schema)}")
                self.sql.execute(f"create table if not exists {quote(schema)}.{quote(table.identifier)} ({columns})")
            for path, table in plan:
                relation = reader.sql(f"select * from {loader.reader(path)}")
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
        if self._sql is None:
            return
        try:
            if not keep:
                for schema in self.schemas(self.prefix):
                    self.sql.execute(f"drop schema if exists {quote(schema)} cascade")
        finally:
            self._sql.close()
            self._sql = None


def _decimal(type_: str) -> str:
    return "numeric" + type_[len("DECIMAL"):] if type_.upper().startswith("DECIMAL") else "text"


def open_connection(settings: dict[str, Any]) -> Any:
    """A psycopg2 connection opened by dbt's postgres adapter from the rendered target."""
    from dbt.adapters.contracts.connection import Connection
    from dbt.adapters.postgres.connections import PostgresConnectionManager, PostgresCredentials

    values = {k: v for k, v in settings.items() if k not in ("type", "threads")}
    values["schema"] = "rerun_safe_harness"  # the credentials need one; the harness never uses it
    credentials = PostgresCredentials.from_dict(PostgresCredentials.translate_aliases(values))
    connection = Connection(type="postgres", name="rerun_safe_harness", credentials=credentials)  # type: ignore[arg-type]
    PostgresConnectionManager.open(connection)
    if connection.handle is None or getattr(connection.state, "value", connection.state) != "open":
        raise RuntimeError(f"could not connect to {settings.get('host')}:{settings.get('port')}")
    return connection.handle
