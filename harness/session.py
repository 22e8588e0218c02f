"""Before any build: resolve the user's profile and target, write the harness's own profile
(scratch locations only), parse the project and resolve the selection, and refuse what would
write anywhere else. Every check runs in the CheckContext this returns."""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.context import CheckContext
from harness.dbt_invoke import DbtSettings, list_nodes
from harness.deliveries import DEFAULT_BATCH_PATTERN, discover_batches
from harness.engines import open_store
from harness.errors import DbtError, NothingSelected, Refused
from harness.sources import SourceLoader, SourceTable, check_source_locations, declared_sources
from harness.target import check_locations, default_profiles_dir, scratch_profile
from harness.workspace import Progress


def _silent(message: str) -> None:
    del message


def _base_database(state: Path) -> str:
    """The database the base manifest's sources (else nodes) were parsed under."""
    try:
        manifest = json.loads((state / "manifest.json").read_text())
    except (OSError, ValueError):
        return ""
    for group in ("sources", "nodes"):
        for node in (manifest.get(group) or {}).values():
            if node.get("database"):
                return str(node["database"])
    return ""


def state_selection(settings: DbtSettings, adapter: str, env: Any, preflight: Path, select: Sequence[str]) -> list[str]:
    """What `dbt ls --select ... --state DIR` selects as the user runs it. state:modified
    compares every node and source with the base manifest, parsed under the user's target: a
    source whose database or schema differs counts as modified, and so does everything
    downstream. Under the scratch profile the DuckDB database is the scratch file's stem, so
    one changed model selected every model below a source. On DuckDB the selection is parsed
    at a place named like the base manifest's database (a file never created: `dbt ls`
    connects to nothing); on a server, under the user's own profile (parsing only)."""
    assert settings.state is not None
    folder = preflight / "state_selection"
    database = _base_database(settings.state)
    if adapter == "duckdb" and database and "/" not in database and "'" not in database:
        return list_nodes(
            settings, target_path=folder / "target", select=select, location=env(str(folder / f"{database}.duckdb"))
        )
    user = dataclasses.replace(settings, scratch=None)
    return list_nodes(user, target_path=folder / "target", select=select, location={})


def open_session(
    settings: DbtSettings,
    workdir: Path,
    *,
    select: Sequence[str] = (),
    deliveries: Path | None = None,
    batch_pattern: str | None = None,
    sample_size: int = 5,
    progress: Progress = _silent,
    load_sources: bool = False,
) -> CheckContext:
    """Raises `Refused` (nothing was written outside `workdir`) or `DbtError`."""
    workdir.mkdir(parents=True, exist_ok=True)
    profiles_dir = default_profiles_dir(settings.project_dir, settings.profiles_dir)
    scratch = scratch_profile(
        settings.project_dir,
        profiles_dir,
        settings.target,
        settings.vars,
        workdir / "profile",
        threads=settings.threads,
    )
    settings = dataclasses.replace(settings, scratch=scratch)
    progress(f"target: {scratch.describe()}")
    # A server's scratch schemas share one prefix per run, so the run drops exactly its own.
    store = open_store(scratch, uuid.uuid4().hex[:8])
    if store.adapter != "duckdb" and not load_sources:
        # Landing folders on a server: the server process reads the landed files itself (a
        # local server runs as another OS user), so the work folder must be traversable.
        workdir.chmod(0o755)
    preflight = workdir / "preflight"
    # `dbt ls` connects to nothing: the preflight's place (a file, a schema) is never created
    place = store.place(preflight)
    ids = list_nodes(settings, target_path=preflight / "target", location=store.env(place), select=select)
    manifest_path = preflight / "target" / "manifest.json"
    check_locations(manifest_path, scratch.adapter, place, scratch.database)
    if settings.state is not None and select:
        ids = state_selection(settings, store.adapter, store.env, preflight, select)
    narrowed = bool(select) or bool(settings.exclude)
    if narrowed and not ids:
        raise NothingSelected(
            f"--select {' '.join(select) or '(all)'}"
            + (f" --exclude {' '.join(settings.exclude)}" if settings.exclude else "")
            + " selected no model, seed or snapshot: the selection matched nothing"
        )
    build_select: tuple[str, ...] = ()
    deferred: tuple[str, ...] = ()
    if narrowed:
        build_select, deferred = _narrowed_builds(settings, ids, preflight, store.env(place))
    kwargs: dict[str, Any] = {}
    if batch_pattern is not None:
        kwargs["batch_pattern"] = batch_pattern
    if load_sources:
        tables = declared_sources(manifest_path, store.schema_map(place))
        check_source_locations(tables, scratch.adapter, scratch.database, scratch.user_schema)
        kwargs["loader"] = _source_loader(tables, deliveries, batch_pattern or DEFAULT_BATCH_PATTERN)
    return CheckContext(
        settings=settings,
        workdir=workdir,
        select=tuple(select),
        selected=frozenset(ids) if narrowed else None,
        build_select=build_select,
        deferred=deferred,
        deliveries=deliveries,
        sample_size=sample_size,
        progress=progress,
        store=store,
        **kwargs,
    )


def _narrowed_builds(
    settings: DbtSettings, ids: Sequence[str], preflight: Path, location: dict[str, str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """For a selection: what every build selects (each selected node with its parents), and the
    nodes a state selection left out (deferred)."""
    deferred: tuple[str, ...] = ()
    if settings.state is not None:
        # the project's models, seeds and snapshots the state selection left out: with --defer
        # dbt would read them from the base state; the harness builds the ones the selection
        # reads from the deliveries into its scratch warehouse, and judges none of them
        everything = list_nodes(
            dataclasses.replace(settings, state=None, defer=False, exclude=()),
            target_path=preflight / "all_nodes",
            location=location,
        )
        deferred = tuple(sorted(set(everything) - set(ids)))
    nodes = json.loads((preflight / "target" / "manifest.json").read_text()).get("nodes", {})
    build_select = tuple(sorted({"+" + str(nodes[uid]["name"]) for uid in ids if uid in nodes}))
    return build_select, deferred


def _source_loader(tables: list[SourceTable], deliveries: Path | None, batch_pattern: str) -> SourceLoader:
    """The loader of --load-sources; it knows every delivery file first, so each source table
    exists before the first batch (SourceLoader.expect)."""
    loader = SourceLoader(tables, batch_pattern)
    if deliveries is not None:
        loader.expect(f for batch in discover_batches(deliveries, batch_pattern) for f in batch.files)
    return loader


__all__ = ["DbtError", "NothingSelected", "Refused", "open_session"]
