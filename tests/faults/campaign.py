"""The fault campaign's machinery: a warehouse restored to a checkpoint before every fault, a
`dbt build` in a child process that dies at statement N (tests/faults/child.py), seeded kill
points, and the comparison with a clean build.

The scenario (the same on DuckDB and Postgres): 3 generated days with every pathology
(GeneratorConfig(days=3, events_per_day=40, seed=3), as tests/postgres/test_concurrent_builds),
days 1 and 2 built once into the checkpoint, and the faulted build is day 3's build with a
correction of the late rows before day 1 (so the correction log, the late queue and ledger
reversals all move in it). The clean reference is that same build, run once in a child
process with the statement counter on: its statement count is the range the kill points are
drawn from, and its tables are what every repair must give.

Knobs (environment):
- `FAULT_SEED` (default 32): the seed of the kill points; printed, and named on every failure.
- `FAULTS_FULL=1`: the full campaign (`make faults`): FULL_POINTS points per adapter; otherwise
  SHORT_POINTS (the short form inside `make test`).
- `FAULT_POINTS=17,203`: replay exactly these statement numbers (overrides the two above).
"""

from __future__ import annotations

import difflib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline_demo.generate import GeneratorConfig, generate
from tests.pipeline.project import PROJECT_DIR, Pipeline, assert_every_kind, deliveries_by_day, engine_state

SHORT_POINTS = 6
FULL_POINTS = 50
DEFAULT_SEED = 32
CHILD_TIMEOUT_S = 600
CONFIG = GeneratorConfig(days=3, events_per_day=40, seed=3)
# The killed build runs on one thread, so statement N is the same statement in every run of the
# same point (on 2 threads two models interleave and N moves): a point replays exactly.
KILLED_ARGS = ("--threads", "1")

# On Postgres a killed run's lease blocks the next build for rerun_safe_lease_stale_seconds
# (1800 by default, docs/architecture.md "Concurrency": the price of no live session), so every
# build of the Postgres campaign (the clean one too: the same vars, one parse) runs with a short
# stale period, and a bounded wait (the lease is polled every 1 s until it is stale).
POSTGRES_LEASE = {"rerun_safe_lease_stale_seconds": 1, "rerun_safe_lock_timeout_seconds": 60}

# What a build keeps besides engine_state, run stamps left out (as tests/postgres/test_concurrent_builds).
EXTRA_STATE = {
    "copies": "select copy_id, copy_status, row_count, applied_by_correction_id from int_event_copies_classified",
    "staged": "select _row_id, _file_id, invalid_reason, payload_hash from stg_landing__events",
    "corrections": "select correction_id, correct_from, correct_to, mark from int_corrections_recorded",
}


def seed() -> int:
    return int(os.environ.get("FAULT_SEED") or DEFAULT_SEED)


def replayed() -> list[int] | None:
    raw = os.environ.get("FAULT_POINTS", "").strip()
    return [int(p) for p in raw.replace(" ", "").split(",") if p] if raw else None


def point_count() -> int:
    chosen = replayed()
    if chosen is not None:
        return len(chosen)
    return FULL_POINTS if os.environ.get("FAULTS_FULL") == "1" else SHORT_POINTS


def draw_points(total: int, count: int, seed: int, adapter: str) -> list[int]:
    """`count` statement numbers in 1..total, one drawn uniformly in each of `count` equal
    slices (so they spread over the whole run: hooks, inspection, every model, on-run-end)."""
    chosen = replayed()
    if chosen is not None:
        return chosen
    rng = random.Random(f"{seed}:{adapter}")
    return [1 + int((i + rng.random()) * total / count) for i in range(count)]


def bench_points(bench: Bench, adapter: str) -> list[int]:
    """The kill points of this run for `bench` (seeded, or FAULT_POINTS), printed with their
    statements so that a failing point can be read and replayed."""
    drawn = draw_points(len(bench.statements), point_count(), seed(), adapter)
    print(f"\n[faults {adapter}] seed {seed()}, {len(bench.statements)} statements in a clean build; points:")
    for number in drawn:
        print("  " + bench.statement(number))
    return drawn


def state(pipeline: Pipeline) -> dict[str, list[tuple]]:
    """Business tables, quarantine, late queue, ledger (posting ids included), and the copies,
    staged rows and correction log; the run log and the registry tables are not compared."""
    return {
        **engine_state(pipeline),
        **{name: sorted(pipeline.query(sql), key=repr) for name, sql in EXTRA_STATE.items()},
    }


