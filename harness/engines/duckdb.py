"""DuckDB: its SQL dialect, snapshots of a warehouse file, and lanes as scratch files.

A lane's warehouse is a scratch file of its own; snapshots and checkpoints are copies of it.
A snapshot is a copy of the warehouse file taken after dbt finished, so it can be opened in
this process without clashing with dbt's own connection (same file, other configuration).
The copy keeps the file name, so the catalog name that views refer to stays the same; views
are then replaced by tables holding their rows, so a snapshot is self-contained and later
changes to the landing folder cannot change it.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb

from harness.engines.base import LoadPlan, NameOf, Relation, Snapshot, Sql, Store, quote
from harness.errors import MissingInput
from harness.target import THREADS_ENV, WAREHOUSE_ENV

SYSTEM_SCHEMAS = ("information_schema", "pg_catalog")
FROZEN_PREFIX = "__rerun_safe_frozen_"


class DuckDBSql(Sql):
    """A DuckDB connection (a snapshot's, or any the caller opened)."""

    dialect = "duckdb"

    def __init__(self, raw: Any) -> None:
        super().__init__(raw)
        self.errors = (duckdb.Error,)

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> None:
        self.raw.execute(sql, params) if params is not None else self.raw.execute(sql)

    def fetchall(self, sql: str, params: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
        cursor = self.raw.execute(sql, params) if params is not None else self.raw.execute(sql)
        return [tuple(row) for row in cursor.fetchall()]

    def query(self, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        cursor = self.raw.execute(sql)
        names = [column[0] for column in cursor.description]
        return names, [tuple(row) for row in cursor.fetchall()]

    def columns(self, relation_sql: str) -> tuple[tuple[str, str], ...]:
        described = self.raw.execute(f"describe select * from {relation_sql}").fetchall()
        return tuple((str(row[0]), str(row[1])) for row in described)

    def row_hash_sum(self, columns: Sequence[str], salted: bool) -> str:
        cols = ", ".join(quote(name) for name in columns)
        salt = ", 'rerun_safe'" if salted else ""
        return f"coalesce(sum(cast(hash({cols}{salt}) as hugeint)), 0)"


def as_sql(con: Any) -> Sql:
    """A Sql as is; a raw DuckDB connection wrapped."""
    return con if isinstance(con, Sql) else DuckDBSql(con)


def list_relations(con: duckdb.DuckDBPyConnection, catalog: str) -> list[Relation]:
    rows = con.execute(
        """
        select table_schema, table_name, table_type
        from information_schema.tables
        where table_catalog = ? and table_schema not in (select unnest(?))
        order by table_schema, table_name
        """,
        [catalog, list(SYSTEM_SCHEMAS)],
    ).fetchall()
    return [Relation(schema=row[0], name=row[1], kind="view" if row[2] == "VIEW" else "table") for row in rows]


def take_snapshot(
    warehouse: Path,
    dest_dir: Path,
    label: str,
    freeze_views: Collection[tuple[str, str]] | None = None,
) -> Snapshot:
    """Copy the warehouse (and its WAL) into dest_dir and freeze its views into tables: the
    views whose (schema, name) is in freeze_views (the project's models), or all when None."""
    if not warehouse.exists():
        raise MissingInput(
            f"warehouse {warehouse} does not exist after dbt ran: the build stopped before it "
            "wrote anything (see the build's error above)"
        )
    dest_dir.mkdir(parents=True, exist_ok=True)
    copy = dest_dir / warehouse.name
    shutil.copy2(warehouse, copy)
    wal = warehouse.with_name(warehouse.name + ".wal")
    if wal.exists():
        shutil.copy2(wal, copy.with_name(copy.name + ".wal"))
    errors: list[tuple[str, str]] = []
    con = duckdb.connect(str(copy))
    try:
        catalog = str(con.execute("select current_database()").fetchone()[0])  # type: ignore[index]
        relations = list_relations(con, catalog)
        views = [
            relation
            for relation in relations
            if relation.kind == "view" and (freeze_views is None or relation.key in freeze_views)
        ]
        frozen: list[Relation] = []
        # Views may read each other: read every view first, swap names afterwards.
        for view in views:
            try:
                con.execute(
                    f"create table {quote(view.schema)}.{quote(FROZEN_PREFIX + view.name)} as "
                    f"select * from {quote(view.schema)}.{quote(view.name)}"
                )
                frozen.append(view)
            except duckdb.Error as exc:  # reported by the comparison, if the view is judged
                errors.append((view.display_name, str(exc).splitlines()[0]))
        for view in frozen:
            con.execute(f"drop view {quote(view.schema)}.{quote(view.name)}")
            con.execute(
                f"alter table {quote(view.schema)}.{quote(FROZEN_PREFIX + view.name)} rename to {quote(view.name)}"
            )
        con.execute("checkpoint")
    finally:
        con.close()
    return Snapshot(label=label, path=copy, relations=tuple(relations), view_errors=tuple(errors))


def wal_of(warehouse: Path) -> Path:
    return warehouse.with_name(warehouse.name + ".wal")


class DuckDBStore(Store):
    adapter = "duckdb"

    def place(self, lane_root: Path) -> str:
        return str(lane_root / "warehouse" / "warehouse.duckdb")

    def env(self, place: str) -> dict[str, str]:
        Path(place).parent.mkdir(parents=True, exist_ok=True)
        return {WAREHOUSE_ENV: place}

    def serial_env(self) -> tuple[dict[str, str], str]:
        """One thread (the scratch profile's `settings.threads`): files and rows are scanned in
        order, so a tie goes the same way whenever the input is the same."""
        return {THREADS_ENV: "1"}, "threads = 1"

    def exists(self, place: str) -> bool:
        return Path(place).exists()

    def snapshot(self, place: str, folder: Path, label: str, freeze: Collection[tuple[str, str]] | None) -> Snapshot:
        return take_snapshot(Path(place), folder, label, freeze)

    def unroot(self, snapshot: Snapshot, roots: Sequence[str], placeholder: str) -> int:
        if snapshot.path is None or not roots:
            return 0
        changed = 0
        con = duckdb.connect(str(snapshot.path))
        try:
            for relation in snapshot.relations:
                name = f"{quote(relation.schema)}.{quote(relation.name)}"
                kind = con.execute(
                    "select table_type from information_schema.tables where table_schema = ? and table_name = ?",
                    [relation.schema, relation.name],
                ).fetchone()
                if kind is None or kind[0] != "BASE TABLE":
                    continue
                text = [
                    str(row[0])
                    for row in con.execute(
                        "select column_name from information_schema.columns where table_schema = ? "
                        "and table_name = ? and data_type = 'VARCHAR'",
                        [relation.schema, relation.name],
                    ).fetchall()
                ]
                if not text:
                    continue
                # one scan per table: every text column, every root
                params: list[str] = []
                sets = []
                for column in text:
                    value = quote(column)
                    for root in roots:
                        value = f"replace({value}, ?, ?)"
                        params += [root, placeholder]
                    sets.append(f"{quote(column)} = {value}")
                where = " or ".join(f"contains({quote(column)}, ?)" for column in text for _ in roots)
                params += [root for _ in text for root in roots]
                row = con.execute(f"update {name} set {', '.join(sets)} where {where}", params).fetchone()
                changed += int(row[0]) if row else 0
            con.execute("checkpoint")
        finally:
            con.close()
        return changed

    def discard(self, snapshot: Snapshot) -> None:
        if snapshot.path is not None:
            shutil.rmtree(snapshot.path.parent, ignore_errors=True)

    def save_checkpoint(self, place: str, folder: Path) -> Path:
        warehouse = Path(place)
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        for path in (warehouse, wal_of(warehouse)):
            if path.exists():
                shutil.copy2(path, folder / path.name)
        return folder

    def restore(self, place: str, checkpoint: Path | None) -> None:
        warehouse = Path(place)
        warehouse.parent.mkdir(parents=True, exist_ok=True)
        for path in (warehouse, wal_of(warehouse)):
            path.unlink(missing_ok=True)
        if checkpoint is not None:
            for saved in checkpoint.iterdir():
                shutil.copy2(saved, warehouse.parent / saved.name)

    @contextlib.contextmanager
    def reading(self, place: str) -> Iterator[tuple[Sql, Callable[[str, str], str]]]:
        con = duckdb.connect(place, read_only=True)
        try:
            yield DuckDBSql(con), lambda schema, name: f"{quote(schema)}.{quote(name)}"
        finally:
            con.close()

    @contextlib.contextmanager
    def comparing(self, left: Snapshot, right: Snapshot) -> Iterator[tuple[Sql, NameOf]]:
        con = duckdb.connect()
        aliases = {id(left): "l", id(right): "r"}
        try:
            con.execute(f"attach '{_literal(left.path)}' as l (read_only)")
            con.execute(f"attach '{_literal(right.path)}' as r (read_only)")

            def name_of(snapshot: Snapshot, relation: Relation) -> str:
                return f"{aliases[id(snapshot)]}.{quote(relation.schema)}.{quote(relation.name)}"

            yield DuckDBSql(con), name_of
        finally:
            con.close()

    def load_sources(self, place: str, plan: LoadPlan) -> int:
        return load_into(Path(place), plan)


def load_into(warehouse: Path, plan: LoadPlan) -> int:
    """Append the plan's files to their source tables in a DuckDB file; returns the rows appended."""
    warehouse.parent.mkdir(parents=True, exist_ok=True)
    appended = 0
    con = duckdb.connect(str(warehouse))
    try:
        for load in (*plan.creates, *plan.appends):
            con.execute(f"create schema if not exists {quote(load.schema)}")
            con.execute(f"create table if not exists {load.relation} as select * from {load.reader} limit 0")
        for load in plan.appends:
            before = _count(con, load.relation)
            con.execute(f"insert into {load.relation} by name select * from {load.reader}")
            appended += _count(con, load.relation) - before
        con.execute("checkpoint")
    finally:
        con.close()
    return appended


def _count(con: duckdb.DuckDBPyConnection, relation: str) -> int:
    row = con.execute(f"select count(*) from {relation}").fetchone()
    return int(row[0]) if row else 0


def _literal(path: Path | None) -> str:
    return str(path).replace("'", "''")
