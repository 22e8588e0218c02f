"""One large history, measured: `make bench-large` (100M events unless --size says otherwise).

    .venv/bin/python bench/large.py                      # 100M events, docs/benchmarks-large.md
    .venv/bin/python bench/large.py --size 50M           # a size this machine's disk holds
    .venv/bin/python bench/large.py --size 300k --batch-events 20000 --out /tmp/bl --doc /tmp/bl/bl.md  # smoke

Checks the per-row prediction of `make bench` (docs/benchmarks.md, section "Per history row"),
which fits a line to the 1M, 10M and 30M runs, against one measurement at a larger history. The
same deliveries as bench/run.py (pipeline_demo.generate, seed 7, `--batch-events` a day, the last
day held back as the batch), and the same dbt steps, each a subprocess timed by bench/run.py's
dbt(): `dbt seed`, `dbt run` of the history (a full build from an empty warehouse; the size of
DuckDB's spill folder polled), land the batch, `dbt run` (t_inc). No floor (it works on a copy of
the warehouse, as large again), no full refresh, no peer.

Before it writes anything it checks the disk: the landing files and the warehouse, from the
bytes per event measured in an earlier run (LANDING_BYTES_PER_EVENT, WAREHOUSE_BYTES_PER_EVENT
below), plus SPILL_SHARE of the warehouse for DuckDB's spill folder during the build, must fit in
the free space of `--out`'s file system; a size that does not fit is refused with the figures
(exit status 2), before any file is generated. The run then records the sizes it really used.
Nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import json
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from per_row import batch_rows_from_page, per_row_cost
from postgres import parse_size
from run import (
    BENCH_NOW,
    ROOT,
    START,
    dbt,
    fmt,
    label,
    link_files,
    log,
    machine,
    memory_run,
    phase_table,
    query,
    remove,
    results_from_page,
    snapshot_project,
)

from pipeline_demo.generate import GeneratorConfig, generate

# Bytes per history event on disk, measured by this script at 50M (100k events a day, seed 7,
# memory_limit 8GB, docs/benchmarks-large.md): the landing files (history only; 135 B at 50M, 137 at
# 30M in make bench), and the largest sum of the DuckDB warehouse file and its spill folder seen
# during the run (polled each second): 49.4 GB at 50M, while the copies model's window sorts
# spilled 36.6 GB beside the staged rows; the finished warehouse is 18.7 GB.
LANDING_BYTES_PER_EVENT = 137
PEAK_BYTES_PER_EVENT = 988
GB = 1e9


@dataclasses.dataclass(frozen=True)
class DiskPlan:
    events: int
    landing_bytes: float
    warehouse_bytes: float
    free_bytes: float

    @property
    def needed_bytes(self) -> float:
        return self.landing_bytes + self.warehouse_bytes

    @property
    def fits(self) -> bool:
        return self.needed_bytes <= self.free_bytes

    def describe(self) -> str:
        return (f"{label(self.events)} events need about {self.needed_bytes / GB:.1f} GB: landing files "
                f"{self.landing_bytes / GB:.1f} GB ({LANDING_BYTES_PER_EVENT} B an event), the warehouse and "
                f"DuckDB's spill folder at their largest {self.warehouse_bytes / GB:.1f} GB "
                f"({PEAK_BYTES_PER_EVENT} B an event); {self.free_bytes / GB:.1f} GB are free")


def disk_plan(events: int, out: Path, reusable_bytes: float = 0.0) -> DiskPlan:
    """What `events` need on `out`'s file system, against its free space (plus `reusable_bytes`:
    deliveries already generated for this size, which the run keeps)."""
    probe = out
    while not probe.exists():
        probe = probe.parent
    return DiskPlan(events=events, landing_bytes=events * LANDING_BYTES_PER_EVENT,
                    warehouse_bytes=events * PEAK_BYTES_PER_EVENT,
                    free_bytes=shutil.disk_usage(probe).free + reusable_bytes)


@contextlib.contextmanager
def peak_size(paths: Callable[[], list[Path]], into: dict, key: str):
    """Poll the summed size of `paths()` (files, or folders summed over their files) each second
    while the block runs; its largest value, in MB, goes to into[key]."""
    peak, done = [0], threading.Event()

    def size() -> int:
        total = 0
        for p in paths():
            with contextlib.suppress(OSError):  # a spill file removed while listed
                total += (sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) if p.is_dir()
                          else p.stat().st_size if p.exists() else 0)
        return total

    def poll() -> None:
        while not done.wait(1.0):
            peak[0] = max(peak[0], size())

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        yield
    finally:
        done.set()
        poller.join()
        into[key] = max(peak[0], size()) / 1e6


def predictions(reference: Path, events: int) -> list[dict]:
    """Each measure of the reference page's per-row line (bench/per_row.py) at `events`: name, a, b,
    the sizes fitted, and a + b x events."""
    text = reference.read_text()
    results = results_from_page(text)
    batch_rows_from_page(text, results)
    return [{"name": r["name"], "a": r["a"], "b": r["b"], "fitted": [n for n, _t in r["points"]],
             "predicted": r["a"] + r["b"] * events / 1e6} for r in per_row_cost(results)]


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


def measure(a: argparse.Namespace, env: dict, project: Path, work: Path) -> dict:
    epd = a.batch_events
    cfg, cfg_key = generator_config(a)
    days = cfg.days - 1
    deliveries, marker = work / "deliveries", work / "deliveries" / "_config.json"
    res: dict = {"n": a.size, "label": label(a.size), "days": days, "events_per_day": epd, "runs": {}}
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
    res.update(history_files=len(history), batch_files=len(batch),
               history_mb=sum(f.stat().st_size for f in history) / 1e6,
               batch_mb=sum(f.stat().st_size for f in batch) / 1e6)
    landing = work / "landing"
    link_files(history, landing)
    wh = work / "wh.duckdb"
    ours = dict(env, DBT_DUCKDB_PATH=str(wh))
    vars_ = {"landing_path": str(landing), "rerun_safe_now": BENCH_NOW}
    tgt, logs = work / "target", work / "logs"
    log(f"{res['label']}: dbt seed, dbt run (history, {len(history)} files)")
    dbt(project, ["seed"], ours, tgt, logs / "seed", vars_, "seed")
    with peak_size(lambda: [wh, Path(f"{wh}.tmp")], res, "warehouse_peak_mb"):
        _build_and_increment(res, project, ours, vars_, tgt, logs, wh, landing, batch, a.memory_limit)
    res["landing_bytes_per_event"] = res["history_mb"] * 1e6 / a.size
    res["warehouse_bytes_per_event"] = res["warehouse_mb"] * 1e6 / a.size
    res["peak_bytes_per_event"] = res["warehouse_peak_mb"] * 1e6 / a.size
    return res


def _build_and_increment(res: dict, project: Path, ours: dict, vars_: dict, tgt: Path, logs: Path, wh: Path,
                         landing: Path, batch: list[Path], memory_limit: str) -> None:
    build = memory_run(project, "run", ours, memory_limit, tgt, logs, vars_, wh)
    res["history_build"] = {k: v for k, v in build.items() if k != "run"}
    if not build["completed"]:
        raise RuntimeError(f"the history build failed: {build['error']}")
    res["runs"]["history_build"] = build["run"]
    res["history_rows"] = query(wh, "select count(*) from main.stg_landing__events")[0][0]
    res["warehouse_after_build_mb"] = wh.stat().st_size / 1e6
    link_files(batch, landing)
    log(f"{res['label']}: dbt run (incremental, {len(batch)} batch files)")
    res["runs"]["incremental"] = dbt(project, ["run"], ours, tgt, logs / "incremental", vars_, "incremental")
    res["batch_rows"] = query(wh, "select count(*) from main.stg_landing__events where _loaded_run_seq = "
                                  "(select max(_loaded_run_seq) from main.stg_landing__events)")[0][0]
    res["warehouse_mb"] = wh.stat().st_size / 1e6


def render(res: dict, plan: DiskPlan, default_plan: DiskPlan, preds: list[dict], mach: dict,
           a: argparse.Namespace) -> str:
    inc, hb = res["runs"]["incremental"], res["runs"]["history_build"]
    code = mach["code"]
    dirty = f" (uncommitted changes in {', '.join(code['dirty_files'])})" if code.get("dirty_files") else ""
    L = ["# Benchmark: one large history (`make bench-large`)", "",
         f"Generated by `bench/large.py` (`make bench-large`) on {res['finished_at']} UTC, "
         f"code at commit {code.get('commit', '?')}{dirty}; {mach['cpu']}, nproc {mach['nproc']}, "
         f"{mach['mem_gb']} GB; dbt threads 1, DuckDB memory_limit {a.memory_limit}; python {mach['python']}, "
         f"dbt-core {mach['dbt-core']}, dbt-duckdb {mach['dbt-duckdb']}, duckdb {mach['duckdb']}. One run, no "
         "repetitions; method in the script's docstring.", "",
         "## The disk", "",
         f"- this run: {plan.describe()}.",
         f"- the default size: {default_plan.describe()}"
         + ("." if default_plan.fits else ": **it does not fit on this machine**, so this run is smaller."),
         f"- measured here: landing files {res['landing_bytes_per_event']:.0f} B per history event; the warehouse "
         f"and its spill folder at their largest {res['peak_bytes_per_event']:.0f} B per history event "
         f"({res['warehouse_peak_mb'] / 1e3:.1f} GB; the warehouse file {res['warehouse_after_build_mb'] / 1e3:.1f} GB "
         f"after the build, {res['warehouse_mb'] / 1e3:.1f} GB after the incremental run; the spill folder alone at "
         f"most {res['history_build']['spill_peak_mb'] / 1e3:.1f} GB).", "",
         "## The runs", "",
         f"{res['days']} history days x {res['events_per_day']:,} events; history {res['history_files']:,} files, "
         f"{res['history_rows']:,} landed rows, {res['history_mb']:,.0f} MB; batch {res['batch_files']} files, "
         f"{res['batch_rows']:,} rows, {res['batch_mb']:.1f} MB."
         + (f" Generation took {res['generate_s']:.0f} s." if res.get("generate_s") else ""), "",
         "| step | command | wall s | model s | dbt overhead s | peak RSS MB |", "|---|---|---:|---:|---:|---:|",
         f"| history_build | dbt run (history, memory_limit {a.memory_limit}) | {fmt(hb['wall_s'])} | "
         f"{fmt(hb['model_s'])} | {fmt(hb['overhead_s'])} | {fmt(hb['peak_rss_mb'], 0)} |",
         f"| incremental | dbt run (incremental, +1 batch) | {fmt(inc['wall_s'])} | {fmt(inc['model_s'])} | "
         f"{fmt(inc['overhead_s'])} | {fmt(inc['peak_rss_mb'], 0)} |", "",
         "Incremental run, per model (s): " + ", ".join(
             f"{m} {t:.2f}" for m, t in sorted(inc["models"].items(), key=lambda kv: -kv[1])) + ".", "",
         *phase_table([res], "incremental"),
         "## Measured against the per-row prediction", ""]
    if not preds:
        L += [f"No per-row line could be read from {a.reference.name}: nothing to compare.", ""]
        return "\n".join(L)
    L += [f"The line t = a + b x N of {a.reference.name} (fitted to "
          f"{', '.join(f'{n:g}M' for n in preds[0]['fitted'])}), evaluated at N = {res['n'] / 1e6:g}M, "
          "against this run. Its batch is the same day's size of events, but the redelivered files in it "
          f"are drawn from the history, so its row count ({res['batch_rows']:,} here) varies with N.", "",
          "| measure | a, s | b, s per 1M | predicted, s | measured, s | measured / predicted |",
          "|---|---:|---:|---:|---:|---:|"]
    measured = {"our incremental run, model s": inc["model_s"], "our incremental run, wall s": inc["wall_s"]}
    for p in preds:
        if p["name"] in measured:
            m = measured[p["name"]]
            L.append(f"| {p['name']} | {p['a']:.2f} | {p['b']:.3f} | {p['predicted']:.1f} | {m:.1f} | "
                     f"{m / p['predicted']:.2f} |")
    return "\n".join([*L, ""])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=parse_size, default=100_000_000, help="history events (default 100M)")
    p.add_argument("--batch-events", type=int, default=100_000, help="events a day; the batch is one day")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--memory-limit", default="8GB", help="DuckDB memory_limit of every dbt run (default 8GB, "
                                                         "as make bench's incremental runs)")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "out-large", help="work folder")
    p.add_argument("--doc", type=Path, default=ROOT / "docs" / "benchmarks-large.md", help="Markdown report")
    p.add_argument("--reference", type=Path, default=ROOT / "docs" / "benchmarks.md",
                   help="the page whose per-row line is checked (default docs/benchmarks.md)")
    p.add_argument("--keep", action="store_true", help="keep the warehouse and the deliveries")
    p.add_argument("--render-only", action="store_true",
                   help="measure nothing: write --doc again from --out/results.json (the disk lines with this "
                        "script's current bytes per event)")
    a = p.parse_args(argv)
    a.out = a.out.resolve()
    if a.render_only:
        saved = json.loads((a.out / "results.json").read_text())
        res, a.size = saved["result"], saved["result"]["n"]
        plan = dataclasses.replace(disk_plan(a.size, a.out), free_bytes=saved["disk"]["free_bytes"])
        default_plan = dataclasses.replace(disk_plan(p.get_default("size"), a.out), free_bytes=plan.free_bytes)
        a.doc.write_text(render(res, plan, default_plan, saved["predictions"], saved["machine"], a))
        print(a.doc.read_text())
        return 0
    work = a.out / label(a.size)
    plan = disk_plan(a.size, a.out, reusable_bytes(a, work))
    default_plan = disk_plan(p.get_default("size"), a.out)
    if not plan.fits:
        print(f"bench-large: refused before writing anything: {plan.describe()} on the file system of "
              f"{a.out}. Free space there, or pass a smaller --size (make bench-large SIZE=50M).", file=sys.stderr)
        return 2
    log(plan.describe())
    preds = predictions(a.reference, a.size) if a.reference.exists() else []
    env = dict(os.environ, DBT_DUCKDB_MEMORY_LIMIT=a.memory_limit, DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    mach = machine()
    mach["code"] = snapshot_project(a.out / "project")
    t0 = time.perf_counter()
    try:
        res = measure(a, env, Path(mach["code"]["path"]), work)
    finally:
        if not a.keep:
            for f in work.glob("*.duckdb*"):
                remove(f)
            shutil.rmtree(work / "landing", ignore_errors=True)
    res["total_s"] = time.perf_counter() - t0
    res["finished_at"] = f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M}"
    (a.out / "results.json").write_text(json.dumps({"machine": mach, "result": res, "predictions": preds,
                                                    "disk": dataclasses.asdict(plan)}, indent=1, default=str))
    a.doc.parent.mkdir(parents=True, exist_ok=True)
    a.doc.write_text(render(res, plan, default_plan, preds, mach, a))
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    log(f"done in {res['total_s']:.0f} s; wrote {a.doc}")
    print(a.doc.read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
