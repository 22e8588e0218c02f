"""Snapshots of a DuckDB warehouse file and what they contain (a server's: harness.engines).

A snapshot is a copy of the warehouse file taken after dbt finished, so it can be opened in
this process without clashing with dbt's own connection (same file, other configuration).
The copy keeps the file name, so the catalog name that views refer to stays the same; views
are then replaced by tables holding their rows, so a snapshot is self-contained and later
changes to the landing folder cannot change it.
"""

from __future__ import annotations

import shutil
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from harness.sql import quote

SYSTEM_SCHEMAS = ("information_schema", "pg_catalog")
FROZEN_PREFIX = "__rerun_safe_frozen_"


@dataclass(frozen=True)
class Relation:
    schema: str
    name: str
    kind: str  # table | view

    @property
    def key(self) -> tuple[str, str]:
        return (self.schema.lower(), self.name.lower())

    @property
    def display_name(self) -> str:
        return f"{self.schema}.{self.name}"


@dataclass(frozen=True)
class Snapshot:
    label: str
    path: Path | None  # the copied DuckDB file (None on a server: see `schemas`)
    relations: tuple[Relation, ...]  # named by logical schema (harness.engines)
    view_errors: tuple[tuple[str, str], ...] = ()  # (schema.name, error) of unreadable views
    # On a server: (logical schema, lowercase -> the snapshot's schema holding its copies)
    schemas: tuple[tuple[str, str], ...] = ()
    location: str = ""  # on a server: the snapshot's base schema
    store: Any = field(default=None, compare=False, repr=False)  # harness.engines; None: DuckDB


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
        raise FileNotFoundError(
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
