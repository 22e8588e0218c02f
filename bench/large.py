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
import itertools
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

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
)
from bench.compare import scalar
from bench.measure import StepFailed, dbt, peak_size, run_fields, run_from_fields
from bench.per_row import per_row_cost
from bench.results import Results, Step, load
from bench.tables import fmt, phase_table
from pipeline_demo.generate import GeneratorConfig, generate

# Bytes per history event on disk, measured by this script at 50M (100k events a day, seed 7,
# memory_limit 8GB, docs/benchmarks-large.md): the landing files (history only; 135 B at 50M, 137 at
# 30M in make bench), and the largest sum of the DuckDB warehouse file and its spill folder seen
# during the run (polled each second): 49.4 GB at 50M, while the copies model's window sorts
# spilled 36.6 GB beside the staged rows; the finished warehouse is 18.6 GB (372 B an event).
LANDING_BYTES_PER_EVENT = 137
PEAK_BYTES_PER_EVENT = 988
WAREHOUSE_BYTES_PER_EVENT = 372
GB = 1e9
# A history too large for one build on this disk is built in steps (at most this many): the first
# a full build of the first days, each next one lands the next days and runs `dbt run` (incremental).
MAX_STEPS = 10


@dataclasses.dataclass(frozen=True)
class DiskPlan:
    events: int
    landing_bytes: float
    warehouse_bytes: float
    free_bytes: float
    steps: int = 1

    @property
    def needed_bytes(self) -> float:
        return self.landing_bytes + self.warehouse_bytes

    @property
    def fits(self) -> bool:  # with a tenth of the free space kept for what the per-event figures miss
        return self.needed_bytes <= 0.9 * self.free_bytes

    def describe(self) -> str:
        if self.steps == 1:
            built = f"({PEAK_BYTES_PER_EVENT} B an event)"
        else:
            part = f"{self.events / self.steps / 1e6:.3g}M"
            built = (
                f"(built in {self.steps} runs of about {part} events: the last run's warehouse before it, "
                f"{WAREHOUSE_BYTES_PER_EVENT} B an event, and its own peak, {PEAK_BYTES_PER_EVENT} B an event "
                "of its part)"
            )
        return (
            f"{label(self.events)} events need about {self.needed_bytes / GB:.1f} GB: landing files "
            f"{self.landing_bytes / GB:.1f} GB ({LANDING_BYTES_PER_EVENT} B an event), the warehouse and "
            f"DuckDB's spill folder at their largest {self.warehouse_bytes / GB:.1f} GB "
            f"{built}; {self.free_bytes / GB:.1f} GB are free"
        )


def disk_plan(events: int, out: Path, reusable_bytes: float = 0.0, steps: int = 0) -> DiskPlan:
    """What `events` need on `out`'s file system, built in `steps` runs (0: the fewest, up to
    MAX_STEPS, that fit), against its free space (plus `reusable_bytes`: deliveries already
    generated for this size, which the run keeps)."""
    probe = out
    while not probe.exists():
        probe = probe.parent
    free = shutil.disk_usage(probe).free + reusable_bytes
    plan = None
    for k in [steps] if steps else range(1, MAX_STEPS + 1):
        peak = WAREHOUSE_BYTES_PER_EVENT * events * (k - 1) / k + PEAK_BYTES_PER_EVENT * events / k
        plan = DiskPlan(
            events=events,
            landing_bytes=events * LANDING_BYTES_PER_EVENT,
            warehouse_bytes=peak,
            free_bytes=free,
            steps=k,
        )
        if plan.fits:
            break
    assert plan is not None
    return plan


