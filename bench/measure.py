"""Measuring one process: a subprocess's wall time and peak RSS, a dbt invocation's model, test and
statement times from run_results.json and its JSON debug log, its wall time in phases, and the floor
(bench/floor.py) run the same way."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench.common import DBT, PY, ROOT
from bench.results import Phases, Run

# Runs argv[2:] and writes its peak RSS (KB) to argv[1]. Through this small process, because Linux
# copies the parent's memory high-water mark into a forked child: measured directly, every child
# of this benchmark would report at least this process's own peak (its DuckDB diffs reach GBs).
_PEAK_RSS = (
    "import resource, subprocess, sys; rc = subprocess.call(sys.argv[2:]); "
    "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); "
    "sys.exit(rc)"
)

# dbt threads for every dbt invocation of the benchmark (--threads). 1 by default: DuckDB already
# runs each statement on every core, so two models at once only split the cores and the memory
# limit. Measured on a 10M-event full refresh: wall 133.7 s on 1 thread, 132.4 s on 2, but the
# models' summed execution time 126.8 s vs 145.0 s (each model ran slower while sharing).
DBT_THREADS = 1


@dataclasses.dataclass(frozen=True)
class Process:
    """One finished subprocess: its exit code, wall time, peak RSS (MB) and output file."""

    rc: int
    wall_s: float
    started_at: float
    peak_rss_mb: float
    output: Path
    load_before: float
    load_after: float

    def tail(self, chars: int = 3000) -> str:
        return self.output.read_text()[-chars:] if self.output.exists() else ""


def invoke(cmd: list[str], env: dict[str, str], cwd: Path, out_file: Path) -> Process:
    """Run cmd with its output to out_file: wall time and the peak RSS of the child (and its waited children)."""
    out_file.parent.mkdir(parents=True, exist_ok=True)
    rss_file = out_file.with_suffix(".rss")
    rss_file.unlink(missing_ok=True)
    load0 = os.getloadavg()[0]
    started_at = time.time()
    t0 = time.perf_counter()
    with open(out_file, "w") as fh:
        proc = subprocess.run(
            [PY, "-c", _PEAK_RSS, str(rss_file), *cmd],
            cwd=str(cwd),
            env=env,
            stdout=fh,
            stderr=subprocess.STDOUT,
            check=False,
        )
    wall = time.perf_counter() - t0
    peak_kb = int(rss_file.read_text()) if rss_file.exists() else 0
    return Process(
        rc=proc.returncode,
        wall_s=wall,
        started_at=started_at,
        peak_rss_mb=peak_kb / 1024.0,
        output=out_file,
        load_before=load0,
        load_after=os.getloadavg()[0],
    )


def statement_kind(sql: str) -> str:
    s = re.sub(r"/\*.*?\*/", " ", sql, count=1, flags=re.S).strip().lower()
    s = " ".join(s.split())
    if "rerun_safe_run_log" in s and s.startswith("insert"):
        return "post-hook: run-log metrics"
    if s == "checkpoint":
        return "checkpoint"
    if s.startswith("select case when not ("):
        return "post-hook: balance check"
    if s.startswith(("create temporary table", "create temp table", "create table", "create or replace table")):
        return "build (select into temp/table)"
    if s.startswith(("delete from", "insert into", "merge into", "update")):
        return "apply (delete/insert/merge)"
    if s.startswith(("alter table", "drop ")):
        return "rename/drop"
    return "metadata + other"


def _log_events(log_file: Path) -> Iterator[dict[str, Any]]:
    if not log_file.exists():
        return
    with log_file.open() as fh:
        for line in fh:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                yield event


def statement_breakdown(log_file: Path) -> dict[str, dict[str, float]]:
    """Seconds per (node, statement kind) from dbt's JSON debug log."""
    out: dict[str, dict[str, float]] = {}
    pending: dict[str, tuple[str, str]] = {}
    for event in _log_events(log_file):
        name = event.get("info", {}).get("name")
        thread = event.get("info", {}).get("thread", "")
        if name == "SQLQuery":
            node = event["data"].get("conn_name", "?")
            node = node.split(".")[-1] if node.startswith(("model.", "test.")) else "(run level)"
            pending[thread] = (node, statement_kind(event["data"].get("sql", "")))
        elif name == "SQLQueryStatus" and thread in pending:
            node, kind = pending.pop(thread)
            per = out.setdefault(node, {})
            per[kind] = per.get(kind, 0.0) + float(event["data"].get("elapsed", 0.0))
    return out


# dbt's JSON log events that split a dbt process's wall time into phases (see wall_phases)
PHASE_EVENTS = {
    "MainReportVersion": "first",
    "ConcurrencyLine": "run_start",
    "FinishedRunningStats": "run_end",
    "CommandCompleted": "completed",
}


