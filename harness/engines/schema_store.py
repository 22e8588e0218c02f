"""Lanes as scratch schemas on a server or in a Spark metastore (PostgreSQL, Spark).

Every schema the harness creates starts with the run's prefix `rs_<8 hex>_`: lanes `..._l01`,
snapshots `..._s001`, checkpoints `..._c01`, and the `<schema>_<custom>` schemas dbt derives from
each (a model with `schema: marts` builds into `rs_<run>_l01_marts`). They are dropped when the
run ends (`close`), unless the work folder is kept. Nothing else is written: the preflight
(harness.target) refused every node and source that would land outside the lane's schemas.

Relations are reported under the target's own schema (`rs_<run>_l01_marts` ->
`analytics_marts`), so snapshots of different lanes compare relation by relation. A snapshot
copies every relation into snapshot schemas (views frozen into tables); a checkpoint copies the
tables and keeps the views' definitions; `restore` drops the lane's schemas, copies the tables
back, then recreates the views in an order that satisfies their dependencies. Each engine says
how to list, copy and create (`postgres.py`, `spark.py`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.engines.base import NameOf, Relation, Snapshot, Sql, Store
from harness.errors import EngineError, InputError
from harness.target import SCHEMA_ENV


@dataclass(frozen=True)
class Checkpoint:
    schema: str  # the checkpoint's base schema: <prefix>_cNN
    suffixes: tuple[str, ...]  # the lane's schemas, as suffixes of its place ("" is the place)
    tables: tuple[tuple[str, str, Any], ...]  # (suffix, name, how the engine re-creates it)
    views: tuple[tuple[str, str, str], ...]  # (suffix, name, definition)


class SchemaStore(Store):
    """A lane is a schema; what differs per engine is below `# -- the engine`."""

    def __init__(self, token: str, logical_schema: str) -> None:
        self.prefix = f"rs_{token}"
        self.logical = logical_schema
        self.counts = {"l": 0, "s": 0, "c": 0}

    # -- the engine ----------------------------------------------------------------------
    @property
    def sql(self) -> Sql:
        raise NotImplementedError

    def connected(self) -> bool:
        """Whether a connection was ever opened (nothing to drop otherwise)."""
        raise NotImplementedError

    def all_schemas(self) -> list[str]:
        raise NotImplementedError

    def relations(self, schemas: Sequence[str]) -> list[tuple[str, str, str]]:
        """(schema, name, table | view) of every relation in `schemas`."""
        raise NotImplementedError

    def table_recipe(self, schema: str, name: str) -> Any:
        """What `copy_table` needs to re-create a table as it was (e.g. its partitioning)."""
        return None

    def copy_table(self, source: str, dest: str, name: str, recipe: Any = None) -> None:
        q = self.sql.quote
        self.sql.execute(f"create table {q(dest)}.{q(name)} as select * from {q(source)}.{q(name)}")

    def view_definitions(self, schemas: Sequence[str]) -> list[tuple[str, str, str]]:
        raise NotImplementedError

    def create_view(self, schema: str, name: str, definition: str) -> None:
        q = self.sql.quote
        self.sql.execute(f"create view {q(schema)}.{q(name)} as {definition}")

    def create_schema(self, schema: str) -> None:
        self.sql.execute(f"create schema if not exists {self.sql.quote(schema)}")

    def drop_schema(self, schema: str) -> None:
        self.sql.execute(f"drop schema if exists {self.sql.quote(schema)} cascade")

    # -- lanes ---------------------------------------------------------------------------
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
            return place + logical_schema[len(self.logical) :]
        raise InputError(f"schema {logical_schema!r} is not derived from the target schema {self.logical!r}")

    def schemas(self, base: str) -> list[str]:
        """`base` and every `base_<suffix>` schema that exists."""
        return sorted(
            s for s in self.all_schemas() if s.lower() == base.lower() or s.lower().startswith(base.lower() + "_")
        )

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
        for schema, name, kind in self.relations(self.schemas(place)):
            suffix = schema[len(place) :]
            copy_schema, logical = base + suffix, self.logical + suffix
            if logical.lower() not in mapping:
                self.create_schema(copy_schema)
                mapping[logical.lower()] = copy_schema
            relation = Relation(schema=logical, name=name, kind=kind)
            relations.append(relation)
            try:
                self.copy_table(schema, copy_schema, name)
            except self.sql.errors as exc:
                errors.append((relation.display_name, str(exc).strip().splitlines()[0]))
        return Snapshot(
            label=label,
            path=None,
            relations=tuple(relations),
            view_errors=tuple(errors),
            schemas=tuple(sorted(mapping.items())),
            location=base,
            store=self,
        )

    def discard(self, snapshot: Snapshot) -> None:
        for schema in self.schemas(snapshot.location):
            self.drop_schema(schema)

    # -- checkpoints ----------------------------------------------------------------------
    def save_checkpoint(self, place: str, folder: Path) -> Checkpoint:
        del folder
        base = self._name("c", 2)
        schemas = self.schemas(place)
        suffixes = tuple(schema[len(place) :] for schema in schemas)
        for suffix in suffixes:
            self.create_schema(base + suffix)
        tables = []
        for schema, name, kind in self.relations(schemas):
            if kind == "table":
                recipe = self.table_recipe(schema, name)
                self.copy_table(schema, base + schema[len(place) :], name, recipe)
                tables.append((schema[len(place) :], name, recipe))
        views = tuple((s[len(place) :], n, d) for s, n, d in self.view_definitions(schemas))
        return Checkpoint(base, suffixes, tuple(tables), views)

    def restore(self, place: str, checkpoint: Checkpoint | None) -> None:
        for schema in self.schemas(place):
            self.drop_schema(schema)
        if checkpoint is None:
            return
        for suffix in checkpoint.suffixes:
            self.create_schema(place + suffix)
        for suffix, name, recipe in checkpoint.tables:
            self.copy_table(checkpoint.schema + suffix, place + suffix, name, recipe)
        pending = list(checkpoint.views)
        while pending:  # a view may read another one: retry until a round creates none
            failed = []
            for suffix, name, definition in pending:
                try:
                    self.create_view(place + suffix, name, definition)
                except self.sql.errors:
                    failed.append((suffix, name, definition))
            if len(failed) == len(pending):
                shown = ", ".join(place + s + "." + n for s, n, _ in failed)
                raise EngineError(f"checkpoint {checkpoint.schema}: views could not be restored: {shown}")
            pending = failed

    # -- reading and comparing -----------------------------------------------------------
    @contextlib.contextmanager
    def reading(self, place: str) -> Iterator[tuple[Sql, Callable[[str, str], str]]]:
        q = self.sql.quote
        yield self.sql, lambda schema, name: f"{q(self.physical(place, schema))}.{q(name)}"

    @contextlib.contextmanager
    def comparing(self, left: Snapshot, right: Snapshot) -> Iterator[tuple[Sql, NameOf]]:
        q = self.sql.quote

        def name_of(snapshot: Snapshot, relation: Relation) -> str:
            return f"{q(dict(snapshot.schemas)[relation.schema.lower()])}.{q(relation.name)}"

        yield self.sql, name_of

    def close(self, keep: bool = False) -> None:
        if not self.connected():
            return
        if not keep:
            for schema in self.schemas(self.prefix):
                self.drop_schema(schema)
