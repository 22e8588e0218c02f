"""What a dbt child process did, read from its own log file (written at info level): how far
a killed build got, and the message that stopped a failed one."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# "3 of 8 START sql table model main.current_events ....... [RUN]"
NODE_LINE = re.compile(r"\]: (\d+) of (\d+) (START|OK|ERROR|PASS|FAIL|WARN|SKIP)\b (.*?)\s*\.{3,}")
LOG_LINE = re.compile(r"^\d{2}:\d{2}:\d{2}\.\d+ \[")


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


def _lines(log_file: Path) -> list[str]:
    if not log_file.exists():
        return []
    return ANSI.sub("", log_file.read_text(errors="replace")).splitlines()


def progress(log_file: Path) -> ChildProgress:
    started: dict[str, str] = {}
    finished: set[str] = set()
    total = 0
    for line in _lines(log_file):
        match = NODE_LINE.search(line)
        if not match or match.group(4).startswith("hook:"):
            continue
        number, total = match.group(1), int(match.group(2))
        if match.group(3) == "START":
            started[number] = match.group(4)
        else:
            finished.add(number)
    running = tuple(what for number, what in started.items() if number not in finished)
    return ChildProgress(total=total, finished=len(finished), running=running)


def error_message(log_file: Path, output: Path | None = None) -> str:
    """The error that stopped the child: dbt's "Encountered an error:" text, else its node
    errors, else the last line of its output; "" when it said nothing."""
    lines = _lines(log_file)
    for index, line in enumerate(lines):
        if "Encountered an error:" in line:
            message = []
            for following in lines[index + 1 :]:
                if LOG_LINE.match(following) or following.startswith("Traceback"):
                    break
                if following.strip():
                    message.append(following.strip())
            if message:
                return " ".join(message)
    errors = [line.split("]: ", 1)[-1].strip() for line in lines if "[error]" in line]
    errors = [error for error in errors if error and not error.startswith("Traceback")]
    if errors:
        return " ".join(errors[:3])
    if output is not None and output.exists():
        tail = [line for line in ANSI.sub("", output.read_text(errors="replace")).splitlines() if line.strip()]
        if tail:
            return tail[-1].strip()
    return ""


# dbt logs this line after parsing, right before it runs hooks and nodes.
EXECUTION_MARKER = "Concurrency: "


def wait_for_execution(log_file: Path, running: Callable[[], bool], poll_s: float = 0.02) -> float | None:
    """Wait until the child logs that it starts executing (hooks and nodes, after start-up and
    parsing); return that moment (time.monotonic), or None when the child exited first."""
    offset = 0
    pending = ""
    while True:
        alive = running()
        if log_file.exists():
            with log_file.open("r", errors="replace") as handle:
                handle.seek(offset)
                chunk = handle.read()
                offset = handle.tell()
            pending += chunk
            if EXECUTION_MARKER in pending:
                return time.monotonic()
            pending = pending[-len(EXECUTION_MARKER) :]
        if not alive:
            return None
        time.sleep(poll_s)