def step_days(history: list[Path], steps: int) -> list[list[Path]]:
    """The history's files in `steps` groups of whole consecutive days (a file's day is its name's
    first 10 characters), as even in days as they divide."""
    days = sorted({f.name[:10] for f in history})
    bounds = [days[len(days) * i // steps] for i in range(steps)] + ["9999"]
    return [[f for f in history if lo <= f.name[:10] < hi] for lo, hi in itertools.pairwise(bounds)]


def predictions(reference: Path, events: int) -> list[dict[str, Any]]:
    """Each measure of the reference results' per-row line (bench/per_row.py) at `events`: name, a, b,
    the sizes fitted, and a + b x events."""
    sizes = load(Results, reference).sizes
    return [
        {"name": r.name, "a": r.a, "b": r.b, "fitted": [n for n, _t in r.points], "predicted": r.at(events)}
        for r in per_row_cost(sizes)
    ]


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


def measure(a: argparse.Namespace, env: dict[str, str], project: Path, work: Path, steps: int = 1) -> dict[str, Any]:
    epd = a.batch_events
    cfg, cfg_key = generator_config(a)
    days = cfg.days - 1
    deliveries, marker = work / "deliveries", work / "deliveries" / "_config.json"
    res: dict[str, Any] = {"n": a.size, "label": label(a.size), "days": days, "events_per_day": epd, "runs": {}}
    if not (marker.exists() and marker.read_text() == cfg_key):
        shutil.rmtree(work, ignore_errors=True)
        log(f"{res['label']}: generating {days + 1} days x {epd:,} events")
        res["generate_s"] = generate(cfg, deliveries).elapsed_s
        marker.write_text(cfg_key)
    else:
        log(f"{res['label']}: reusing deliveries in {deliveries}")
        res["generate_s"] = None
    shutil.rmtree(work / "landing", ignore_errors=True)
    for p in work.glob("*.duckdb*"):
        remove(p)
    batch_day = (START + dt.timedelta(days=days)).isoformat()
    files = sorted(deliveries.glob("*.csv"))
    history = [f for f in files if f.name[:10] < batch_day]
    batch = [f for f in files if f.name[:10] == batch_day]
    res.update(
        history_files=len(history),
        batch_files=len(batch),
        history_mb=sum(f.stat().st_size for f in history) / 1e6,
        batch_mb=sum(f.stat().st_size for f in batch) / 1e6,
    )
    landing = work / "landing"  # filled step by step below; seed checks the folder exists
    landing.mkdir(parents=True)
    wh = work / "wh.duckdb"
    ours = dict(env, DBT_DUCKDB_PATH=str(wh))
    vars_ = {"landing_path": str(landing), "rerun_safe_now": BENCH_NOW}
    tgt, logs = work / "target", work / "logs"
    log(f"{res['label']}: dbt seed, dbt run (history, {len(history)} files, in {steps} run(s))")
    dbt(project, ["seed"], ours, tgt, logs / "seed", vars_, "seed")
    peak: dict[str, float] = {}
    with peak_size(lambda: [wh, Path(f"{wh}.tmp")], peak):
        _build_and_increment(
            res, project, ours, vars_, tgt, logs, wh, landing, step_days(history, steps), batch, a.memory_limit
        )
    res["warehouse_peak_mb"] = peak["mb"]
    res["landing_bytes_per_event"] = res["history_mb"] * 1e6 / a.size
    res["warehouse_bytes_per_event"] = res["warehouse_mb"] * 1e6 / a.size
    res["peak_bytes_per_event"] = res["warehouse_peak_mb"] * 1e6 / a.size
    return res


RUN_FIGURES = ("wall_s", "model_s", "overhead_s", "peak_rss_mb")


def _build_and_increment(
    res: dict[str, Any],
    project: Path,
    ours: dict[str, str],
    vars_: dict[str, str],
    tgt: Path,
    logs: Path,
    wh: Path,
    landing: Path,
    steps: list[list[Path]],
    batch: list[Path],
    memory_limit: str,
) -> None:
    """The history built in len(steps) runs (the first from empty, each next one incremental on the
    next days' files), then the batch landed and the incremental run measured."""
    res["history_steps"] = []
    for i, files in enumerate(steps, 1):
        link_files(files, landing)
        log(
            f"{res['label']}: history run {i}/{len(steps)}: {len(files)} files, {files[0].name[:10]} to "
            f"{files[-1].name[:10]}"
        )
        spill: dict[str, float] = {}
        try:
            with peak_size(lambda: [Path(f"{wh}.tmp")], spill, every_s=0.5):
                run = dbt(
                    project,
                    ["run"],
                    dict(ours, DBT_DUCKDB_MEMORY_LIMIT=memory_limit),
                    tgt,
                    logs / f"history_{i}",
                    vars_,
                    f"history_{i}",
                )
        except StepFailed as e:
            raise RuntimeError(f"history run {i}/{len(steps)} failed: {str(e)[-300:]}") from None
        fields = run_fields(run)
        step = {
            "first_day": files[0].name[:10],
            "last_day": files[-1].name[:10],
            "files": len(files),
            "spill_peak_mb": spill["mb"],
            "warehouse_mb": wh.stat().st_size / 1e6,
            **{k: fields[k] for k in RUN_FIGURES},
        }
        res["history_steps"].append(step)
        log(
            f"{res['label']}: history run {i}/{len(steps)} took {step['wall_s']:.0f} s wall "
            f"({step['model_s']:.0f} model-s), spill at most {step['spill_peak_mb'] / 1e3:.1f} GB, "
            f"warehouse {step['warehouse_mb'] / 1e3:.1f} GB"
        )
    history = res["history_steps"]
    res["history_build"] = {
        "limit": memory_limit,
        "completed": True,
        "steps": len(steps),
        "spill_peak_mb": max(h["spill_peak_mb"] for h in history),
    }
    res["runs"]["history_build"] = {
        k: sum(h[k] for h in history) if k != "peak_rss_mb" else max(h[k] for h in history) for k in RUN_FIGURES
    }
    res["history_rows"] = scalar(wh, "select count(*) from main.stg_landing__events")
    res["warehouse_after_build_mb"] = wh.stat().st_size / 1e6
    link_files(batch, landing)
    log(f"{res['label']}: dbt run (incremental, {len(batch)} batch files)")
    res["runs"]["incremental"] = run_fields(
        dbt(project, ["run"], ours, tgt, logs / "incremental", vars_, "incremental")
    )
    res["batch_rows"] = scalar(
        wh,
        "select count(*) from main.stg_landing__events where _loaded_run_seq = "
        "(select max(_loaded_run_seq) from main.stg_landing__events)",
    )
    res["warehouse_mb"] = wh.stat().st_size / 1e6


def _header(res: dict[str, Any], mach: dict[str, Any], memory_limit: str) -> list[str]:
    dirty = f" (uncommitted changes in {', '.join(mach['dirty_files'])})" if mach.get("dirty_files") else ""
    return [
        "# Benchmark: one large history (`make bench-large`)",
        "",
        f"Generated by `python -m bench large` (`make bench-large`) from results.json, measured {res['finished_at']} "
        f"UTC, code at commit {mach.get('commit', '?')}{dirty}; {mach['cpu']}, nproc {mach['nproc']}, "
        f"{mach['mem_gb']} GB; dbt threads 1, DuckDB memory_limit {memory_limit}; python {mach['python']}, "
        f"dbt-core {mach['dbt_core']}, dbt-duckdb {mach['dbt_duckdb']}, duckdb {mach['duckdb']}. One run, no "
        "repetitions; method in bench/large.py's docstring.",
        "",
    ]


def _disk(res: dict[str, Any], plan: DiskPlan, default_plan: DiskPlan) -> list[str]:
    if default_plan.fits:
        fits = "."
    elif plan.steps > 1:
        fits = f": **it does not fit on this machine**, so this run builds its history in {plan.steps} runs."
    else:
        fits = ": **it does not fit on this machine**, so this run is smaller."
    return [
        "## The disk",
        "",
        f"- this run: {plan.describe()}.",
        f"- the default size in one build from empty: {default_plan.describe()}{fits}",
        f"- measured here: landing files {res['landing_bytes_per_event']:.0f} B per history event; the warehouse "
        f"and its spill folder at their largest {res['peak_bytes_per_event']:.0f} B per history event "
        f"({res['warehouse_peak_mb'] / 1e3:.1f} GB; the warehouse file {res['warehouse_after_build_mb'] / 1e3:.1f} GB "
        f"after the build, {res['warehouse_mb'] / 1e3:.1f} GB after the incremental run; the spill folder alone at "
        f"most {res['history_build']['spill_peak_mb'] / 1e3:.1f} GB).",
        "",
    ]


def _runs(res: dict[str, Any], memory_limit: str) -> list[str]:
    inc, hb = res["runs"]["incremental"], res["runs"]["history_build"]
    steps = res.get("history_steps") or [{}]
    several = f"; {len(steps)} runs, their sums" if len(steps) > 1 else ""
    rows = [
        f"| history run {i}/{len(steps)} | dbt run ({'from empty' if i == 1 else 'incremental'}, "
        f"{h['first_day']} to {h['last_day']}, {h['files']:,} files; spill at most {h['spill_peak_mb'] / 1e3:.1f} GB, "
        f"warehouse then {h['warehouse_mb'] / 1e3:.1f} GB) | {fmt(h['wall_s'])} | {fmt(h['model_s'])} | "
        f"{fmt(h['overhead_s'])} | {fmt(h['peak_rss_mb'], 0)} |"
        for i, h in enumerate(steps, 1)
    ]
    generated = f" Generation took {res['generate_s']:.0f} s." if res.get("generate_s") else ""
    return [
        "## The runs",
        "",
        f"{res['days']} history days x {res['events_per_day']:,} events; history {res['history_files']:,} files, "
        f"{res['history_rows']:,} landed rows, {res['history_mb']:,.0f} MB; batch {res['batch_files']} files, "
        f"{res['batch_rows']:,} rows, {res['batch_mb']:.1f} MB.{generated}",
        "",
        "| step | command | wall s | model s | dbt overhead s | peak RSS MB |",
        "|---|---|---:|---:|---:|---:|",
        f"| history_build | dbt run (history, memory_limit {memory_limit}{several}) | {fmt(hb['wall_s'])} | "
        f"{fmt(hb['model_s'])} | {fmt(hb['overhead_s'])} | {fmt(hb['peak_rss_mb'], 0)} |",
        *(rows if len(steps) > 1 else []),
        f"| incremental | dbt run (incremental, +1 batch) | {fmt(inc['wall_s'])} | {fmt(inc['model_s'])} | "
        f"{fmt(inc['overhead_s'])} | {fmt(inc['peak_rss_mb'], 0)} |",
        "",
        "Incremental run, per model (s): "
        + ", ".join(f"{m} {t:.2f}" for m, t in sorted(inc["models"].items(), key=lambda kv: -kv[1]))
        + ".",
        "",
        *phase_table([(res["label"], run_from_fields(inc))], Step.INCREMENTAL),
    ]


def _prediction(res: dict[str, Any], preds: list[dict[str, Any]], reference: str) -> list[str]:
    out = ["## Measured against the per-row prediction", ""]
    if not preds:
        return [*out, f"No per-row line could be read from {reference}: nothing to compare.", ""]
    out += [
        f"The line t = a + b x N of {reference} (fitted to {', '.join(f'{n:g}M' for n in preds[0]['fitted'])}), "
        f"evaluated at N = {res['n'] / 1e6:g}M, against this run. Its batch is the same day's size of events, but the "
        "redelivered files in it are drawn from the history, so its row count "
        f"({res['batch_rows']:,} here) varies with N.",
        "",
        "| measure | a, s | b, s per 1M | predicted, s | measured, s | measured / predicted |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    inc = res["runs"]["incremental"]
    measured = {"our incremental run, model s": inc["model_s"], "our incremental run, wall s": inc["wall_s"]}
    for p in preds:
        if p["name"] in measured:
            m = measured[p["name"]]
            out.append(
                f"| {p['name']} | {p['a']:.2f} | {p['b']:.3f} | {p['predicted']:.1f} | {m:.1f} | "
                f"{m / p['predicted']:.2f} |"
            )
    return [*out, ""]


def render(
    res: dict[str, Any],
    plan: DiskPlan,
    default_plan: DiskPlan,
    preds: list[dict[str, Any]],
    mach: dict[str, Any],
    memory_limit: str,
    reference: str,
) -> str:
    """The page, from the record alone."""
    lines = [*_header(res, mach, memory_limit), *_disk(res, plan, default_plan), *_runs(res, memory_limit)]
    return "\n".join([*lines, *_prediction(res, preds, reference)]).rstrip("\n") + "\n"


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


def render_saved(saved: dict[str, Any]) -> str:
    """The page from its results.json alone."""
    plan, default_plan = DiskPlan(**saved["disk"]), DiskPlan(**saved["default_disk"])
    return render(
        saved["result"],
        plan,
        default_plan,
        saved["predictions"],
        saved["machine"],
        saved["memory_limit"],
        saved["reference"],
    )


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
        a.doc.write_text(render_saved(json.loads(saved_path.read_text())))
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
    saved = run_large(a, plan, work)
    saved["default_disk"] = dataclasses.asdict(disk_plan(p.get_default("size"), a.out, steps=1))
    saved_path.parent.mkdir(parents=True, exist_ok=True)
    saved_path.write_text(json.dumps(saved, indent=1, default=str) + "\n")
    a.doc.write_text(render_saved(saved))
    log(f"done in {saved['result']['total_s']:.0f} s; wrote {saved_path} and {a.doc}")
    return 0


def run_large(a: argparse.Namespace, plan: DiskPlan, work: Path) -> dict[str, Any]:
    """The measurement and everything its page needs, but the default size's disk plan."""
    preds = predictions(a.reference, a.size) if a.reference.exists() else []
    env = dict(bench_env(), DBT_DUCKDB_MEMORY_LIMIT=a.memory_limit)
    project, commit, dirty = snapshot_project(a.out / "project")
    mach = dataclasses.asdict(machine(1, a.memory_limit, commit, dirty))
    t0 = time.perf_counter()
    try:
        res = measure(a, env, project, work, plan.steps)
    finally:
        if not a.keep:
            for f in work.glob("*.duckdb*"):
                remove(f)
            shutil.rmtree(work / "landing", ignore_errors=True)
    res["total_s"] = time.perf_counter() - t0
    res["finished_at"] = f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M}"
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return {
        "machine": mach,
        "result": res,
        "predictions": preds,
        "disk": dataclasses.asdict(plan),
        "memory_limit": a.memory_limit,
        "reference": a.reference.name,
    }


if __name__ == "__main__":
    raise SystemExit(main())
