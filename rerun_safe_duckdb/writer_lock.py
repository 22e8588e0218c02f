"""One writer on DuckDB, as on a server: a second process waits for the warehouse file.

DuckDB lets one process open a database file for writing. dbt-duckdb opens it at a build's
first query (`duckdb.connect` in its Environment.initialize_db) and keeps it to the end, so a
second build on the same file used to die at once with a raw `_duckdb.IOException: Could not
set lock on file` traceback. Its `retries: {connect_attempts: N}` profile option waits 1, 2, 4,
... s (no way to wait a given number of seconds), retries any IOException, and still ends with
the raw traceback.

This module waits instead, in the plugin hook dbt-duckdb calls just before that connect
(`update_connection_config`): it opens the file itself, polling every POLL_SECONDS while
another process holds it, up to var rerun_safe_lock_timeout_seconds (the lease's var, same
rule and default as macros/config/lock_timeout_seconds.sql: a whole number 0-86400, default 3600).
When it gets the file it keeps that connection open until dbt-duckdb's own connect has been
made (DuckDB gives a second connection to a file this process already holds, with the same
configuration, without another lock), so no other process can slip in between. When time is
up it fails with one clear line (no traceback: dbt-duckdb turns a RuntimeError raised while
connecting into a connection error) naming the process that holds the file.

Once it holds the file, and before it records itself as the holder, it checks that the file is
whole (whole_file.py: a truncated warehouse fails here, naming it, before any node runs); a
connect that fails because DuckDB read past the end of the file gets the same message.

Who holds it: DuckDB's error names the holding PID. The holder writes, beside the warehouse,
`<warehouse>.holder.json` (invocation id, pid, command, since when) once it holds the file;
a waiter shows it only when its pid is the PID DuckDB names. It is information only, not
progress and not data: missing, unreadable or stale, it changes nothing but the message.

The holder file is written and read as untrusted (docs/bad-input.md, "The writer lock and its
holder file"). Written: into a new file of a random name (tempfile.mkstemp: created exclusive,
never through a link, mode 0600, since the command line may hold secrets in --vars), then
renamed over the holder file; a holder file that is a symlink or anything else but a regular
file is left alone and no record is written. Read: opened without following a link and
without blocking (a FIFO), used only when it is a regular file of at most MAX_HOLDER_BYTES,
and every value shown with its control characters replaced and cut to a bounded length.

A waiter says once that it waits and for whom: through dbt's log, and on stderr when dbt's
console would not show it (`--quiet`, as `make show` runs `dbt show`, or a log level above info).

The var is a dbt var, read from the invocation's --vars (dbt's flags: the same for the CLI and
an in-process dbtRunner). A value set only in dbt_project.yml's vars is not seen here (the
project declares none; profiles are rendered without project vars too).
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from rerun_safe_duckdb.profile_check import check_operation_target, check_profile
from rerun_safe_duckdb.whole_file import WarehouseDamagedError, check_whole, damaged_message, is_cut_error

VAR = "rerun_safe_lock_timeout_seconds"
DEFAULT_TIMEOUT_SECONDS = 3600
MAX_TIMEOUT_SECONDS = 86400
POLL_SECONDS = 0.5
HOLDER_SUFFIX = ".holder.json"
MAX_HOLDER_BYTES = 64 * 1024  # a record is ~500 bytes; a bigger file is not one
# the most of each holder value a message shows (a command line can be of any length)
SHOWN_COMMAND_CHARS = 200
SHOWN_VALUE_CHARS = 64

_LOCK_ERROR = "Could not set lock on file"
_HOLDER_PID = re.compile(r"Conflicting lock is held in (?P<program>.*?) \(PID (?P<pid>\d+)\)")


class WarehouseLockError(RuntimeError):
    """A run could not get the warehouse file, or its var is bad. A RuntimeError, so that
    dbt-duckdb reports it as a connection error with this message only."""


def config_error(value: Any) -> WarehouseLockError:
    shown = str(value)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return WarehouseLockError(
        f"rerun_safe: var {VAR} must be a whole number from 0 to {MAX_TIMEOUT_SECONDS}; got {shown}"
    )


def timeout_seconds(run_vars: Any) -> int:
    """The var's value from a --vars mapping, by the rule of the macro
    whole_number_var: an int or a string of digits (not a bool, not 7.5), 0 to 86400."""
    if not isinstance(run_vars, dict) or VAR not in run_vars:
        return DEFAULT_TIMEOUT_SECONDS
    value = run_vars[VAR]
    if isinstance(value, bool) or value is None:
        raise config_error(value)
    if isinstance(value, int):
        parsed = value
    elif isinstance(value, float) and value.is_integer():
        parsed = int(value)
    elif isinstance(value, str) and re.fullmatch(r"[0-9]{1,18}", value.strip()):
        parsed = int(value.strip())
    else:
        raise config_error(value)
    if not 0 <= parsed <= MAX_TIMEOUT_SECONDS:
        raise config_error(value)
    return parsed


def invocation_vars() -> dict[str, Any]:
    """This dbt invocation's --vars (empty outside dbt)."""
    try:
        from dbt.flags import get_flags

        found = getattr(get_flags(), "VARS", None)
    except Exception:  # no flags: not inside a dbt invocation
        return {}
    return found if isinstance(found, dict) else {}


