"""The interface of every engine's store: a lane's place, snapshots, checkpoints, SQL.

A `Store` hides what differs between warehouses from the checks:

| | DuckDB (`harness.engines.duckdb`) | PostgreSQL (`harness.engines.postgres`) |
|---|---|---|
| a lane's place | a scratch file of its own | a scratch schema of its own (and the `<schema>_<custom>` schemas dbt derives from it) |
| snapshot | a copy of the file, views frozen into tables | a copy of every relation into snapshot schemas, views frozen |
| checkpoint / restore | a raw copy of the file | tables copied into checkpoint schemas, view definitions kept; restore drops the lane's schemas and copies back |
| diffs and key checks | in DuckDB, the two snapshot files attached | in the database, through the connection dbt's postgres adapter opens |
| clean-up | the work folder is deleted | every schema the run created (one prefix per run) is dropped |

Relations are named by their *logical* schema everywhere outside the store: the schema the
user's target would have used (a lane's `rs_<run>_l03_marts` is reported as `analytics_marts`),
so snapshots of different lanes compare relation by relation.
"""  # noqa: E501 - the table's rows cannot wrap

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.sql import Sql

if TYPE_CHECKING:
    from harness.sources import SourceLoader
    from harness.warehouse import Relation, Snapshot

NameOf = Callable[["Snapshot", "Relation"], str]


class Store:
    """The interface every adapter's store implements (see the module's table)."""

    adapter = ""

    def place(self, lane_root: Path) -> str:
        """A new lane's location (a file path, a schema name): created empty on first use."""
        raise NotImplementedError

    def env(self, place: str) -> dict[str, str]:
        """The env vars that point the harness's profile at `place`."""
        raise NotImplementedError

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

    def load_sources(self, place: str, loader: SourceLoader, files: Sequence[Path]) -> int:
        raise NotImplementedError

    def close(self, keep: bool = False) -> None:
        """Drop what the run created outside its work folder (`keep`: leave it, say where)."""