def differences(clean: dict[str, list[tuple]], got: dict[str, list[tuple]], limit: int = 12) -> str:
    """The tables that differ, with rows only in the clean build (-) and only in the repair (+)."""
    out = []
    for name in clean:
        if clean[name] == got.get(name):
            continue
        diff = [
            line
            for line in difflib.unified_diff(
                [repr(r) for r in clean[name]], [repr(r) for r in got.get(name, [])], lineterm="", n=0
            )
            if line[:1] in "+-" and line[:3] not in ("+++", "---")
        ]
        out.append(
            f"{name}: {len(clean[name])} clean rows, {len(got.get(name, []))} after the repair\n  "
            + "\n  ".join(diff[:limit])
            + (f"\n  ... {len(diff) - limit} more" if len(diff) > limit else "")
        )
    return "\n".join(out)


def repair(bench: Bench, what: str) -> None:
    """The next build after a fault; a failure names the fault (seed, point, statement, replay)."""
    try:
        bench.work.build(vars=bench.vars)
    except AssertionError as failed:
        raise AssertionError(f"{bench.adapter}: the build after the fault failed; {what}\n{failed}") from None


def deliveries(folder: Path) -> list[list[Path]]:
    summary = generate(CONFIG, folder)
    assert_every_kind(summary.pathologies)
    days = deliveries_by_day(folder)
    assert len(days) == 3, days
    return days


def day_vars(days: list[list[Path]], index: int) -> dict[str, str]:
    """The last day also records a correction of the late rows before the first day."""
    return {} if index < len(days) - 1 else {"correct_from": "2026-10-01", "correct_to": days[0][0].name[:10]}


@dataclass
class ChildRun:
    returncode: int
    statements: list[str]  # "N<TAB>node<TAB>sql", as the child logged them
    output: str
    paused_at: str = ""
    seconds: float = 0.0

    @property
    def killed(self) -> bool:
        return self.returncode == -signal.SIGKILL

    def last(self) -> str:
        return self.statements[-1] if self.statements else "(no statement)"


