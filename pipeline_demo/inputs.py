"""The values a user hands `make show`, `make report`, `make demo` and `make land`, and the
warehouse and landing files they touch, checked before anything is read or written.

Make passes its variables to these commands through the environment, never through a shell
command line: the Makefile exports each one as `RERUN_SAFE_MAKE_<NAME>` for the recipe that
reads it, and a command reads that variable only when its own flag was not given. A value
therefore reaches Python byte for byte (spaces, quotes, `;`, `$(...)` are characters), and a
message names what the user typed: the Make variable (`WAREHOUSE`) or the flag (`--warehouse`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import duckdb

MAKE_PREFIX = "RERUN_SAFE_MAKE_"
HOLDER_SUFFIX = ".holder.json"
HOLDER_MAX_BYTES = 4096
_LOCK_ERROR = "Could not set lock on file"
_HOLDER_PID = re.compile(r"\(PID (\d+)\)")


class InputError(Exception):
    """A bad value or file: the message names it (a Make variable or a flag) and says what is
    wrong, in one line."""


@dataclasses.dataclass(frozen=True)
class Value:
    """A value and the name the user knows it by (a Make variable or a flag)."""

    text: str
    name: str


def resolve(given: object, flag: str, make_name: str, default: str) -> Value:
    """The flag's value when given; else the Make variable's (exported by the Makefile as
    RERUN_SAFE_MAKE_<make_name>); else the default (named by the flag)."""
    if given is not None:
        return Value(str(given), flag)
    from_make = os.environ.get(MAKE_PREFIX + make_name)
    if from_make is not None:
        return Value(from_make, make_name)
    return Value(default, flag)


def shown(text: object, limit: int = 200) -> str:
    """A value fit for one line of a message: quoted, control characters escaped, cut."""
    value = str(text)
    escaped = "".join(
        c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}" for c in value
    )
    return "'" + escaped[:limit] + ("..." if len(escaped) > limit else "") + "'"


def one_line(text: object) -> str:
    """The first line of an error, without control characters."""
    first = str(text).strip().splitlines()[0] if str(text).strip() else str(text)
    return "".join(c if c.isprintable() else " " for c in first)


def file_digest(path: Path) -> str | None:
    """The SHA-256 of a regular file's bytes (never following a symlink); None for anything else."""
    try:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        descriptor = os.open(path, flags)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        digest = hashlib.sha256()
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def same_content(landed: Path, delivery: Path) -> bool:
    """True only when `landed` is a regular file (not a link) whose bytes equal the delivery's."""
    if landed.is_symlink():
        return False
    mine = file_digest(landed)
    return mine is not None and mine == file_digest(delivery)


def warehouse_file(value: Value) -> Path:
    """An existing regular file; never created."""
    if not value.text.strip():
        raise InputError(f"{value.name} is empty: give the path of a DuckDB file")
    if any(not c.isprintable() for c in value.text):
        raise InputError(f"{value.name} {shown(value.text)}: a path without control characters")
    path = Path(value.text)
    if not path.exists():
        raise InputError(
            f"{value.name} {shown(value.text)}: no such file (nothing was created). `make demo` builds the demo's, "
            "target/demo/rerun_safe.duckdb; or point WAREHOUSE= at a DuckDB file a dbt build of this project wrote"
        )
    if not path.is_file():
        raise InputError(f"{value.name} {shown(value.text)}: not a file (a DuckDB database is one file)")
    return path


def read_holder(warehouse: Path, pid: int | None) -> dict[str, Any] | None:
    """The holder record beside the warehouse (`<warehouse>.holder.json`, written by the DuckDB
    plugin's writer lock) when it is a small regular file naming `pid`; read without following a
    link or blocking on a FIFO. Information only: anything else gives None."""
    if pid is None:
        return None
    path = str(warehouse) + HOLDER_SUFFIX
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        with os.fdopen(descriptor, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            data = handle.read(HOLDER_MAX_BYTES + 1)
        if len(data) > HOLDER_MAX_BYTES:
            return None
        record = json.loads(data)
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("pid") != pid:
        return None
    return record


def holder_text(warehouse: Path, error: BaseException) -> str | None:
    """Who holds the warehouse, when `error` is DuckDB's lock conflict; else None."""
    text = str(error)
    if _LOCK_ERROR not in text:
        return None
    found = _HOLDER_PID.search(text)
    pid = int(found.group(1)) if found else None
    record = read_holder(warehouse, pid)
    if record:
        command = shown(record.get("command"), 120)
        since = shown(record.get("since"), 40)
        return f"a build holds it (pid {pid}, {command}, since {since} UTC)"
    return f"a build holds it (pid {pid})" if pid is not None else "a build holds it"


def connect_read_only(warehouse: Path, name: str, command: str) -> duckdb.DuckDBPyConnection:
    """A read-only connection; a lock conflict or a file DuckDB cannot read is one line."""
    try:
        return duckdb.connect(str(warehouse), read_only=True)
    except duckdb.Error as exc:
        held = holder_text(warehouse, exc)
        if held is not None:
            raise InputError(
                f"{name} {shown(warehouse)}: {held}; DuckDB lets no other process read it meanwhile. "
                f"Run {command} again when the build has finished"
            ) from exc
        raise InputError(f"{name} {shown(warehouse)}: DuckDB cannot open it read-only ({one_line(exc)})") from exc
