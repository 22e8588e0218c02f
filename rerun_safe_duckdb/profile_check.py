"""The profile's env vars are data: checked before DuckDB opens anything.

profiles.yml takes the warehouse file from DBT_DUCKDB_PATH and the memory limit from
DBT_DUCKDB_MEMORY_LIMIT. Any folder works (quotes, spaces, non-ASCII: the path reaches DuckDB as
a Python string, never as SQL). dbt-duckdb names the database after the file name
(`o'neil.duckdb` -> `o'neil`) and pastes that name unescaped into the literals of its catalog
queries; this project replaces those queries with quoted ones (macros/pipeline/duckdb_catalog),
so a `'` in the file name works. A `"` cannot: dbt writes the database between double quotes
without escaping them (dbt-core's BaseRelation), so such a name is refused here, naming the env
var and the path, before anything is opened; a bad memory limit likewise, instead of DuckDB's
error about a SET statement nobody wrote. The Postgres and Spark settings are checked in
profiles.yml itself, as it renders them.
"""
from __future__ import annotations

import os
import re
from typing import Any

PATH_VAR = "DBT_DUCKDB_PATH"
MEMORY_VAR = "DBT_DUCKDB_MEMORY_LIMIT"
# DuckDB's memory_limit: a size with its unit (1000 or 1024 based; DuckDB refuses a bare
# number), a share of RAM, or -1 for none
MEMORY_LIMIT = re.compile(r"\s*(\d+(\.\d+)?\s*(b|bytes|kb|mb|gb|tb|kib|mib|gib|tib|k|m|g|t|%)|-1)\s*", re.IGNORECASE)


class ProfileError(RuntimeError):
    """A setting of the profile cannot be used; dbt-duckdb reports it with this message only."""


def database_name(path: str) -> str:
    """The name DuckDB (and dbt-duckdb) give the database of a file: its name up to the first dot."""
    return os.path.basename(path).lstrip(".").split(".")[0]


def check_profile(path: Any, settings: dict[str, Any] | None) -> None:
    if isinstance(path, str) and path not in ("", ":memory:") and "://" not in path:
        name = database_name(path)
        if '"' in name:
            raise ProfileError(
                f"rerun_safe: env var {PATH_VAR} names a warehouse file whose name holds a double quote ({path!r}): "
                f"dbt-duckdb names the database after the file ({name!r}) and dbt writes it between double quotes "
                "without escaping them. Any folder works, and a file name with ' does; choose a file name "
                "without \" (nothing was written)"
            )
    limit = (settings or {}).get("memory_limit")
    if limit is not None and not MEMORY_LIMIT.fullmatch(str(limit)):
        shown = str(limit) if len(str(limit)) <= 60 else str(limit)[:57] + "..."
        raise ProfileError(
            f"rerun_safe: env var {MEMORY_VAR} must be a size such as 8GB, 512MiB or 75%; got {shown!r}"
        )
