"""The DuckDB size sweep: for each history size, one history build, the same held-back batch, the
incremental run against the floor, the full refresh against the one-pass floor, the microbatch peer,
the memory run and the idempotency check, each a measured subprocess (bench/measure.py)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import shutil
from pathlib import Path
from typing import Any

from bench.common import BENCH_NOW, LATENESS_H, LOOKBACK_DAYS, PEER, START, label, link_files, log, remove
from bench.compare import fct_pairs, first_changed_day, idempotency, peer_correctness, scalar, table_diff
from bench.grown import GrownWarehouse, grow
from bench.measure import StepFailed, dbt, floor, peak_size
from bench.results import MemoryRun, PeerCorrect, Repeat, Run, SizeResult, Step
from pipeline_demo.generate import GeneratorConfig, generate


@dataclasses.dataclass(frozen=True)
class Plan:
    """What to run at which size (bench/cli.py builds it from the flags)."""

    out: Path
    batch_events: int
    seed: int
    repeats: int
    history_tests: bool
    idempotency_size: int
    memory_size: int
    memory_limit: str
    peer: bool
    peer_sizes: frozenset[int]
    peer_correct_sizes: frozenset[int]
    full_refresh_sizes: frozenset[int]
    one_pass_sizes: frozenset[int]
    keep: bool = False
    keep_deliveries: bool = False
    grown_size: int = -1  # the size whose history is also grown by runs (bench/grown.py); -1: none
    grown_steps: int = 10


@dataclasses.dataclass
class Size:
    """One size's work folder and what has been measured there so far."""

    n: int
    plan: Plan
    env: dict[str, str]
    project: Path
    fields: dict[str, Any] = dataclasses.field(default_factory=dict)
    runs: dict[Step, Run] = dataclasses.field(default_factory=dict)

    @property
    def work(self) -> Path:
        return self.plan.out / label(self.n)

    @property
    def wh(self) -> Path:
        return self.work / "wh.duckdb"

    @property
    def logs(self) -> Path:
        return self.work / "logs"

    @property
    def ours(self) -> dict[str, str]:
        return dict(self.env, DBT_DUCKDB_PATH=str(self.wh))

    @property
    def vars(self) -> dict[str, str]:
        return {"landing_path": str(self.work / "landing"), "rerun_safe_now": BENCH_NOW}

    def dbt(self, args: list[str], name: str, env: dict[str, str] | None = None) -> Run:
        return dbt(self.project, args, env or self.ours, self.work / "target", self.logs / name, self.vars, name)

    def wipe_warehouses(self) -> None:
        for p in self.work.glob("*.duckdb*"):
            remove(p)


