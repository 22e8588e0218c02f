"""Snapshots of a DuckDB warehouse file and what they contain.

A snapshot is a copy of the warehouse file taken after dbt finished, so it can be opened in
this process without clashing with dbt's own connection (same file, other configuration).
The copy keeps the file name, so the catalog name that views refer to stays the same; views
are then replaced by tables holding their rows, so a snapshot is self-contained and later
changes to the landing folder cannot change it.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb

from harness.diff import quote

SYSTEM_SCHEMAS = ("information_schema", "pg_catalog")


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
    path: Path
    relations: tuple[Relation, ...]
    view_errors: tuple[str, ...] = ()


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
    return [
        Relation(schema=row[0], name=row[1], kind="view" if row[2] == "VIEW" else "table")
        for row in rows
    ]


def take_snapshot(warehouse: Path, dest_dir: Path, label: str) -> Snapshot:
    """Copy the warehouse (and its WAL) into dest_dir and freeze its views into tables."""
    if not warehouse.exists():
        raise FileNotFoundError(f"warehouse {warehouse} does not exist: did the build run?")
    dest_dir.mkdir(parents=True, exist_ok=True)
    copy = dest_dir / warehouse.name
    shutil.copy2(warehouse, copy)
    wal = warehouse.with_name(warehouse.name + ".wal")
    if wal.exists():
        shutil.copy2(wal, copy.with_name(copy.name + ".wal"))
    errors: list[str] = []
    con = duckdb.connect(str(copy))
    try:
        catalog = str(con.execute("select current_database()").fetchone()[0])  # type: ignore[index]
        relations = list_relations(con, catalog)
        for relation in relations:
            if relation.kind != "view":
                continue
            name = f"{quote(relation.schema)}.{quote(relation.name)}"
            frozen = f"{quote(relation.schema)}.{quote('__rerun_safe_frozen_' + relation.name)}"
            try:
                con.execute(f"create table {frozen} as select * from {name}")
            except duckdb.Error as exc:
                errors.append(f"view {relation.display_name} could not be read: {exc}")
                continue
            # Views may read each other: drop and rename only after all were read.
        for relation in relations:
            if relation.kind != "view":
                continue
            frozen_name = "__rerun_safe_frozen_" + relation.name
            exists = con.execute(
                "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
                [relation.schema, frozen_name],
            ).fetchone()
            con.execute(f"drop view {quote(relation.schema)}.{quote(relation.name)}")
            if exists and exists[0]:
                con.execute(
                    f"alter table {quote(relation.schema)}.{quote(frozen_name)} rename to {quote(relation.name)}"
                )
        con.execute("checkpoint")
    finally:
        con.close()
    return Snapshot(label=label, path=copy, relations=tuple(relations), view_errors=tuple(errors))
