"""One large history, measured: `make bench-large` (100M events unless --size says otherwise).

    .venv/bin/python -m bench large                      # 100M events, docs/benchmarks-large.md
    .venv/bin/python -m bench large --size 50M           # a size this machine's disk holds
    .venv/bin/python -m bench large --size 300k --batch-events 20000 --out /tmp/bl --doc /tmp/bl/bl.md  # smoke

Checks the per-row prediction of `make bench` (docs/benchmarks.md, section "Per history row"),
which fits a line to the sizes of docs/benchmarks.results.json, against one measurement at a larger
history. The same deliveries as the size sweep (pipeline_demo.generate, seed 7, `--batch-events` a
day, the last day held back as the batch), and the same dbt steps, each a subprocess timed by
bench/measure.py's dbt(): `dbt seed`, `dbt run` of the history (a full build from an empty warehouse; the size of
DuckDB's spill folder polled), land the batch, `dbt run` (t_inc). No floor (it works on a copy of
the warehouse, as large again), no full refresh, no peer.

Before it writes anything it checks the disk: the landing files (LANDING_BYTES_PER_EVENT), and the
largest sum of the warehouse and DuckDB's spill folder during the build (PEAK_BYTES_PER_EVENT),
both measured in an earlier run, must fit in the free space of `--out`'s file system. A history
whose one build does not fit is built in steps, as a warehouse grows in use: the first `dbt run`
builds the first days from empty, each next one lands the next days and runs incrementally
(`--steps`, by default the fewest up to MAX_STEPS that fit: the last step needs the warehouse as it
stands, WAREHOUSE_BYTES_PER_EVENT, plus its own build's peak). A size that fits in no number of
steps is refused with the figures (exit status 2), before any file is generated. The run then
records the sizes it really used. The disk decides the steps, not memory: at 100M, 5 steps of 20M
events each complete at memory_limit 8GB (spill at most 12.1 GB), each incremental step folding as
many events as a fifth of the history (docs/benchmarks-large.md).
Nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import shutil
import sys
import time
from pathlib import Path

from bench.common import (
    BENCH,
    BENCH_NOW,
    ROOT,
    START,
    bench_env,
    label,
    link_files,
    log,
    machine,
    parse_size,
    remove,
    snapshot_project,
    step_days,
)
from bench.compare import scalar
from bench.disk import MAX_STEPS, DiskPlan, disk_plan
from bench.measure import StepFailed, dbt, peak_size
from bench.per_row import per_row_cost
from bench.records import LargeResults, LargeStep, Prediction
from bench.results import Machine, Results, Run, Step, load, save
from bench.tables import fmt, phase_table
from pipeline_demo.generate import GeneratorConfig, generate


def predictions(reference: Path, events: int) -> tuple[Prediction, ...]:
    """Each measure of the reference results' per-row line (bench/per_row.py) at `events`."""
    sizes = load(Results, reference).sizes
    return tuple(
        Prediction(r.name, r.a, r.b, tuple(n for n, _t in r.points), r.at(events)) for r in per_row_cost(sizes)
    )


