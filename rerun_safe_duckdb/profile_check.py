"""The profile's env vars are data: checked before DuckDB opens anything.

profiles.yml takes the warehouse file from DBT_DUCKDB_PATH and the memory limit from
DBT_DUCKDB_MEMORY_LIMIT. Any folder works (quotes, spaces, non-ASCII: the path reaches DuckDB as
a Python string, never as SQL). dbt-duckdb names the database after the file name
(`o'neil.duckdb` -> `o'neil`) and pastes that name unescaped into the literals of its catalog
queries; this project replaces those queries with quoted ones (macros/pipeline/duckdb_catalog),
so a `'` in the file name works. A `"` cannot: dbt writes the database between double quotes
without escaping them (dbt-core's BaseRelation), so such a name is refused here, naming the env
var and the path, before anything is opened; a bad memory limit likewise, instead of DuckDB's
error about a SET statement nobody wrote. A path with a control character (a newline, ESC) is
refused too: it would reach file names and every message that names the warehouse. The Postgres
and Spark settings are checked in profiles.yml itself, as it renders them.

A maintenance operation (`dbt run-operation rerun_safe_upgrade` or `release_warehouse_lease`)
works on a warehouse that exists: on a path where there is none it stops, naming the env var and
the path, before DuckDB's connect would create an empty file there (check_operation_target).
"""

from __future__ import annotations

import os
import re
import unicodedata
from typing import Any

PATH_VAR = "DBT_DUCKDB_PATH"
MEMORY_VAR = "DBT_DUCKDB_MEMORY_LIMIT"
# DuckDB's memory_limit: a size with its unit (1000 or 1024 based; DuckDB refuses a bare
# number), a share of RAM, or -1 for none
MEMORY_LIMIT = re.compile(r"\s*(\d+(\.\d+)?\s*(b|bytes|kb|mb|gb|tb|kib|mib|gib|tib|k|m|g|t|%)|-1)\s*", re.IGNORECASE)


# the project's macros that `dbt run-operation` runs on an existing warehouse
MAINTENANCE_MACROS = frozenset({"rerun_safe_upgrade", "release_warehouse_lease"})


class ProfileError(RuntimeError):
    """A setting of the profile cannot be used; dbt-duckdb reports it with this message only."""


def database_name(path: str) -> str:
    """The name DuckDB (and dbt-duckdb) give the database of a file: its name up to the first dot."""
    return os.path.basename(path).lstrip(".").split(".")[0]


def has_control_character(text: str) -> bool:
    """A C0 or C1 control character, DEL, or a line or paragraph separator."""
    return any(unicodedata.category(char) in ("Cc", "Zl", "Zp") for char in text)


def check_profile(path: Any, settings: dict[str, Any] | None) -> None:
    if isinstance(path, str) and has_control_character(path):
        raise ProfileError(
            f"rerun_safe: env var {PATH_VAR} must be a file path without control characters (a newline, "
            f"a tab, ESC); got {_cut(ascii(path))} (nothing was written)"
        )
    if isinstance(path, str) and path not in ("", ":memory:") and "://" not in path:
        name = database_name(path)
        if '"' in name:
            raise ProfileError(
                f"rerun_safe: env var {PATH_VAR} names a warehouse file whose name holds a double quote ({path!r}): "
                f"dbt-duckdb names the database after the file ({name!r}) and dbt writes it between double quotes "
                "without escaping them. Any folder works, and a file name with ' does; choose a file name "
                'without " (nothing was written)'
            )
    limit = (settings or {}).get("memory_limit")
    if limit is not None and not MEMORY_LIMIT.fullmatch(str(limit)):
        raise ProfileError(
            f"rerun_safe: env var {MEMORY_VAR} must be a size such as 8GB, 512MiB or 75%, or -1 for no limit; "
            f"got {_cut(repr(str(limit)))}"
        )


def _cut(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def invoked_operation() -> str | None:
    """The macro of this invocation when it is `dbt run-operation` (package prefix dropped), else None."""
    try:
        from dbt.flags import get_flags

        flags = get_flags()
    except Exception:  # no flags: not inside a dbt invocation
        return None
    if getattr(flags, "WHICH", None) != "run-operation":
        return None
    macro = getattr(flags, "MACRO", None)
    return str(macro).rsplit(".", 1)[-1] if macro else None


def check_operation_target(path: str) -> None:
    """Refuse a maintenance operation on a path that holds no warehouse: DuckDB's connect would
    create an empty one there."""
    operation = invoked_operation()
    if operation in MAINTENANCE_MACROS and not os.path.exists(path):
        raise ProfileError(
            f"rerun_safe: env var {PATH_VAR} names no warehouse ({_cut(repr(path), 300)} does not exist): "
            f"dbt run-operation {operation} works on an existing warehouse and created nothing; check "
            f"{PATH_VAR} (a first dbt build creates the warehouse)"
        )
