"""Where the harness builds: resolved before any build, and only ever a place it created.

The user's profile and target are read and rendered the way dbt does (env vars and `--vars`
included), without connecting to anything. The harness then writes a profile of its own (one
target, `rerun_safe_scratch`) that keeps every setting of the user's target except the
location: on DuckDB the `path` is the lane's own scratch file, on a server the `schema` is a
scratch schema. Every dbt call of a check uses that profile, never the user's.

Before any build, `check_locations` reads the parsed manifest (written by `dbt ls`, which
parses and connects to nothing) and refuses when a node would be built outside the scratch
location (a model with its own `database`, a `generate_schema_name` that ignores the target
schema). A target that cannot be redirected (a DuckDB `attach` that is not read-only, an
adapter the harness does not drive) is refused too. A refusal exits with status 2 and writes
nothing.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness.errors import Refused

SCRATCH_TARGET = "rerun_safe_scratch"
WAREHOUSE_ENV = "RERUN_SAFE_SCRATCH_WAREHOUSE"
SCHEMA_ENV = "RERUN_SAFE_SCRATCH_SCHEMA"
# DuckDB's `threads` in the scratch profile: the user's own (or DuckDB's default) unless a lane
# sets this (the determinism check runs its two builds on one thread).
THREADS_ENV = "RERUN_SAFE_SCRATCH_DUCKDB_THREADS"
DUCKDB_CATALOG = "warehouse"  # every lane's file is <lane>/warehouse/warehouse.duckdb
# Adapters the harness can run checks on (harness.engines: DuckDB files, PostgreSQL schemas).
DRIVEN_ADAPTERS = ("duckdb", "postgres", "spark")


@dataclass(frozen=True)
class ScratchProfile:
    """The profile the harness wrote for itself, and what it was made from."""

    profiles_dir: Path  # holds the harness's own profiles.yml
    profile_name: str
    user_target: str  # the user's target it was derived from
    adapter: str  # duckdb, postgres, ...
    user_location: str  # where the user's target would have written (a path or a schema)
    settings: dict[str, Any] = field(default_factory=dict)  # the rendered target, location replaced
    user_schema: str = ""  # on a server: the target's schema (relations are reported under it)
    database: str = ""  # on a server: the target's database

    def describe(self) -> str:
        return (
            f"profile {self.profile_name}, target {self.user_target} ({self.adapter}); the user's "
            f"location {self.user_location} is never used: every build goes to a scratch "
            + ("file" if self.adapter == "duckdb" else "schema")
            + " the harness created"
        )


def default_profiles_dir(project_dir: Path, explicit: Path | None) -> Path:
    """Where dbt would read profiles.yml: --profiles-dir, DBT_PROFILES_DIR, the project (or
    current) folder when it has one, else ~/.dbt."""
    if explicit is not None:
        return explicit.resolve()
    if os.environ.get("DBT_PROFILES_DIR"):
        return Path(os.environ["DBT_PROFILES_DIR"]).resolve()
    for folder in (project_dir, Path.cwd()):
        if (folder / "profiles.yml").exists():
            return folder.resolve()
    return Path.home() / ".dbt"


def _project_profile_name(project_dir: Path) -> str:
    config = yaml.safe_load((project_dir / "dbt_project.yml").read_text()) or {}
    name = config.get("profile")
    if not name:
        raise Refused(f"{project_dir / 'dbt_project.yml'} names no profile")
    return str(name)


def render_user_target(
    project_dir: Path, profiles_dir: Path, target: str | None, cli_vars: dict[str, Any]
) -> tuple[str, str, dict[str, Any]]:
    """(profile name, target name, rendered target) as dbt would resolve them; connects to
    nothing."""
    from dbt.config.profile import Profile, read_profile
    from dbt.config.renderer import ProfileRenderer
    from dbt_common.context import set_invocation_context
    from dbt_common.exceptions import DbtRuntimeError

    # env_var() reads dbt's invocation context. A profile that takes its DuckDB file from
    # DBT_DUCKDB_PATH (this project's convention) renders with a placeholder when it is unset:
    # the path is replaced by a scratch file anyway.
    env = dict(os.environ)
    env.setdefault("DBT_DUCKDB_PATH", "<DBT_DUCKDB_PATH>")
    set_invocation_context(env)

    profile_name = _project_profile_name(project_dir)
    raw = read_profile(str(profiles_dir))
    if profile_name not in raw:
        raise Refused(f"no profile {profile_name!r} in {profiles_dir / 'profiles.yml'} (pass --profiles-dir DIR)")
    try:
        target_name, rendered = Profile.render_profile(
            raw[profile_name], profile_name, target, ProfileRenderer(cli_vars)
        )
    except DbtRuntimeError as exc:  # a missing target, an env var without default, ...
        raise Refused(f"profile {profile_name}: {str(exc).strip()}") from exc
    if not isinstance(rendered, dict) or "type" not in rendered:
        raise Refused(f"profile {profile_name}, target {target_name}: no adapter `type`")
    return profile_name, str(target_name), dict(rendered)


def scratch_profile(
    project_dir: Path,
    profiles_dir: Path,
    target: str | None,
    cli_vars: dict[str, Any],
    out_dir: Path,
    threads: int | None = None,
) -> ScratchProfile:
    """Resolve the user's target, refuse what cannot be redirected, and write the harness's
    own profiles.yml into `out_dir` (a folder the harness created)."""
    profile_name, target_name, rendered = render_user_target(project_dir, profiles_dir, target, cli_vars)
    adapter = str(rendered["type"]).lower()
    if adapter not in DRIVEN_ADAPTERS:
        where = f"schema {rendered.get('schema')!r}" if rendered.get("schema") else "its location"
        raise Refused(
            f"target {target_name} is a {adapter} target ({where}): the harness builds only into "
            f"scratch locations it can create on {', '.join(DRIVEN_ADAPTERS)}; nothing was built. "
            "Run it against a DuckDB or PostgreSQL target of the same project."
        )
    settings = dict(rendered)
    if adapter == "spark":
        if str(settings.get("method", "")).lower() != "session":
            raise Refused(
                f"target {target_name} is a spark target with method {settings.get('method')!r}: the "
                "harness drives Spark's `method: session` only (nothing was built)"
            )
        return _write(
            out_dir,
            profile_name,
            target_name,
            adapter,
            settings,
            threads,
            user_location=f"schema {settings.get('schema')}",
            user_schema=str(settings.get("schema") or ""),
        )
    if adapter == "postgres":
        return _write(
            out_dir,
            profile_name,
            target_name,
            adapter,
            settings,
            threads,
            user_location=f"{settings.get('dbname') or settings.get('database')}.{settings.get('schema')}",
            user_schema=str(settings.get("schema") or ""),
            database=str(settings.get("dbname") or settings.get("database") or ""),
        )
    user_location = str(settings.get("path") or ":memory:")
    for attachment in settings.get("attach") or []:
        if not (isinstance(attachment, dict) and attachment.get("read_only")):
            raise Refused(
                f"target {target_name} attaches {attachment!r} writable: a model could write "
                "into it. Attach it with `read_only: true` for the harness (nothing was built)."
            )
    own: dict[str, Any] = {
        "path": "{{ env_var('" + WAREHOUSE_ENV + "') }}",
        # External materializations write files: keep them in the scratch folder too.
        "external_root": "{{ env_var('" + WAREHOUSE_ENV + "') ~ '.external' }}",
        "settings": {
            **_escape_jinja(dict(settings.get("settings") or {})),
            "threads": "{{ env_var('" + THREADS_ENV + "', " + json.dumps(duckdb_threads(settings)) + ") }}",
        },
    }
    settings.update(own)
    return _write(out_dir, profile_name, target_name, adapter, settings, threads, user_location=user_location, own=own)


def duckdb_threads(settings: dict[str, Any]) -> str:
    """The threads a DuckDB target runs with: its `settings` or `config_options`, else DuckDB's
    default on this machine."""
    for group in ("settings", "config_options"):
        value = (settings.get(group) or {}).get("threads")
        if value is not None:
            return str(value)
    import duckdb

    with duckdb.connect(":memory:") as con:
        return str(con.execute("select current_setting('threads')").fetchone()[0])  # type: ignore[index]


def _write(
    out_dir: Path,
    profile_name: str,
    target_name: str,
    adapter: str,
    settings: dict[str, Any],
    threads: int | None,
    *,
    user_location: str,
    user_schema: str = "",
    database: str = "",
    own: dict[str, Any] | None = None,
) -> ScratchProfile:
    """Write the harness's profiles.yml: on a server, the schema becomes each lane's scratch
    schema (SCHEMA_ENV); the user's settings (host, user, password, ...) are kept, literal
    (rendered once already), and the harness's own env_var() values (`own`) added after."""
    if own is None:
        own = {"schema": "{{ env_var('" + SCHEMA_ENV + "') }}"} if adapter != "duckdb" else {}
    written = {**_escape_jinja(dict(settings)), **own}
    if threads is not None:
        written["threads"] = threads
    out_dir.mkdir(parents=True, exist_ok=True)
    profile = {profile_name: {"target": SCRATCH_TARGET, "outputs": {SCRATCH_TARGET: written}}}
    (out_dir / "profiles.yml").write_text(
        "# Written by the rerun-safe harness: the user's target with its location replaced by\n"
        "# a scratch file or schema the harness created. Never edit; deleted with the work folder.\n"
        + yaml.safe_dump(profile, sort_keys=False)
    )
    return ScratchProfile(
        profiles_dir=out_dir,
        profile_name=profile_name,
        user_target=target_name,
        adapter=adapter,
        user_location=user_location,
        settings=settings,
        user_schema=user_schema,
        database=database,
    )