def deliveries(s: Size) -> tuple[list[Path], list[Path], dt.date]:
    """Generate (or reuse) the size's deliveries; land the history: (history files, batch files, batch day)."""
    epd = s.plan.batch_events
    days = max(2, s.n // epd)
    cfg = GeneratorConfig(seed=s.plan.seed, start_date=START, days=days + 1, events_per_day=epd)
    folder = s.work / "deliveries"
    marker = folder / "_config.json"
    key = json.dumps(dataclasses.asdict(cfg), default=str, sort_keys=True)
    s.fields.update(n=s.n, label=label(s.n), days=days, events_per_day=epd, generate_s=None)
    if not (marker.exists() and marker.read_text() == key):
        shutil.rmtree(s.work, ignore_errors=True)
        log(f"{label(s.n)}: generating {days + 1} days x {epd:,} events")
        s.fields["generate_s"] = generate(cfg, folder).elapsed_s
        marker.write_text(key)
    for p in ("landing", "landing_grown", "history"):
        shutil.rmtree(s.work / p, ignore_errors=True)
    s.wipe_warehouses()
    batch_day = START + dt.timedelta(days=days)
    files = sorted(folder.glob("*.csv"))
    history = [f for f in files if f.name[:10] < batch_day.isoformat()]
    batch = [f for f in files if f.name[:10] == batch_day.isoformat()]
    s.fields.update(
        history_files=len(history),
        batch_files=len(batch),
        history_mb=sum(f.stat().st_size for f in history) / 1e6,
        batch_mb=sum(f.stat().st_size for f in batch) / 1e6,
    )
    link_files(history, s.work / "landing")
    link_files(history, s.work / "history")
    return history, batch, batch_day


def memory_run(s: Size, cmd: str) -> MemoryRun:
    """The history build at DuckDB memory_limit `limit`: completed or not, peak RSS, and the peak size
    of DuckDB's spill folder (`<warehouse>.tmp`, polled every half second)."""
    limit = s.plan.memory_limit
    log(f"memory run: dbt {cmd} at memory_limit {limit}")
    spill: dict[str, float] = {}
    try:
        with peak_size(lambda: [Path(f"{s.wh}.tmp")], spill, every_s=0.5):
            r = s.dbt([cmd], "memory_run", dict(s.ours, DBT_DUCKDB_MEMORY_LIMIT=limit))
    except StepFailed as e:
        lines = [ln for ln in str(e).splitlines() if ln.strip()]
        cause = next((ln for ln in lines if "Error" in ln and "Done." not in ln), lines[-1] if lines else "")
        return MemoryRun(limit=limit, completed=False, error=cause.strip()[:300], spill_peak_mb=spill["mb"])
    s.runs[Step.HISTORY_BUILD] = r
    return MemoryRun(
        limit=limit,
        completed=True,
        peak_rss_mb=r.peak_rss_mb,
        wall_s=r.wall_s,
        inside_s=r.inside_s,
        spill_peak_mb=spill["mb"],
    )


def history_build(s: Size) -> None:
    """dbt run (or build) of the history; at --memory-size, the memory run is the history build."""
    cmd = "build" if s.plan.history_tests or s.n == s.plan.idempotency_size else "run"
    s.fields["history_cmd"] = cmd
    log(f"{label(s.n)}: dbt {cmd} (history)")
    if cmd == "run":  # staging joins the reference seeds: load them first
        s.dbt(["seed"], "seed")
    if s.n == s.plan.memory_size:
        mem = s.fields["memory_run"] = memory_run(s, cmd)
        if mem.completed:
            # the memory run's profile is not the incremental run's, and dbt parses the whole project
            # again when the profile changes; a scheduled run follows a run with its own profile,
            # so parse once with it, untimed
            s.dbt(["parse"], "parse")
        else:
            log(f"{label(s.n)}: the build at memory_limit {mem.limit} failed; building at the default limit")
            s.wipe_warehouses()
            s.dbt(["seed"], "seed")
    if Step.HISTORY_BUILD not in s.runs:
        s.runs[Step.HISTORY_BUILD] = s.dbt([cmd], "history")
    s.fields["history_rows"] = scalar(s.wh, "select count(*) from main.stg_landing__events")
    s.fields["history_events"] = scalar(s.wh, "select count(distinct event_id) from main.int_event_copies_classified")


def incremental_and_floor(s: Size, batch: list[Path], grown: GrownWarehouse | None = None) -> None:
    """Land the batch; our incremental run and the floor on the pre-incremental copy (and, with
    `grown`, our incremental run on the history grown by runs), alternately, --repeats times, each
    repeat on fresh copies of the history warehouses; the fastest of each counts."""
    floor_db, pre_db = s.work / "floor.duckdb", s.work / "pre_incremental.duckdb"
    landing = s.work / "landing"
    link_files(batch, landing)
    tries: dict[Step, list[Run]] = {Step.INCREMENTAL: [], Step.FLOOR: []}
    if grown:
        grown.land(batch)
        tries[Step.GROWN_INCREMENTAL] = []
    for i in range(s.plan.repeats):
        suffix = f"_{i + 1}" if i else ""
        if i:
            shutil.copyfile(pre_db, s.wh)
            shutil.copyfile(pre_db, floor_db)
            if grown:
                shutil.copyfile(grown.pre_incremental, grown.wh)
        os.sync()  # the copies' dirty pages (and the first repeat's batch copies) are not written during the timed runs
        log(f"{label(s.n)}: dbt run (incremental, {len(batch)} batch files){f', repeat {i + 1}' if i else ''}")
        tries[Step.INCREMENTAL].append(s.dbt(["run"], f"incremental{suffix}"))
        tries[Step.FLOOR].append(
            floor(
                s.env, s.logs / f"floor{suffix}.out", floor_db, [landing / f.name for f in batch], lateness_h=LATENESS_H
            )
        )
        if grown:
            log(f"{label(s.n)}: dbt run (incremental on the grown history){f', repeat {i + 1}' if i else ''}")
            tries[Step.GROWN_INCREMENTAL].append(grown.dbt(["run"], f"grown_incremental{suffix}"))
    if not s.plan.keep:  # --keep keeps the copies taken before the batch too (with --repeats above 1)
        pre_db.unlink(missing_ok=True)
        if grown:
            grown.pre_incremental.unlink(missing_ok=True)
    if grown:
        s.fields["grown_vs_once"] = table_diff(s.wh, grown.wh, fct_pairs())
        s.fields["grown_registry_runs"] = scalar(grown.wh, "select count(*) from main.rerun_safe_runs")
    for step, runs in tries.items():
        s.runs[step] = min(runs, key=lambda x: x.inside_s or 0.0)
    s.fields["repeats"] = {
        k: tuple(Repeat(inside_s=x.inside_s or 0.0, wall_s=x.wall_s) for x in v) for k, v in tries.items()
    }
    s.fields["batch_rows"] = scalar(
        s.wh,
        "select count(*) from main.stg_landing__events where _loaded_run_seq = "
        "(select max(_loaded_run_seq) from main.stg_landing__events)",
    )
    s.fields["floor_vs_dbt"] = table_diff(s.wh, floor_db, fct_pairs())


def peer_history(s: Size, batch_day: dt.date) -> None:
    """The microbatch peer's history on the same landed files, in month batches."""
    log(f"{label(s.n)}: microbatch peer history")
    start = (START - dt.timedelta(days=LOOKBACK_DAYS + 1)).isoformat()
    s.runs[Step.PEER_HISTORY] = dbt(
        PEER,
        ["run", "--event-time-start", start, "--event-time-end", batch_day.isoformat()],
        dict(s.env, DBT_DUCKDB_PATH=str(s.work / "mb.duckdb")),
        s.work / "mb_target",
        s.logs / "peer_history",
        dict(s.vars, peer_batch_size="month"),
        "peer_history",
    )
    s.fields["peer_history_batches"] = "month"


def peer_runs(s: Size, batch_day: dt.date, correct: bool) -> None:
    """The peer's incremental run (lookback 3) and, where asked, the same run from the same warehouse
    with its window widened to the earliest day whose daily revenue the batch changed (never
    narrower than lookback 3): the narrowest window of that form that can be right."""
    mb_db, correct_db = s.work / "mb.duckdb", s.work / "mb_correct.duckdb"
    if correct:
        shutil.copyfile(mb_db, correct_db)
        os.sync()
    log(f"{label(s.n)}: microbatch peer incremental")
    lookback_start = batch_day - dt.timedelta(days=LOOKBACK_DAYS)
    end = batch_day + dt.timedelta(days=1)
    s.runs[Step.PEER_INCREMENTAL] = dbt(
        PEER,
        ["run", "--event-time-start", lookback_start.isoformat(), "--event-time-end", end.isoformat()],
        dict(s.env, DBT_DUCKDB_PATH=str(mb_db)),
        s.work / "mb_target",
        s.logs / "peer_incremental",
        s.vars,
        "peer_incremental",
    )
    s.fields["peer"] = peer_correctness(s.wh, mb_db, batch_day)
    if not correct:
        return
    first_day = min(first_changed_day(s.wh, correct_db) or lookback_start, lookback_start)
    log(f"{label(s.n)}: microbatch peer incremental, window from {first_day} (equal correctness)")
    s.runs[Step.PEER_CORRECT] = dbt(
        PEER,
        ["run", "--event-time-start", first_day.isoformat(), "--event-time-end", end.isoformat()],
        dict(s.env, DBT_DUCKDB_PATH=str(correct_db)),
        s.work / "mb_correct_target",
        s.logs / "peer_correct",
        s.vars,
        "peer_correct",
    )
    pc = peer_correctness(s.wh, correct_db, batch_day)
    s.fields["peer_correct"] = PeerCorrect(
        window_start=first_day.isoformat(),
        window_days=(end - first_day).days,
        equal=pc.equal,
        diff_rows=pc.diff_rows,
        days_wrong=pc.days_wrong,
    )


def full_refresh(s: Size, files: list[Path], one_pass: bool) -> None:
    """Our full refresh, compared with the incremental result (kept in the floor copy); then, where
    asked, the one-pass floor: the same full recompute by hand, every landed file in one scan."""
    log(f"{label(s.n)}: dbt run --full-refresh")
    s.runs[Step.FULL_REFRESH] = s.dbt(["run", "--full-refresh"], "full_refresh")
    s.fields["full_vs_incremental"] = table_diff(s.wh, s.work / "floor.duckdb", fct_pairs())
    if not one_pass:
        return
    log(f"{label(s.n)}: one-pass floor (full recompute)")
    full_db = s.work / "floor_full.duckdb"
    s.runs[Step.FLOOR_FULL] = floor(
        s.env,
        s.logs / "floor_full.out",
        full_db,
        [s.work / "landing" / f.name for f in files],
        full_from=s.wh,
        lateness_h=LATENESS_H,
    )
    s.fields["full_vs_floor_full"] = table_diff(s.wh, full_db, fct_pairs())


def cleanup(s: Size) -> None:
    """The size's warehouses and landing folders go unless --keep (the deliveries unless --keep-deliveries)."""
    if s.plan.keep:
        return
    s.wipe_warehouses()
    for folder in ("landing", "landing_grown", "history", "idem") + (() if s.plan.keep_deliveries else ("deliveries",)):
        shutil.rmtree(s.work / folder, ignore_errors=True)


def bench_size(n: int, plan: Plan, env: dict[str, str], project: Path) -> SizeResult:
    """Every step at one history size (see the module docstring), in order."""
    s = Size(n, plan, env, project)
    history, batch, batch_day = deliveries(s)
    history_build(s)
    shutil.copyfile(s.wh, s.work / "floor.duckdb")
    if plan.repeats > 1:
        shutil.copyfile(s.wh, s.work / "pre_incremental.duckdb")
    grown = GrownWarehouse(project, env, s.work) if n == plan.grown_size else None
    if grown:
        s.runs[Step.GROWN_HISTORY] = grow(grown, history, plan.grown_steps, n)
        s.fields["grown_steps"] = plan.grown_steps
        if plan.repeats > 1:
            shutil.copyfile(grown.wh, grown.pre_incremental)
    peer = plan.peer and n in plan.peer_sizes
    if peer:
        peer_history(s, batch_day)
    incremental_and_floor(s, batch, grown)
    if peer:
        peer_runs(s, batch_day, correct=n in plan.peer_correct_sizes)
    if n in plan.full_refresh_sizes:
        full_refresh(s, history + batch, one_pass=n in plan.one_pass_sizes)
    else:
        log(f"{label(n)}: no full refresh at this size (--full-refresh-sizes)")
    if n == plan.idempotency_size:
        s.fields["idempotency"] = idempotency(s.work / "history", s.work, env, project)
    cleanup(s)
    return SizeResult(runs=dict(s.runs), **s.fields)
