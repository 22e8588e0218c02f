"""One writer on DuckDB, as on a server: a second process waits for the warehouse file, then
builds; after rerun_safe_lock_timeout_seconds it fails with one clear line naming the holder
(rerun_safe_duckdb/writer_lock.py; docs/architecture.md, "Concurrency").

The first writer is a small Python process that holds the DuckDB file (as a running build
does) and writes the holder record a build writes, until the test lets it go: the timing is
then the test's, not dbt's. The warehouse's folder has a quote, spaces and non-ASCII letters.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rerun_safe_duckdb import writer_lock
from tests.pipeline.project import PROJECT_DIR, Pipeline, event

DBT = Path(sys.executable).with_name("dbt")
TRACEBACK_TEXT = ("Traceback", "IOException")

HOLDER = r"""
import sys, duckdb
from rerun_safe_duckdb import writer_lock
path = sys.argv[1]
connection = duckdb.connect(path)
writer_lock.write_holder(path)
print("held", flush=True)
sys.stdin.readline()  # until the test says go
connection.close()
"""


@pytest.fixture
def nasty(tmp_path: Path) -> Pipeline:
    root = tmp_path / "ware 'house\" d\u00e9p\u00f4t"
    root.mkdir()
    pipeline = Pipeline(root)
    pipeline.land("2026-11-01_001_main.csv", [event("A", 10000), event("B", 5000, order_item_id="i2")])
    return pipeline


@pytest.fixture
def holder(nasty: Pipeline) -> Iterator[subprocess.Popen]:
    """Another process holding the pipeline's warehouse file until it reads a line."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(nasty.warehouse)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    yield process
    release(process)


def release(process: subprocess.Popen) -> None:
    if process.poll() is None:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
        process.wait(timeout=30)


def dbt_build(pipeline: Pipeline, **run_vars: object) -> subprocess.Popen:
    """`dbt build` of the pipeline in a process of its own, stdout and stderr together."""
    return subprocess.Popen(
        [
            str(DBT),
            "build",
            "--project-dir",
            str(PROJECT_DIR),
            "--profiles-dir",
            str(PROJECT_DIR),
            "--target-path",
            str(pipeline.target_path),
            "--exclude",
            "resource_type:unit_test",
            "--no-write-json",
            "--vars",
            json.dumps({"landing_path": str(pipeline.landing), **run_vars}),
        ],
        env={**os.environ, "DBT_DUCKDB_PATH": str(pipeline.warehouse)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=pipeline.root,
    )


def test_a_second_writer_waits_for_the_file_then_builds(nasty: Pipeline, holder: subprocess.Popen) -> None:
    build = dbt_build(nasty)
    assert build.stdout is not None
    seen = []
    for line in build.stdout:  # until it says it waits (dbt parses first: a few seconds)
        seen.append(line)
        if "waiting up to 3600 s" in line:
            break
    assert seen and "waiting up to 3600 s" in seen[-1], "".join(seen)
    assert f"pid {holder.pid}" in seen[-1]
    time.sleep(2)
    assert build.poll() is None, "the second writer did not wait"
    released = time.monotonic()
    release(holder)
    rest = build.communicate(timeout=300)[0]
    output = "".join(seen) + rest
    assert build.returncode == 0, output[-3000:]
    assert not [text for text in TRACEBACK_TEXT if text in output], output[-3000:]
    assert time.monotonic() - released < 60
    assert nasty.net_total() == 15000
    assert nasty.query("select status from rerun_safe_runs") == [("success",)]
    record = json.loads(Path(writer_lock.holder_file(str(nasty.warehouse))).read_text())
    assert record["pid"] == build.pid and record["command"].startswith("dbt build")


def test_the_second_writer_gives_up_after_the_timeout_with_a_clear_message(
    nasty: Pipeline,
    holder: subprocess.Popen,
) -> None:
    record = json.loads(Path(writer_lock.holder_file(str(nasty.warehouse))).read_text())
    build = dbt_build(nasty, rerun_safe_lock_timeout_seconds=1)
    output = build.communicate(timeout=300)[0]
    assert build.returncode != 0, output[-3000:]
    assert not [text for text in TRACEBACK_TEXT if text in output], output[-3000:]
    assert (
        f"another run (invocation {record['invocation_id']}, pid {holder.pid}, " in output
        and f"holding it since {record['since']} UTC) holds the warehouse {str(nasty.warehouse)!r}" in output
        and "this run waited 1 s (var rerun_safe_lock_timeout_seconds) and wrote nothing" in output
    ), output[-3000:]
    assert holder.poll() is None  # the holder was never disturbed
    release(holder)
    assert not nasty.query("select table_name from information_schema.tables")  # nothing written


def test_an_in_process_build_goes_through_the_wait_too(nasty: Pipeline, holder: subprocess.Popen) -> None:
    """The harness and the demo run dbt in-process (harness.dbt_invoke.run_dbt): same rule.
    A stale holder record (another pid) is not shown."""
    Path(writer_lock.holder_file(str(nasty.warehouse))).write_text(
        json.dumps({"pid": 1, "invocation_id": "stale-invocation-7"})
    )
    result = nasty.dbt("build", vars={"rerun_safe_lock_timeout_seconds": 0})
    assert not result.success
    message = " ".join(result.messages.values())
    assert f"another process (pid {holder.pid}, " in message and "stale-invocation-7" not in message, message
    assert "this run waited 0 s (var rerun_safe_lock_timeout_seconds)" in message, message
    release(holder)


@pytest.mark.parametrize("bad", [True, None, -1, 86401, 7.5, "1h", "", [3]])
def test_a_bad_timeout_is_refused_naming_the_var(bad: object) -> None:
    with pytest.raises(
        writer_lock.WarehouseLockError, match="var rerun_safe_lock_timeout_seconds must be a whole number"
    ):
        writer_lock.timeout_seconds({"rerun_safe_lock_timeout_seconds": bad})
    assert writer_lock.timeout_seconds({"rerun_safe_lock_timeout_seconds": " 12 "}) == 12
    assert writer_lock.timeout_seconds({}) == 3600


def test_the_wait_polls_until_the_timeout() -> None:
    """acquire's clock, without DuckDB: a lock conflict is retried every POLL_SECONDS until the
    timeout, then refused; any other error is raised at once."""
    now = [0.0]
    conflict = RuntimeError('IO Error: Could not set lock on file "w": Conflicting lock is held in /bin/x (PID 42).')

    def connect(*_: object, **__: object) -> object:
        raise conflict

    def sleep(seconds: float) -> None:
        now[0] += seconds

    with pytest.raises(writer_lock.WarehouseLockError, match=r"pid 42, /bin/x.*waited 3 s"):
        writer_lock.acquire("w-nowhere", {}, 3, connect=connect, clock=lambda: now[0], sleep=sleep)
    assert now[0] == pytest.approx(3.0)
    with pytest.raises(ValueError):
        writer_lock.acquire(
            "w-elsewhere",
            {},
            3,
            connect=lambda *a, **k: (_ for _ in ()).throw(ValueError()),
            clock=lambda: 0.0,
            sleep=sleep,
        )