def generator_config(a: argparse.Namespace) -> tuple[GeneratorConfig, str]:
    """The deliveries of this size (the history's days and one batch day) and their key, which the
    work folder's deliveries/_config.json holds when they were generated before."""
    days = max(2, a.size // a.batch_events)
    cfg = GeneratorConfig(seed=a.seed, start_date=START, days=days + 1, events_per_day=a.batch_events)
    return cfg, json.dumps(dataclasses.asdict(cfg), default=str, sort_keys=True)


def reusable_bytes(a: argparse.Namespace, work: Path) -> int:
    """Bytes of deliveries already generated in `work` for this very configuration (kept and reused)."""
    marker = work / "deliveries" / "_config.json"
    if not (marker.exists() and marker.read_text() == generator_config(a)[1]):
        return 0
    return sum(f.stat().st_size for f in marker.parent.glob("*.csv"))


@dataclasses.dataclass(frozen=True)
class Deliveries:
    history: list[Path]
    batch: list[Path]
    days: int
    generate_s: float | None


def deliveries(a: argparse.Namespace, work: Path) -> Deliveries:
    """Generate (or reuse) the size's deliveries: the history's days and the batch day."""
    cfg, cfg_key = generator_config(a)
    days = cfg.days - 1
    folder, marker = work / "deliveries", work / "deliveries" / "_config.json"
    generate_s = None
    if not (marker.exists() and marker.read_text() == cfg_key):
        shutil.rmtree(work, ignore_errors=True)
        log(f"{label(a.size)}: generating {days + 1} days x {a.batch_events:,} events")
        generate_s = generate(cfg, folder).elapsed_s
        marker.write_text(cfg_key)
    else:
        log(f"{label(a.size)}: reusing deliveries in {folder}")
    shutil.rmtree(work / "landing", ignore_errors=True)
    for p in work.glob("*.duckdb*"):
        remove(p)
    batch_day = (START + dt.timedelta(days=days)).isoformat()
    files = sorted(folder.glob("*.csv"))
    return Deliveries(
        [f for f in files if f.name[:10] < batch_day], [f for f in files if f.name[:10] == batch_day], days, generate_s
    )


@dataclasses.dataclass(frozen=True)
class Warehouse:
    """Where one large run builds: its project, environment, warehouse, landing folder and logs."""

    project: Path
    env: dict[str, str]
    work: Path
    memory_limit: str

    @property
    def wh(self) -> Path:
        return self.work / "wh.duckdb"

    @property
    def vars(self) -> dict[str, str]:
        return {"landing_path": str(self.work / "landing"), "rerun_safe_now": BENCH_NOW}

    def dbt(self, args: list[str], name: str, env: dict[str, str] | None = None) -> Run:
        return dbt(
            self.project,
            args,
            env or dict(self.env, DBT_DUCKDB_PATH=str(self.wh)),
            self.work / "target",
            self.work / "logs" / name,
            self.vars,
            name,
        )


def history_step(w: Warehouse, i: int, of: int, files: list[Path]) -> LargeStep:
    """One `dbt run` of the history's next days, at the memory limit, its spill folder polled."""
    link_files(files, w.work / "landing")
    log(f"{w.work.name}: history run {i}/{of}: {len(files)} files, {files[0].name[:10]} to {files[-1].name[:10]}")
    spill: dict[str, float] = {}
    try:
        with peak_size(lambda: [Path(f"{w.wh}.tmp")], spill, every_s=0.5):
            run = w.dbt(
                ["run"], f"history_{i}", dict(w.env, DBT_DUCKDB_PATH=str(w.wh), DBT_DUCKDB_MEMORY_LIMIT=w.memory_limit)
            )
    except StepFailed as e:
        raise RuntimeError(f"history run {i}/{of} failed: {str(e)[-300:]}") from None
    step = LargeStep(
        files[0].name[:10],
        files[-1].name[:10],
        len(files),
        spill["mb"],
        w.wh.stat().st_size / 1e6,
        run.wall_s,
        run.inside_s,
        run.overhead_s,
        run.peak_rss_mb,
    )
    log(
        f"{w.work.name}: history run {i}/{of} took {step.wall_s:.0f} s wall ({step.model_s or 0:.0f} model-s), spill "
        f"at most {step.spill_peak_mb / 1e3:.1f} GB, warehouse {step.warehouse_mb / 1e3:.1f} GB"
    )
    return step


def measure(
    a: argparse.Namespace, w: Warehouse, plans: tuple[DiskPlan, DiskPlan], preds: tuple[Prediction, ...], mach: Machine
) -> LargeResults:
    """The history built in `plans[0].steps` runs (the first from empty, each next one incremental on
    the next days' files), then the batch landed and the incremental run measured."""
    d = deliveries(a, w.work)
    (w.work / "landing").mkdir(parents=True)  # filled step by step; seed checks the folder exists
    log(f"{label(a.size)}: dbt seed, dbt run (history, {len(d.history)} files, in {plans[0].steps} run(s))")
    w.dbt(["seed"], "seed")
    peak: dict[str, float] = {}
    with peak_size(lambda: [w.wh, Path(f"{w.wh}.tmp")], peak):
        parts = step_days(d.history, plans[0].steps)
        steps = tuple(history_step(w, i, len(parts), files) for i, files in enumerate(parts, 1))
        history_rows = scalar(w.wh, "select count(*) from main.stg_landing__events")
        after_build = w.wh.stat().st_size / 1e6
        link_files(d.batch, w.work / "landing")
        log(f"{label(a.size)}: dbt run (incremental, {len(d.batch)} batch files)")
        inc = w.dbt(["run"], "incremental")
    batch_rows = scalar(
        w.wh,
        "select count(*) from main.stg_landing__events where _loaded_run_seq = "
        "(select max(_loaded_run_seq) from main.stg_landing__events)",
    )
    return LargeResults(
        machine=mach,
        memory_limit=a.memory_limit,
        reference=a.reference.name,
        disk=plans[0],
        default_disk=plans[1],
        predictions=preds,
        n=a.size,
        label=label(a.size),
        days=d.days,
        events_per_day=a.batch_events,
        history_files=len(d.history),
        batch_files=len(d.batch),
        history_mb=sum(f.stat().st_size for f in d.history) / 1e6,
        batch_mb=sum(f.stat().st_size for f in d.batch) / 1e6,
        history_rows=history_rows,
        batch_rows=batch_rows,
        history_steps=steps,
        incremental=inc,
        warehouse_after_build_mb=after_build,
        warehouse_mb=w.wh.stat().st_size / 1e6,
        warehouse_peak_mb=peak["mb"],
        generate_s=d.generate_s,
    )


def _header(res: LargeResults) -> list[str]:
    mach = res.machine
    dirty = f" (uncommitted changes in {', '.join(mach.dirty_files)})" if mach.dirty_files else ""
    return [
        "# Benchmark: one large history (`make bench-large`)",
        "",
        f"Generated by `python -m bench large` (`make bench-large`) from results.json, measured {res.finished_at} "
        f"UTC, code at commit {mach.commit}{dirty}; {mach.cpu}, nproc {mach.nproc}, {mach.mem_gb} GB; dbt threads 1, "
        f"DuckDB memory_limit {res.memory_limit}; python {mach.python}, dbt-core {mach.dbt_core}, dbt-duckdb "
        f"{mach.dbt_duckdb}, duckdb {mach.duckdb}. One run, no repetitions; method in bench/large.py's docstring.",
        "",
    ]


def _disk(res: LargeResults) -> list[str]:
    plan, default_plan = res.disk, res.default_disk
    if default_plan.fits:
        fits = "."
    elif plan.steps > 1:
        fits = f": **it does not fit on this machine**, so this run builds its history in {plan.steps} runs."
    else:
        fits = ": **it does not fit on this machine**, so this run is smaller."
    spill = max(h.spill_peak_mb for h in res.history_steps)
    return [
        "## The disk",
        "",
        f"- this run: {plan.describe()}.",
        f"- the default size in one build from empty: {default_plan.describe()}{fits}",
        f"- measured here: landing files {res.history_mb * 1e6 / res.n:.0f} B per history event; the warehouse "
        f"and its spill folder at their largest {res.warehouse_peak_mb * 1e6 / res.n:.0f} B per history event "
        f"({res.warehouse_peak_mb / 1e3:.1f} GB; the warehouse file {res.warehouse_after_build_mb / 1e3:.1f} GB "
        f"after the build, {res.warehouse_mb / 1e3:.1f} GB after the incremental run; the spill folder alone at "
        f"most {spill / 1e3:.1f} GB).",
        "",
    ]


def _sum(values: list[float | None]) -> float:
    return sum(v or 0.0 for v in values)


def _runs(res: LargeResults) -> list[str]:
    inc, steps = res.incremental, res.history_steps
    several = f"; {len(steps)} runs, their sums" if len(steps) > 1 else ""
    rows = [
        f"| history run {i}/{len(steps)} | dbt run ({'from empty' if i == 1 else 'incremental'}, "
        f"{h.first_day} to {h.last_day}, {h.files:,} files; spill at most {h.spill_peak_mb / 1e3:.1f} GB, "
        f"warehouse then {h.warehouse_mb / 1e3:.1f} GB) | {fmt(h.wall_s)} | {fmt(h.model_s)} | "
        f"{fmt(h.overhead_s)} | {fmt(h.peak_rss_mb, 0)} |"
        for i, h in enumerate(steps, 1)
    ]
    generated = f" Generation took {res.generate_s:.0f} s." if res.generate_s else ""
    return [
        "## The runs",
        "",
        f"{res.days} history days x {res.events_per_day:,} events; history {res.history_files:,} files, "
        f"{res.history_rows:,} landed rows, {res.history_mb:,.0f} MB; batch {res.batch_files} files, "
        f"{res.batch_rows:,} rows, {res.batch_mb:.1f} MB.{generated}",
        "",
        "| step | command | wall s | model s | dbt overhead s | peak RSS MB |",
        "|---|---|---:|---:|---:|---:|",
        f"| history_build | dbt run (history, memory_limit {res.memory_limit}{several}) | "
        f"{fmt(_sum([h.wall_s for h in steps]))} | {fmt(_sum([h.model_s for h in steps]))} | "
        f"{fmt(_sum([h.overhead_s for h in steps]))} | {fmt(max(h.peak_rss_mb or 0.0 for h in steps), 0)} |",
        *(rows if len(steps) > 1 else []),
        f"| incremental | dbt run (incremental, +1 batch) | {fmt(inc.wall_s)} | {fmt(inc.inside_s)} | "
        f"{fmt(inc.overhead_s)} | {fmt(inc.peak_rss_mb, 0)} |",
        "",
        "Incremental run, per model (s): "
        + ", ".join(f"{m} {t:.2f}" for m, t in sorted(inc.models.items(), key=lambda kv: -kv[1]))
        + ".",
        "",
        *phase_table([(res.label, inc)], Step.INCREMENTAL),
    ]


def _prediction(res: LargeResults) -> list[str]:
    out = ["## Measured against the per-row prediction", ""]
    preds = res.predictions
    if not preds:
        return [*out, f"No per-row line could be read from {res.reference}: nothing to compare.", ""]
    out += [
        f"The line t = a + b x N of {res.reference} (fitted to {', '.join(f'{n:g}M' for n in preds[0].fitted)}), "
        f"evaluated at N = {res.n / 1e6:g}M, against this run. Its batch is the same day's size of events, but the "
        "redelivered files in it are drawn from the history, so its row count "
        f"({res.batch_rows:,} here) varies with N.",
        "",
        "| measure | a, s | b, s per 1M | predicted, s | measured, s | measured / predicted |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    measured = {
        "our incremental run, model s": res.incremental.inside_s,
        "our incremental run, wall s": res.incremental.wall_s,
    }
    for p in preds:
        if (m := measured.get(p.name)) is not None:
            out.append(f"| {p.name} | {p.a:.2f} | {p.b:.3f} | {p.predicted:.1f} | {m:.1f} | {m / p.predicted:.2f} |")
    return [*out, ""]


def render(res: LargeResults) -> str:
    """The page, from the record alone (its results.json)."""
    lines = [*_header(res), *_disk(res), *_runs(res), *_prediction(res)]
    return "\n".join(lines).rstrip("\n") + "\n"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench large", description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=parse_size, default=100_000_000, help="history events (default 100M; make: SIZE)")
    p.add_argument("--batch-events", type=int, default=100_000, help="events a day; the batch is one day")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--memory-limit", default="8GB", help="DuckDB memory_limit of every dbt run (default 8GB)")
    p.add_argument("--out", type=Path, default=BENCH / "out-large", help="work folder")
    p.add_argument(
        "--doc",
        type=Path,
        default=ROOT / "docs" / "benchmarks-large.md",
        help="the page; its results.json goes beside it",
    )
    p.add_argument(
        "--reference",
        type=Path,
        default=ROOT / "docs" / "benchmarks.results.json",
        help="the results whose per-row line is checked (default docs/benchmarks.results.json)",
    )
    p.add_argument(
        "--steps",
        type=int,
        default=0,
        help=f"build the history in this many dbt runs (default 0: the fewest, up to {MAX_STEPS}, whose "
        "disk peak fits; 1: one build from empty; make: STEPS)",
    )
    p.add_argument("--keep", action="store_true", help="keep the warehouse and the deliveries")
    p.add_argument("--render-only", action="store_true", help="measure nothing: the page again from its results.json")
    return p


MAKE_VARIABLES = (("SIZE", "--size"), ("STEPS", "--steps"))


def make_arguments(environ: dict[str, str]) -> list[str] | str:
    """`make bench-large`'s SIZE and STEPS (RERUN_SAFE_MAKE_SIZE, _STEPS) as flags, validated; a
    one-line message naming the variable when one is bad."""
    out: list[str] = []
    for name, flag in MAKE_VARIABLES:
        value = environ.get(f"RERUN_SAFE_MAKE_{name}")
        if value is None:
            continue
        try:
            if name == "SIZE":
                parse_size(value)
            elif not value.isdigit() or not 0 <= int(value) <= MAX_STEPS:
                raise argparse.ArgumentTypeError(f"not a number of steps 0-{MAX_STEPS}: {value!r}")
        except argparse.ArgumentTypeError as e:
            return f"bench-large: {name}: {e}"
        out += [flag, value]
    return out


def main(argv: list[str] | None = None) -> int:
    p = parser()
    from_make = make_arguments(dict(os.environ))
    if isinstance(from_make, str):
        print(from_make, file=sys.stderr)
        return 2
    a = p.parse_args([*from_make, *(argv or [])])
    if not 0 <= a.steps <= MAX_STEPS:
        p.error(f"--steps must be 0 (the fewest that fit) to {MAX_STEPS}; got {a.steps}")
    saved_path = a.doc.with_suffix(".results.json")
    if a.render_only:
        a.doc.write_text(render(load(LargeResults, saved_path)))
        return 0
    a.out = a.out.resolve()
    work = a.out / label(a.size)
    plan = disk_plan(a.size, a.out, reusable_bytes(a, work), a.steps)
    if not plan.fits:
        print(
            f"bench-large: refused before writing anything: {plan.describe()} on the file system of {a.out}. "
            "Free space there, or pass a smaller --size (make bench-large SIZE=50M).",
            file=sys.stderr,
        )
        return 2
    log(plan.describe())
    res = run_large(a, (plan, disk_plan(p.get_default("size"), a.out, steps=1)), work)
    save(res, saved_path)
    a.doc.write_text(render(res))
    log(f"done in {res.total_s or 0:.0f} s; wrote {saved_path} and {a.doc}")
    return 0


def run_large(a: argparse.Namespace, plans: tuple[DiskPlan, DiskPlan], work: Path) -> LargeResults:
    """The measurement, its machine and the prediction it is set beside; the work folder goes unless --keep."""
    preds = predictions(a.reference, a.size) if a.reference.exists() else ()
    env = dict(bench_env(), DBT_DUCKDB_MEMORY_LIMIT=a.memory_limit)
    project, commit, dirty = snapshot_project(a.out / "project")
    mach = machine(1, a.memory_limit, commit, dirty)
    t0 = time.perf_counter()
    try:
        res = measure(a, Warehouse(project, env, work, a.memory_limit), plans, preds, mach)
    finally:
        if not a.keep:
            for f in work.glob("*.duckdb*"):
                remove(f)
            shutil.rmtree(work / "landing", ignore_errors=True)
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return dataclasses.replace(
        res, total_s=time.perf_counter() - t0, finished_at=f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
