"""What every engine implements, and the types the checks see: `Sql`, `Store`, `Snapshot`.

An engine's module (`duckdb.py`, `postgres.py`, `spark.py` beside this one) holds its SQL
dialect, a subclass of `Sql`, and its store, a subclass of `Store`; the server engines' stores
share `schema_store.SchemaStore`. `harness.engines.open_store` picks the store of a target.

`Sql` is one SQL connection to a warehouse and the few expressions that differ between engines.
The diffs (harness.diff) and the key check (harness.keys) run inside the warehouse: on DuckDB
in an in-process connection to snapshot files, on PostgreSQL through the connection dbt's
postgres adapter opens with the target's own credentials. Their SQL is written once; what
differs per engine is a 64-bit row hash summed without overflow, and how a query's columns are
described.

A `Store` hides what differs between warehouses from the checks:

| | DuckDB (`harness.engines.duckdb`) | PostgreSQL (`harness.engines.postgres`) |
|---|---|---|
| a lane's place | a scratch file of its own | a scratch schema of its own (and the `<schema>_<custom>` schemas dbt derives from it) |
| snapshot | a copy of the file, views frozen into tables | a copy of every relation into snapshot schemas, views frozen |
| checkpoint / restore | a raw copy of the file | tables copied into checkpoint schemas, view definitions kept; restore drops the lane's schemas and copies back |
| diffs and key checks | in DuckDB, the two snapshot files attached | in the database, through the connection dbt's postgres adapter opens |
| clean-up | the work folder is deleted | every schema the run created (one prefix per run) is dropped |
| a lane's landing path in values | replaced by `<landing>` in a snapshot (`unroot`) | kept: the server reads the landing folder, names are the project's |
| serial builds (determinism) | `threads = 1` (the scratch profile's `settings.threads` reads an env var) | `max_parallel_workers_per_gather = 0` through `PGOPTIONS` |

Relations are named by their *logical* schema everywhere outside the store: the schema the
user's target would have used (a lane's `rs_<run>_l03_marts` is reported as `analytics_marts`),
so snapshots of different lanes compare relation by relation.
"""  # noqa: E501 - the table's rows cannot wrap

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


class Sql:
    """A connection that runs statements and fetches rows; `errors` are the engine's own
    exception classes (a statement that fails leaves the connection usable). An engine
    implements the methods that raise here; the others are portable SQL it may override."""

    dialect = ""
    quote = staticmethod(quote)
    errors: tuple[type[BaseException], ...] = ()

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> None:
        raise NotImplementedError

    def fetchall(self, sql: str, params: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def fetchone(self, sql: str, params: Sequence[Any] | None = None) -> tuple[Any, ...] | None:
        rows = self.fetchall(sql, params)
        return rows[0] if rows else None

    def query(self, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Column names and rows of a query."""
        raise NotImplementedError

    def columns(self, relation_sql: str) -> tuple[tuple[str, str], ...]:
        """(name, type) of every column of `relation_sql` (anything that can follow `from`)."""
        raise NotImplementedError

    def row_hash_sum(self, columns: Sequence[str], salted: bool) -> str:
        """An aggregate: the sum of a 64-bit hash of each row's `columns`, exact (no overflow).
        `salted` gives an independent second hash."""
        raise NotImplementedError

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
    relations: tuple[Relation, ...]  # named by logical schema (see the module's docstring)
    view_errors: tuple[tuple[str, str], ...] = ()  # (schema.name, error) of unreadable views
    # On a server: (logical schema, lowercase -> the snapshot's schema holding its copies)
    schemas: tuple[tuple[str, str], ...] = ()
    location: str = ""  # on a server: the snapshot's base schema
    store: Any = field(default=None, compare=False, repr=False)  # its Store; None: DuckDB


NameOf = Callable[[Snapshot, Relation], str]


@dataclass(frozen=True)
class SourceLoad:
    """One delivery file and the source table (logical schema, identifier) it feeds; `reader`
    is the DuckDB table function that reads the file's own columns."""

    path: Path
    schema: str
    identifier: str
    reader: str

    @property
    def relation(self) -> str:
        return f"{quote(self.schema)}.{quote(self.identifier)}"


@dataclass(frozen=True)
class LoadPlan:
    """What `--load-sources` appends before a build, planned by harness.sources (which file
    feeds which table) and executed by a store (`Store.load_sources`)."""

    creates: tuple[SourceLoad, ...]  # the file whose columns create each table, if it is missing
    appends: tuple[SourceLoad, ...]  # every delivered file, appended to its table by column name


class Store:
    """The interface every adapter's store implements (see the module's table)."""

    adapter = ""

    def place(self, lane_root: Path) -> str:
        """A new lane's location (a file path, a schema name): created empty on first use."""
        raise NotImplementedError

    def env(self, place: str) -> dict[str, str]:
        """The env vars that point the harness's profile at `place`."""
        raise NotImplementedError

    def unroot(self, snapshot: Snapshot, roots: Sequence[str], placeholder: str) -> int:
        """In a snapshot's copies, replace each of `roots` (a lane's landing folder) in text
        values by `placeholder`, so a value that holds a landed file's path compares equal
        across lanes. Returns how many rows changed. Default: nothing (a server reads no
        landing folder of a lane by path)."""
        del snapshot, roots, placeholder
        return 0

    def serial_env(self) -> tuple[dict[str, str], str]:
        """Env vars that make the engine run each query of a build without parallelism, so
        rows reach a query in the order they are read and a build's result is reproducible,
        and what they set; ({}, why not) when the harness cannot set it."""
        return {}, f"{self.adapter}: the engine's parallelism is not settable from outside the profile"

    def schema_map(self, place: str) -> tuple[str, str] | None:
        """(physical schema prefix, logical schema prefix) of a lane, to read its manifests
        with logical schemas; None when schemas are the same in every lane (DuckDB)."""
        return None

    def exists(self, place: str) -> bool:
        raise NotImplementedError

    def snapshot(self, place: str, folder: Path, label: str, freeze: Collection[tuple[str, str]] | None) -> Snapshot:
        raise NotImplementedError

    def discard(self, snapshot: Snapshot) -> None:
        """Free a snapshot nobody will read again."""
        raise NotImplementedError

    def save_checkpoint(self, place: str, folder: Path) -> Any:
        raise NotImplementedError

    def restore(self, place: str, checkpoint: Any) -> None:
        """Make `place` what `checkpoint` saved (None: nothing at all)."""
        raise NotImplementedError

    @contextlib.contextmanager
    def reading(self, place: str) -> Iterator[tuple[Sql, Callable[[str, str], str]]]:
        """A connection to read a lane's relations, and the SQL name of (logical schema,
        identifier) in it."""
        raise NotImplementedError
        yield  # pragma: no cover

    @contextlib.contextmanager
    def comparing(self, left: Snapshot, right: Snapshot) -> Iterator[tuple[Sql, NameOf]]:
        """A connection that sees both snapshots, and the SQL name of a snapshot's relation."""
        raise NotImplementedError
        yield  # pragma: no cover

    def load_sources(self, place: str, plan: LoadPlan) -> int:
        """Create the plan's tables that are missing, append its files; returns the rows appended."""
        raise NotImplementedError

    def close(self, keep: bool = False) -> None:
        """Drop what the run created outside its work folder (`keep`: leave it, say where)."""
