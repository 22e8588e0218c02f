"""One `dbt build` in a child process, with a statement counter that can stop it.

The fault campaign (tests/faults) runs dbt here, through dbt's Python API, so that it can die
at an exact SQL statement. Every statement dbt sends goes through
`SQLConnectionManager.add_query` (hooks, the relation cache, the landing inspection, each
model's statements, BEGIN and COMMIT, data tests, on-run-end), on DuckDB and on Postgres, so
that is the one place patched. The harness's `crash` check kills by time, not by statement:
there was no statement-counting kill to reuse.

Environment:

- `FAULT_STATEMENTS`: a file; after each statement returns, one line `N<TAB>node<TAB>sql`
  (line-buffered, so a SIGKILL loses nothing written before it).
- `FAULT_KILL_AFTER=N`: SIGKILL this process as soon as statement N has returned (its effect is
  done: after a COMMIT, the commit). The process gets no chance to clean up.
- `FAULT_PAUSE_BEFORE=N`: before statement N, write `FAULT_PAUSED` (the statement's line) and
  wait until the file `FAULT_RESUME` exists (at most 120 s), then send it: the test does
  something to the server meanwhile (stops it, terminates this backend).

Usage: python -m tests.faults.child '<dbt argv as JSON>'; exit 0 when the build succeeded.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

PAUSE_LIMIT_S = 120.0


def _label(sql: str) -> str:
    body = sql.split("*/", 1)[-1] if sql.lstrip().startswith("/*") else sql
    return " ".join(body.split())[:160]


def install() -> None:
    from dbt.adapters.sql.connections import SQLConnectionManager
    from dbt_common.events.contextvars import get_node_info

    kill_after = int(os.environ.get("FAULT_KILL_AFTER") or 0)
    pause_before = int(os.environ.get("FAULT_PAUSE_BEFORE") or 0)
    log_path = os.environ.get("FAULT_STATEMENTS")
    sink = open(log_path, "a", buffering=1, encoding="utf-8") if log_path else None  # noqa: SIM115
    lock = threading.Lock()
    count = [0]
    original = SQLConnectionManager.add_query

    def add_query(self, sql, *args, **kwargs):
        with lock:
            count[0] += 1
            number = count[0]
        node = get_node_info().get("unique_id") or "-"
        line = f"{number}\t{node}\t{_label(sql)}"
        if number == pause_before:
            Path(os.environ["FAULT_PAUSED"]).write_text(line + "\n", encoding="utf-8")
            resume = Path(os.environ["FAULT_RESUME"])
            deadline = time.monotonic() + PAUSE_LIMIT_S
            while not resume.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        result = original(self, sql, *args, **kwargs)
        if sink is not None:
            sink.write(line + "\n")
        if number == kill_after:
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    SQLConnectionManager.add_query = add_query  # type: ignore[method-assign]  # the fault: every query counted


def main() -> int:
    argv = json.loads(sys.argv[1])
    install()
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke(argv)
    return 0 if result.success else 1


if __name__ == "__main__":
    sys.exit(main())
