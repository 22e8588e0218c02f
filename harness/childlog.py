"""What a dbt child process did, read from its own log file: how far a killed build got, and
the message that stopped a failed one.

The file is dbt's structured log (`--log-format-file json`, which `dbt_invoke.build_args`
always passes): one JSON object a line, `{"info": {"name", "level", "msg", ...}, "data":
{...}}`, its event names and fields those of dbt's event types (dbt/events/types.py,
dbt-protos' core_types.proto). The harness reads the events' names and data fields, never the
wording of dbt's human-readable lines."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import ChildLogError

ANSI = re.compile(r"\x1b\[[0-9;]*m")

# A node starts: data.index of data.total, data.description "sql table model main.x".
START_EVENT = "LogStartLine"
# A node ends (its result line: ok, error, pass, fail, warn, skip, no-op): data.index.
# Hooks have their own events (LogHookStartLine, LogHookEndLine) and are not nodes here.
RESULT_EVENTS = frozenset(
    {
        "LogModelResult",
        "LogSeedResult",
        "LogSnapshotResult",
        "LogTestResult",
        "LogFreshnessResult",
        "LogFunctionResult",
        "LogNodeResult",
        "LogNodeNoOpResult",
        "SkippingDetails",
        "LogSkipBecauseError",
    }
)
# dbt stopped on an exception ("Encountered an error:"): data.exc is its message.
ERROR_EVENT = "MainEncounteredError"
STACK_TRACE_EVENT = "MainStackTrace"
# dbt logs this event after parsing, right before it runs hooks and nodes.
EXECUTION_EVENT = "ConcurrencyLine"


def _event(line: str, log_file: Path, number: int) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except ValueError:
        record = None
    if not isinstance(record, dict) or not isinstance(record.get("info"), dict):
        raise ChildLogError(
            f"{log_file} line {number} is not one of dbt's JSON log events (the harness runs dbt with "
            f"--log-format-file json and reads nothing else): {line[:120]!r}"
        )
    if not isinstance(record.get("data"), dict):
        record["data"] = {}
    return record


def events(log_file: Path) -> Iterator[dict[str, Any]]:
    """The events of a child's JSON log, in order; none when the file does not exist (the child
    died before dbt set up its logging). A last line without its newline is one the child was
    writing when it was killed: left out."""
    if not log_file.exists():
        return
    text = log_file.read_text(errors="replace")
    complete = text.split("\n")[:-1]  # after the last "\n": "" or a line cut short
    for number, line in enumerate(complete, start=1):
        if line.strip():
            yield _event(line, log_file, number)


def _name(event: dict[str, Any]) -> str:
    return str(event["info"].get("name", ""))


def _message(event: dict[str, Any]) -> str:
    """The event's message on one line, without colour codes."""
    return " ".join(ANSI.sub("", str(event["info"].get("msg") or "")).split())


@dataclass(frozen=True)
class ChildProgress:
    total: int  # nodes the build was to run (0: it never got to running nodes)
    finished: int
    running: tuple[str, ...]  # started, not finished: "sql table model main.x"

    def describe(self) -> str:
        if not self.total:
            return "before any node started (start-up, parsing or hooks)"
        where = f"during {', '.join(self.running)}" if self.running else "between nodes"
        return f"{where} ({self.finished} of {self.total} nodes done)"


def progress(log_file: Path) -> ChildProgress:
    started: dict[int, str] = {}
    finished: set[int] = set()
    total = 0
    for event in events(log_file):
        name, data = _name(event), event["data"]
        if name == START_EVENT:
            total = int(data.get("total") or 0) or total
            started[int(data.get("index") or 0)] = str(data.get("description", ""))
        elif name in RESULT_EVENTS and "index" in data:
            finished.add(int(data["index"]))
            # LogTestResult names the total num_models
            total = int(data.get("total") or data.get("num_models") or 0) or total
    running = tuple(what for index, what in started.items() if index not in finished)
    return ChildProgress(total=total, finished=len(finished), running=running)


def error_message(log_file: Path, output: Path | None = None) -> str:
    """The error that stopped the child: dbt's exception (MainEncounteredError), else its
    error-level events (node errors, test failures), else the last line of its output; ""
    when it said nothing."""
    found = list(events(log_file))
    for event in found:
        if _name(event) == ERROR_EVENT:
            message = " ".join(str(event["data"].get("exc") or "").split())
            if message:
                return message
    errors = [
        _message(event)
        for event in found
        if event["info"].get("level") == "error" and _name(event) != STACK_TRACE_EVENT
    ]
    errors = [error for error in errors if error and not error.startswith("Traceback")]
    if errors:
        return " ".join(errors[:3])
    if output is not None and output.exists():
        tail = [line for line in ANSI.sub("", output.read_text(errors="replace")).splitlines() if line.strip()]
        if tail:
            return tail[-1].strip()
    return ""


def wait_for_execution(log_file: Path, running: Callable[[], bool], poll_s: float = 0.02) -> float | None:
    """Wait until the child logs that it starts executing (hooks and nodes, after start-up and
    parsing: dbt's ConcurrencyLine event); return that moment (time.monotonic), or None when
    the child exited first."""
    offset = 0
    pending = ""
    number = 0
    while True:
        alive = running()
        if log_file.exists():
            with log_file.open("r", errors="replace") as handle:
                handle.seek(offset)
                chunk = handle.read()
                offset = handle.tell()
            pending += chunk
            *complete, pending = pending.split("\n")  # the last piece: a line still being written
            for line in complete:
                number += 1
                if line.strip() and _name(_event(line, log_file, number)) == EXECUTION_EVENT:
                    return time.monotonic()
        if not alive:
            return None
        time.sleep(poll_s)