def _escape_jinja(value: Any) -> Any:
    """Rendered values are written back into a file dbt renders again: keep them literal."""
    if isinstance(value, dict):
        return {key: _escape_jinja(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_escape_jinja(item) for item in value]
    if isinstance(value, str) and ("{{" in value or "{%" in value or "{#" in value):
        return "{{ " + json.dumps(value) + " }}"
    return value


@dataclass(frozen=True)
class Misplaced:
    unique_id: str
    location: str


def misplaced_nodes(
    manifest_path: Path,
    adapter: str,
    resource_types: Iterable[str],
    scratch_schema: str = "",
    database: str = "",
) -> list[Misplaced]:
    """Nodes that would be built outside the scratch location: on DuckDB another catalog than
    the scratch file's; on a server another database than the target's, or a schema that is
    neither the scratch schema nor derived from it (`<scratch>_<custom>`)."""
    manifest = json.loads(manifest_path.read_text())
    kinds = set(resource_types)
    expected_database = database
    found: list[Misplaced] = []
    for unique_id, node in manifest.get("nodes", {}).items():
        if node.get("resource_type") not in kinds:
            continue
        config = node.get("config") or {}
        if config.get("materialized") == "ephemeral" or config.get("enabled") is False:
            continue
        database = str(node.get("database") or "")
        schema = str(node.get("schema") or "")
        wrong_catalog = adapter == "duckdb" and database.lower() != DUCKDB_CATALOG
        outside_scratch = adapter != "duckdb" and (
            (adapter != "spark" and database.lower() != expected_database.lower())
            or not (schema == scratch_schema or schema.startswith(scratch_schema + "_"))
        )
        if wrong_catalog or outside_scratch:
            found.append(Misplaced(unique_id, f"{database}.{schema}"))
    return found


MISPLACED_HELP = re.sub(
    r"\s+",
    " ",
    """
    the harness builds into a scratch file or schema it created, and these nodes name another
    database or schema (a `database` config, an attached catalog, a `generate_schema_name`
    that does not derive every schema from the target's): nothing was built. Select them out
    with --exclude, or make their database and schema follow the target.
""",
).strip()


def check_locations(manifest_path: Path, adapter: str, scratch_schema: str = "", database: str = "") -> None:
    misplaced = misplaced_nodes(manifest_path, adapter, ("model", "seed", "snapshot"), scratch_schema, database)
    if misplaced:
        shown = ", ".join(f"{m.unique_id} -> {m.location}" for m in misplaced[:5])
        more = f" (+{len(misplaced) - 5} more)" if len(misplaced) > 5 else ""
        raise Refused(
            f"{len(misplaced)} node(s) would be built outside the scratch warehouse: {shown}{more}; {MISPLACED_HELP}"
        )