def _invocation_id() -> str:
    try:
        from dbt_common.invocation import get_invocation_id

        return str(get_invocation_id())
    except Exception:
        return ""


def _command() -> str:
    """The command line of this process when it is dbt's CLI; otherwise dbt's subcommand."""
    program = os.path.basename(sys.argv[0]) if sys.argv else ""
    if program == "dbt":
        command = " ".join(["dbt", *sys.argv[1:]])
    else:
        try:
            from dbt.flags import get_flags

            which = getattr(get_flags(), "WHICH", None)
        except Exception:
            which = None
        command = f"dbt {which} (in-process, in {program or 'python'})" if which else (program or "python")
    return command if len(command) <= 300 else command[:297] + "..."


def is_local_file(path: Any) -> bool:
    text = str(path or "")
    return bool(text) and text != ":memory:" and not text.startswith(("md:", "motherduck:")) and "://" not in text


def holder_file(path: str) -> str:
    """The sidecar's name: the warehouse's own name, literally, plus HOLDER_SUFFIX."""
    return os.fspath(path) + HOLDER_SUFFIX


def shown(value: Any, limit: int = SHOWN_VALUE_CHARS) -> str:
    """`value` as one safe line for a terminal: every character that is not printable (control
    characters: newlines, ESC, C1; format characters; line separators) becomes `?`, and the
    text is cut to `limit` characters."""
    text = "".join(char if char.isprintable() else "?" for char in str(value))
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


def _is_other_than_a_file(path: str) -> bool:
    """True when something that is not a regular file (a symlink, a FIFO, a folder) has the name."""
    try:
        return not stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False
    except OSError:
        return True


