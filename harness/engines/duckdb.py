"""DuckDB: each lane is a scratch file; snapshots and checkpoints are copies of it."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from harness.engines.base import NameOf, Store
from harness.sql import Sql, quote
from harness.target import WAREHOUSE_ENV
from harness.warehouse import Relation, Snapshot, take_snapshot

if TYPE_CHECKING:
    from harness.sources import SourceLoader


def wal_of(warehouse: Path) -> Path:
    return warehouse.with_name(warehouse.name + ".wal")


class DuckDBStore(Store):
    adapter = "duckdb"

    def place(self, lane_root: Path) -> str:
        return str(lane_root / "warehouse" / "warehouse.duckdb")

    def env(self, place: str) -> dict[str, str]:
        Path(place).parent.mkdir(parents=True, exist_ok=True)
        return {WAREHOUSE_ENV: place}

    def exists(self, place: str) -> bool:
        return Path(place).exists()

    def snapshot(self, place: str, folder: Path, label: str, freeze: Collection[tuple[str, str]] | None) -> Snapshot:
        return take_snapshot(Path(place), folder, label, freeze)

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
            yield Sql(con), lambda schema, name: f"{quote(schema)}.{quote(name)}"
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

            yield Sql(con), name_of
        finally:
            con.close()

    def load_sources(self, place: str, loader: SourceLoader, files: Sequence[Path]) -> int:
        return loader.load(Path(place), files)


def _literal(path: Path | None) -> str:
    return str(path).replace("'", "''")
