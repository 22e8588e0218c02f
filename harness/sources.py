"""Deliveries into sources: the harness plays the EL tool.

With `--load-sources`, each delivery file is a batch of rows for one table the project
declares with `source()`: the harness appends the file's rows to that table in the lane's
scratch warehouse before each build, so staging models stay as they are. Which table a file
feeds:

- flat files: the part of the name after the batch key, without the extension
  (`2026-11-01_raw_orders.csv` -> `raw_orders`);
- Hive-style folders: the folder above the first `name=value` folder
  (`raw_orders/batch=2026-11-01/part-0.parquet` -> `raw_orders`).

The name is matched against each declared source table's identifier (then its name), case
insensitively; a file that matches none is an error, never silently left out. Rows are
appended by column name (`INSERT ... BY NAME`), the table created from the first file's
columns; CSV and Parquet files both work. A redelivery appends the same rows again, as an
at-least-once loader does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from harness.deliveries import DEFAULT_BATCH_PATTERN, partition_index
from harness.engines.base import LoadPlan, SourceLoad, quote
from harness.errors import InputError, Refused
from harness.project import logical_schema
from harness.target import DUCKDB_CATALOG


@dataclass(frozen=True)
class SourceTable:
    unique_id: str  # source.<project>.<source_name>.<table>
    source_name: str
    name: str
    database: str
    schema: str
    identifier: str

    @property
    def relation(self) -> str:
        return f"{quote(self.schema)}.{quote(self.identifier)}"


def declared_sources(manifest_path: Path, rename: tuple[str, str] | None = None) -> list[SourceTable]:
    """The project's source() tables; `rename` (physical prefix, logical prefix) names their
    schemas as the user's target would (harness.engines)."""
    manifest = json.loads(manifest_path.read_text())
    tables = []
    for unique_id, node in (manifest.get("sources") or {}).items():
        tables.append(
            SourceTable(
                unique_id=unique_id,
                source_name=str(node.get("source_name") or ""),
                name=str(node.get("name") or ""),
                database=str(node.get("database") or ""),
                schema=logical_schema(str(node.get("schema") or ""), rename),
                identifier=str(node.get("identifier") or node.get("name") or ""),
            )
        )
    return sorted(tables, key=lambda t: t.unique_id)


def check_source_locations(
    tables: Iterable[SourceTable], adapter: str = "duckdb", database: str = "", schema: str = ""
) -> None:
    """Sources the harness loads must live in its scratch warehouse: on DuckDB the scratch
    file, on a server the target's database and a schema derived from the target's schema
    (`tables` named with logical schemas: the user's `schema`, or `<schema>_<suffix>`)."""
    tables = list(tables)
    if adapter != "duckdb":
        fixed = [
            t
            for t in tables
            if t.database.lower() != database.lower()
            or not (t.schema.lower() == schema.lower() or t.schema.lower().startswith(schema.lower() + "_"))
        ]
        if fixed:
            shown = ", ".join(f"{t.unique_id} -> {t.database}.{t.schema}" for t in fixed[:5])
            raise Refused(
                f"--load-sources: {len(fixed)} source table(s) live in a schema the harness does not "
                f"create ({shown}); it loads deliveries only into scratch schemas. Derive the source's "
                'schema from the target, e.g. `schema: "{{ target.schema }}_raw"`, and leave '
                "`database` unset (nothing was built)"
            )
        return
    outside = [t for t in tables if t.database.lower() != DUCKDB_CATALOG]
    if outside:
        shown = ", ".join(f"{t.unique_id} -> {t.database}.{t.schema}" for t in outside[:5])
        raise Refused(
            f"--load-sources: {len(outside)} source table(s) live in another database ({shown}); "
            "the harness loads deliveries only into its scratch warehouse. Leave the source's "
            "`database` unset (it then follows the target)"
        )


class SourceLoader:
    """Plans which source table each delivery file feeds (`plan`); a store executes the plan
    (`Store.load_sources`: harness.engines.duckdb.load_into, the server stores)."""

    def __init__(self, tables: list[SourceTable], pattern: str = DEFAULT_BATCH_PATTERN) -> None:
        if not tables:
            raise InputError("--load-sources: the project declares no source() table to load")
        self.tables = tables
        self.pattern = re.compile(pattern)

    def table_name(self, path: Path) -> str:
        hive = partition_index(path)
        if hive is not None and hive > 0:
            return path.parts[hive - 1]
        stem = path.name.rsplit(".", 1)[0]
        match = self.pattern.search(path.name)
        return stem[match.end() :] if match and match.end() <= len(stem) else stem

    def table_for(self, path: Path) -> SourceTable:
        wanted = self.table_name(path).lower()
        for attribute in ("identifier", "name"):
            for table in self.tables:
                if getattr(table, attribute).lower() == wanted:
                    return table
        names = ", ".join(sorted({t.identifier for t in self.tables}))
        raise InputError(f"delivery {path.name}: table {wanted!r} is not a declared source table ({names})")

    def expect(self, files: Iterable[Path]) -> None:
        """Every delivery file: each table the loader feeds is created (empty, from its first
        file's columns) before the first load, as an EL tool's tables exist before a batch
        brings rows for them (a table fed only by a later batch would otherwise be missing)."""
        self.templates: dict[str, tuple[Path, SourceTable]] = {}
        for path in files:
            table = self.table_for(path)
            self.templates.setdefault(table.unique_id, (path, table))

    def plan(self, files: Iterable[Path]) -> LoadPlan:
        """Which table each file feeds, and the files whose columns create each table first:
        what a store executes (`Store.load_sources`)."""
        appends = tuple(self._load(path, self.table_for(path)) for path in files)
        creates = tuple(self._load(path, table) for path, table in getattr(self, "templates", {}).values())
        return LoadPlan(creates=creates, appends=appends)

    @staticmethod
    def _load(path: Path, table: SourceTable) -> SourceLoad:
        return SourceLoad(path=path, schema=table.schema, identifier=table.identifier, reader=_reader(path))


def _reader(path: Path) -> str:
    """The file's own columns: a `name=value` folder of its path is no column (hive_partitioning)."""
    literal = "'" + str(path).replace("'", "''") + "'"
    if path.suffix.lower() == ".parquet":
        return f"read_parquet({literal}, hive_partitioning = false)"
    return f"read_csv({literal}, header = true, hive_partitioning = false)"