@dataclass
class Bench:
    """A warehouse (`work`) that `restore()` puts back to the checkpoint (days 1-2 built), with
    every day landed; the faulted build is day 3's build with its correction."""

    adapter: str
    work: Pipeline
    vars: dict[str, Any]
    restore_fn: Any
    folder: Path
    runs: int = 0
    reference: dict[str, list[tuple]] = field(default_factory=dict)
    statements: list[str] = field(default_factory=list)

    def restore(self) -> None:
        self.restore_fn()

    def argv(self, *extra: str, vars: dict[str, Any] | None = None) -> list[str]:
        work = self.work
        landing = work.landing.relative_to(work.root) if work.shares_parse else work.landing
        argv = [
            "build",
            "--project-dir",
            str(PROJECT_DIR),
            "--profiles-dir",
            str(PROJECT_DIR),
            "--target-path",
            str(work.target_path),
            "--vars",
            json.dumps({"landing_path": str(landing), **(self.vars if vars is None else vars)}),
            "--quiet",
            "--no-write-json",
            "--exclude",
            "resource_type:unit_test",
            *KILLED_ARGS,
            *extra,
        ]
        return argv + (["--target", "postgres"] if self.adapter == "postgres" else [])

    def env(self) -> dict[str, str]:
        env = {
            **os.environ,
            **self.work.dbt_env(),
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            "PYTHONPATH": str(PROJECT_DIR),
        }
        if self.work.shares_parse:
            env["DBT_DUCKDB_PATH"] = str(self.work.warehouse.relative_to(self.work.root))
        for name in ("FAULT_KILL_AFTER", "FAULT_PAUSE_BEFORE", "FAULT_PAUSED", "FAULT_RESUME"):
            env.pop(name, None)
        return env

    def spawn(
        self, *, kill_after: int = 0, pause_before: int = 0, vars: dict[str, Any] | None = None, while_paused=None
    ) -> ChildRun:
        """The build in a child process, killed after statement `kill_after`, or paused before
        statement `pause_before` while `while_paused(child)` runs (then resumed)."""
        self.runs += 1
        run_dir = self.folder / f"child_{self.runs:03d}"
        run_dir.mkdir(parents=True)
        log, paused, resume = run_dir / "statements.tsv", run_dir / "paused", run_dir / "resume"
        env = {**self.env(), "FAULT_STATEMENTS": str(log), "FAULT_PAUSED": str(paused), "FAULT_RESUME": str(resume)}
        if kill_after:
            env["FAULT_KILL_AFTER"] = str(kill_after)
        if pause_before:
            env["FAULT_PAUSE_BEFORE"] = str(pause_before)
        argv = self.argv("--log-path", str(run_dir / "logs"), vars=vars)
        started = time.monotonic()
        with (run_dir / "output.txt").open("wb") as sink:
            child = subprocess.Popen(
                [sys.executable, "-m", "tests.faults.child", json.dumps(argv)],
                cwd=self.work.root,
                env=env,
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
            try:
                paused_at = ""
                if pause_before:
                    deadline = time.monotonic() + CHILD_TIMEOUT_S
                    while not paused.exists() and child.poll() is None and time.monotonic() < deadline:
                        time.sleep(0.05)
                    assert paused.exists(), f"the child never reached statement {pause_before} (exit {child.poll()})"
                    paused_at = paused.read_text().strip()
                    try:
                        while_paused(child)
                    finally:
                        resume.write_text("go")
                child.wait(timeout=CHILD_TIMEOUT_S)
            finally:
                if child.poll() is None:
                    child.kill()
                    child.wait()
        statements = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
        return ChildRun(
            child.returncode,
            statements,
            (run_dir / "output.txt").read_text(errors="replace")[-4000:],
            paused_at,
            time.monotonic() - started,
        )

    def prepare_reference(self) -> None:
        """The clean build of day 3 from the checkpoint, in a child with the counter on."""
        self.restore()
        clean = self.spawn()
        assert clean.returncode == 0, f"the clean child build failed:\n{clean.output}"
        self.statements = clean.statements
        self.reference = state(self.work)
        assert self.reference["ledger"] and self.reference["late"] and self.reference["quarantine"], self.reference

    def statement(self, number: int) -> str:
        return (
            self.statements[number - 1] if 0 < number <= len(self.statements) else f"{number}\t(beyond the clean build)"
        )

    def first(self, node: str, sql_prefix: str, after: int = 0) -> int:
        """The number of the first statement of `node` whose SQL starts with `sql_prefix`."""
        for line in self.statements:
            number, owner, sql = line.split("\t", 2)
            if int(number) > after and owner == node and sql.lower().startswith(sql_prefix.lower()):
                return int(number)
        raise AssertionError(f"no statement of {node} starting with {sql_prefix!r} in the clean build")


def duckdb_bench(root: Path) -> Bench:
    days = deliveries(root / "deliveries")
    checkpoint = Pipeline(root / "checkpoint")
    for index, files in enumerate(days[:-1]):
        checkpoint.deliver(*files)
        checkpoint.build(vars=day_vars(days, index))
    work = Pipeline(root / "work")
    for files in days:
        work.deliver(*files)

    def restore() -> None:
        for leftover in (
            work.warehouse.with_name(work.warehouse.name + ".wal"),
            work.warehouse.with_name(work.warehouse.name + ".holder.json"),
        ):
            leftover.unlink(missing_ok=True)
        shutil.copy2(checkpoint.warehouse, work.warehouse)

    bench = Bench("duckdb", work, day_vars(days, 2), restore, root / "runs")
    bench.prepare_reference()
    return bench


def postgres_bench(root: Path, server) -> Bench:
    """The same scenario on the campaign's own Postgres server (tests/faults/server.py): the
    checkpoint is a database copied by CREATE DATABASE ... TEMPLATE before every fault, under
    the same database and schema names, so dbt's partial parse stays valid across points."""
    from tests.faults.server import CHECKPOINT_DB, WORK_DB
    from tests.postgres.project import PostgresPipeline

    days = deliveries(root / "deliveries")
    work = PostgresPipeline(root / "work", server.server(WORK_DB))
    checkpoint = PostgresPipeline(root / "checkpoint", server.server(WORK_DB))
    checkpoint.schema = work.schema
    for index, files in enumerate(days[:-1]):
        checkpoint.deliver(*files)
        checkpoint.build(vars=day_vars(days, index))
    for files in days:
        work.deliver(*files)
    server.copy_database(WORK_DB, CHECKPOINT_DB)

    def restore() -> None:
        server.copy_database(CHECKPOINT_DB, WORK_DB)

    bench = Bench("postgres", work, {**day_vars(days, 2), **POSTGRES_LEASE}, restore, root / "runs")
    bench.prepare_reference()
    return bench