def write_holder(path: str) -> None:
    """Record who holds the warehouse (best effort: a failure only makes waiters' messages
    shorter). Written to a new temporary file and renamed, so a reader never sees half a file."""
    record = {
        "invocation_id": _invocation_id(),
        "pid": os.getpid(),
        "command": _command(),
        "since": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S"),
    }
    target = holder_file(path)
    if _is_other_than_a_file(target):
        announce(
            f"{shown(target, 300)} is not a regular file (a symlink?): left alone, and no record of this "
            "run is written (waiters will not see who holds the warehouse)"
        )
        return
    folder, name = os.path.split(target)
    try:
        # exclusive, never through a link, mode 0600
        descriptor, temporary = tempfile.mkstemp(prefix=name + ".", suffix=".tmp", dir=folder or ".")
    except OSError:
        return
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(record, handle)
        os.replace(temporary, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _read_small_file(name: str) -> bytes | None:
    """The bytes of `name` when it is a regular file of at most MAX_HOLDER_BYTES; None for a
    link (never followed), a FIFO or device (never waited on), a folder, or a bigger file."""
    try:
        descriptor = os.open(name, _READ_FLAGS)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        data = os.read(descriptor, MAX_HOLDER_BYTES + 1)  # one read: a regular file gives all it has
    except OSError:
        return None
    finally:
        os.close(descriptor)
    return data if len(data) <= MAX_HOLDER_BYTES else None


def read_holder(path: str, pid: int | None) -> dict[str, Any] | None:
    """The sidecar when it names `pid` (the process DuckDB says holds the file), else None."""
    if pid is None:
        return None
    data = _read_small_file(holder_file(path))
    if data is None:
        return None
    try:
        record = json.loads(data.decode("utf-8"))
    except ValueError:
        return None
    if not isinstance(record, dict) or type(record.get("pid")) is not int or record["pid"] != pid:
        return None  # stale: written by an earlier holder
    return record


def _conflict(error: BaseException) -> tuple[int | None, str] | None:
    """(holder pid, holder program) when `error` is DuckDB's lock conflict, else None."""
    text = str(error)
    if _LOCK_ERROR not in text:
        return None
    found = _HOLDER_PID.search(text)
    if not found:
        return None, ""
    return int(found.group("pid")), found.group("program")


def _describe(path: str, pid: int | None, program: str) -> str:
    record = read_holder(path, pid)
    if record:
        parts = [
            f"invocation {shown(record.get('invocation_id') or 'unknown')}",
            f"pid {pid}",
            f"`{shown(record.get('command'), SHOWN_COMMAND_CHARS)}`",
            f"holding it since {shown(record.get('since'))} UTC",
        ]
        return "another run (" + ", ".join(parts) + ")"
    if pid is not None:
        return f"another process (pid {pid}, {shown(program) or 'unknown program'}; no record of its run)"
    return "another process"


def held_message(path: str, pid: int | None, program: str, timeout: int) -> str:
    stop = f"process {pid}" if pid is not None else "that process"
    return (
        f"rerun_safe: {_describe(path, pid, program)} holds the warehouse {path!r} (DuckDB: one writer "
        f"per file); this run waited {timeout} s (var {VAR}) and wrote nothing. Run again when that run "
        f"has finished, or wait longer with --vars '{{{VAR}: <seconds>}}'. DuckDB frees the file when its "
        f"process ends: if {stop} is hung, stop it first."
    )


def _log(message: str) -> None:
    try:
        from dbt.adapters.events.logging import AdapterLogger

        AdapterLogger("rerun_safe").info(message)
    except Exception:  # logging is a courtesy
        pass


def console_shows_info() -> bool:
    """Whether dbt's console prints an info line of this invocation: not under --quiet (which
    shows errors only), --log-level warn, error or none, nor outside a dbt invocation."""
    try:
        from dbt.flags import get_flags

        flags = get_flags()
    except Exception:  # no flags: not inside a dbt invocation
        return False
    level = str(getattr(flags, "LOG_LEVEL", "info") or "info").lower()
    return not getattr(flags, "QUIET", False) and level in ("debug", "info")


def announce(message: str) -> None:
    """One line to whoever runs this process: dbt's log, and stderr when dbt's console hides it."""
    _log(message)  # the logger prefixes "rerun_safe adapter: "
    if not console_shows_info():
        try:
            sys.stderr.write(f"rerun_safe: {message}\n")
            sys.stderr.flush()
        except Exception:  # a closed stderr: nothing more to tell
            pass


def acquire(
    path: str,
    config: dict[str, Any],
    timeout: int,
    *,
    connect: Callable[..., Any] | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Any:
    """A connection to `path` (writable, with `config`), waiting up to `timeout` seconds while
    another process holds the file. Raises WarehouseLockError when time is up; any other
    error of the connect is raised as it is."""
    if connect is None:
        import duckdb

        connect = duckdb.connect
    deadline = clock() + timeout
    announced = False
    while True:
        try:
            return connect(path, read_only=False, config=dict(config))
        except Exception as error:  # only the lock conflict (and a cut file) is ours
            if is_cut_error(error):  # DuckDB read past the end while opening it
                raise WarehouseDamagedError(damaged_message(path, f"DuckDB could not open it ({error})")) from None
            conflict = _conflict(error)
            if conflict is None:
                raise
            pid, program = conflict
        remaining = deadline - clock()
        if remaining <= 0:
            raise WarehouseLockError(held_message(path, pid, program, timeout)) from None
        if not announced:
            announce(
                f"{_describe(path, pid, program)} holds the warehouse {path!r}; "
                f"waiting up to {timeout} s for it (var {VAR})"
            )
            announced = True
        sleep(min(POLL_SECONDS, remaining))


class OneWriter:
    """The plugin's half that waits for the warehouse file (mixed into rerun_safe_duckdb.Plugin)."""

    _held_until_connected: Any = None

    def update_connection_config(self, creds: Any, config: dict[str, Any]) -> None:
        self._release_held()
        path = getattr(creds, "path", None)
        check_profile(path, getattr(creds, "settings", None))  # the env vars, before the file is opened
        if not is_local_file(path) or getattr(creds, "is_motherduck", False):
            return
        check_operation_target(str(path))  # a maintenance operation never creates a warehouse
        timeout = timeout_seconds(invocation_vars())
        self._held_until_connected = acquire(str(path), config, timeout)
        try:
            check_whole(self._held_until_connected, str(path))  # a cut file fails here, before any node
        except BaseException:
            self._release_held()
            raise
        write_holder(str(path))

    def configure_cursor(self, cursor: Any) -> None:
        # dbt-duckdb's own connect has been made (a cursor of it is being set up): it holds the
        # file now, so the connection that waited for it can go.
        self._release_held()

    def _release_held(self) -> None:
        held, self._held_until_connected = self._held_until_connected, None
        if held is not None:
            with contextlib.suppress(Exception):  # dbt-duckdb's connection keeps the file
                held.close()