def wall_phases(log_file: Path, started_at: float, wall_s: float) -> Phases | None:
    """A dbt process's wall time in phases, from its JSON log's timestamps and the wall clock:
    `start` (the process starts and Python imports dbt, up to its first log line), `parse` (up to
    "Concurrency: ..."), `run` (hooks, the adapter's cache, the models: dbt's own elapsed time),
    `artifacts` (run_results.json, manifest, summary lines), `exit` (connections closed, the
    interpreter's shutdown). None without a complete log."""
    seen: dict[str, float] = {}
    full_parse = None
    for event in _log_events(log_file):
        info = event.get("info", {})
        if info.get("name") == "UnableToPartialParse":  # the whole project parsed again, and why
            full_parse = info.get("msg", "").removeprefix("Unable to do partial parsing because ")
        key = PHASE_EVENTS.get(info.get("name", ""))
        if key and key not in seen:
            seen[key] = dt.datetime.fromisoformat(info["ts"].replace("Z", "+00:00")).timestamp()
    if set(seen) != set(PHASE_EVENTS.values()):
        return None
    return Phases(
        start=seen["first"] - started_at,
        parse=seen["run_start"] - seen["first"],
        run=seen["run_end"] - seen["run_start"],
        artifacts=seen["completed"] - seen["run_end"],
        exit=started_at + wall_s - seen["completed"],
        full_parse=full_parse,
    )


class StepFailed(RuntimeError):
    """A measured process exited non-zero: its name, command and the tail of its output."""


def _run_results(target: Path, wall_s: float) -> tuple[dict[str, float], float, int, float, float | None]:
    """(model seconds by name, test seconds, test count, hook seconds, dbt's elapsed) of this run."""
    models: dict[str, float] = {}
    tests = hooks = 0.0
    n_tests = 0
    rr = target / "run_results.json"
    if not (rr.exists() and rr.stat().st_mtime >= time.time() - wall_s - 5):
        return models, tests, n_tests, hooks, None
    data = json.loads(rr.read_text())
    for res in data["results"]:
        uid, t = res["unique_id"], float(res.get("execution_time") or 0.0)
        if uid.startswith("model."):
            models[uid.split(".")[-1]] = t
        elif uid.startswith(("test.", "unit_test.")):
            tests += t
            n_tests += 1
        else:
            hooks += t
    return models, tests, n_tests, hooks, data.get("elapsed_time")


def dbt(
    project: Path, args: list[str], env: dict[str, str], target: Path, logs: Path, vars_: dict[str, str], name: str
) -> Run:
    """One dbt invocation in a subprocess; timings from the wall clock and run_results.json."""
    shutil.rmtree(logs, ignore_errors=True)
    cmd = [
        DBT,
        *args,
        "--threads",
        str(DBT_THREADS),
        "--project-dir",
        str(project),
        "--profiles-dir",
        str(project),
        "--target-path",
        str(target),
        "--log-path",
        str(logs),
        "--log-format-file",
        "json",
        "--vars",
        json.dumps(vars_),
    ]
    p = invoke(cmd, env, project, logs.parent / f"{name}.out")
    if p.rc != 0:
        raise StepFailed(f"{name} failed (rc {p.rc}): {' '.join(cmd)}\n{p.tail()}")
    models, tests, _n, hooks, elapsed = _run_results(target, p.wall_s)
    # start-up + parse: wall minus dbt's own elapsed run time
    overhead = p.wall_s - elapsed if elapsed else p.wall_s - sum(models.values()) - tests - hooks
    return Run(
        wall_s=p.wall_s,
        inside_s=sum(models.values()),
        tests_s=tests,
        hooks_s=hooks,
        dbt_elapsed_s=elapsed,
        overhead_s=overhead,
        peak_rss_mb=p.peak_rss_mb,
        load_before=p.load_before,
        load_after=p.load_after,
        models=models,
        statements=statement_breakdown(logs / "dbt.log"),
        phases=wall_phases(logs / "dbt.log", p.started_at, p.wall_s),
    )


def floor(
    env: dict[str, str],
    out_file: Path,
    db: Path,
    files: list[Path],
    full_from: Path | None = None,
    lateness_h: int = 72,
) -> Run:
    """bench/floor.py in its own process (its peak RSS read like dbt's): the floor on `db`, or with
    `full_from` the one-pass full recompute into a new `db`."""
    extra = ["--full-from", str(full_from)] if full_from else []
    cmd = [PY, "-m", "bench.floor", *extra, "--db", str(db), "--lateness-hours", str(lateness_h), *map(str, files)]
    p = invoke(cmd, env, ROOT, out_file)
    if p.rc != 0:
        raise StepFailed(f"floor failed:\n{p.tail()}")
    got = json.loads(p.output.read_text().strip().splitlines()[-1])
    return Run(
        wall_s=p.wall_s,
        inside_s=got["sql_s"],
        peak_rss_mb=p.peak_rss_mb,
        load_before=p.load_before,
        load_after=p.load_after,
        floor_statements=tuple((str(k), float(v)) for k, v in got["statements"]),
    )


@contextlib.contextmanager
def peak_size(paths: Callable[[], list[Path]], into: dict[str, float], every_s: float = 1.0) -> Iterator[None]:
    """Poll the summed size of `paths()` (files, or folders summed over their files) every `every_s`
    seconds while the block runs; its largest value, in MB, goes to into["mb"]."""
    peak, done = [0], threading.Event()

    def size() -> int:
        total = 0
        for p in paths():
            with contextlib.suppress(OSError):  # a spill file removed while listed
                total += (
                    sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
                    if p.is_dir()
                    else p.stat().st_size
                    if p.exists()
                    else 0
                )
        return total

    def poll() -> None:
        while not done.wait(every_s):
            peak[0] = max(peak[0], size())

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        yield
    finally:
        done.set()
        poller.join()
        into["mb"] = max(peak[0], size()) / 1e6
