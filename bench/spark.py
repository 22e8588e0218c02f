"""Time the pipeline on Spark at 1M events, on a local session and on a standalone cluster
behind the Thrift server, side by side: the history build and one incremental run, and what the
Thrift round trips cost.

    .venv/bin/python -m bench --target spark --size 1M      # make bench-spark: docs/benchmarks-spark.md
    .venv/bin/python -m bench --target spark --size 20k --out /tmp/bs --doc /tmp/bs/spark.md   # a smoke run

Same deliveries as the size sweep (pipeline_demo.generate, seed 7, `--batch-events` a day, one day
held back as the batch). For each engine (`--engines`, both by default), on a warehouse of its
own, each step a `dbt` subprocess:

- `session`: `--target spark` (dbt-spark `method: session`: Spark in the dbt process, master
  `--master`, local[2] by default);
- `cluster`: `--target spark_thrift` against tests/spark/cluster.py's cluster (a standalone
  master, two workers with one core and 1 GB each, the Thrift server as the driver), started
  here and stopped at the end; dbt is a client of the server.

Steps: `dbt seed`; `dbt run` of the history (a full build of every file); `dbt run` with nothing
new; the batch landed, `dbt run` (t_inc); with `--full-refresh`, `dbt run --full-refresh`.

Round trips: the median of `--probes` trivial statements (`select 1`) sent the way each target
sends them: in a warm local session (`spark.sql(...).collect()`, a separate Python process with
the session target's settings), and through PyHive as dbt-spark does (`execute(async_=True)`,
`poll()`, `fetchall()`). The Thrift cost of a run is estimated as (thrift - session) x the
statements dbt sent in it (counted in its debug log).

Writes the figures to ``<doc>.results.json`` and renders the page (--doc) from them; nothing is
asserted. ``--render-only`` renders the page again from that file.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import importlib
import json
import os
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from bench.common import BENCH, PY, ROOT, START, bench_env, label, link_files, log, parse_size, utc_now
from bench.measure import dbt, invoke
from bench.records import SparkResults, SparkStep
from bench.results import load, save
from pipeline_demo.generate import GeneratorConfig, generate

ENGINES = ("session", "cluster")
JVM_PROBE = (
    "from pyspark.sql import SparkSession\n"
    "s = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false').getOrCreate()\n"
    "s.sql('select 1').collect()\n"
    "s.stop()\n"
)
# a warm local session: the median seconds of a trivial statement (argv: master, probes)
SESSION_PROBE = (
    "import statistics, sys, time\n"
    "from pyspark.sql import SparkSession\n"
    "s = (SparkSession.builder.master(sys.argv[1]).config('spark.ui.enabled', 'false')\n"
    "     .config('spark.sql.shuffle.partitions', '2').getOrCreate())\n"
    "for _ in range(5): s.sql('select 1').collect()\n"
    "t = []\n"
    "for _ in range(int(sys.argv[2])):\n"
    "    t0 = time.perf_counter(); s.sql('select 1').collect(); t.append(time.perf_counter() - t0)\n"
    "print(statistics.median(t))\n"
    "s.stop()\n"
)


def thrift_round_trip(cluster: Any, probes: int) -> tuple[float, float]:
    """A trivial statement sent as dbt-spark sends it (PyHive: `execute(async_=True)`, `poll()`,
    `fetchall()`): the median seconds at the client, and the median duration of the same
    statements' SQL executions inside the driver (its REST API). Their difference is the round
    trip: the Thrift calls, the session's operation handling, the result's transfer."""
    from tests.spark.cluster import HOST, SESSION

    hive: Any = importlib.import_module("pyhive.hive")  # installed by make setup-spark only

    connection = hive.connect(host=HOST, port=cluster.thrift_port, username="rerun_safe", configuration=SESSION)
    client = []
    try:
        for i in range(probes + 5):
            cursor = connection.cursor()
            t0 = time.perf_counter()
            cursor.execute(f"select {i} as rerun_safe_round_trip_probe", async_=True)
            cursor.poll()
            cursor.fetchall()
            if i >= 5:  # the first ones warm the session
                client.append(time.perf_counter() - t0)
            cursor.close()
    finally:
        connection.close()
    executions = cluster.driver_api("sql?details=false&offset=0&length=100000")
    inside = [
        run["duration"] / 1000
        for run in executions
        if "rerun_safe_round_trip_probe" in str(run.get("description", "")) and run.get("status") == "COMPLETED"
    ]
    return statistics.median(client), statistics.median(inside[5:] or inside)


def statements(log_file: Path) -> tuple[int, float]:
    """The SQL statements dbt sent in one invocation, and their summed seconds (dbt's debug log)."""
    count, seconds = 0, 0.0
    for line in log_file.open() if log_file.exists() else ():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        name = event.get("info", {}).get("name")
        if name == "SQLQuery":
            count += 1
        elif name == "SQLQueryStatus":
            seconds += float(event["data"].get("elapsed", 0.0))
    return count, seconds


def run_engine(
    engine: str, env: dict[str, str], out: Path, landing: Path, batch: list[Path], full_refresh: bool
) -> dict[str, SparkStep]:
    target = ["--target", "spark" if engine == "session" else "spark_thrift"]
    vars_ = {"landing_path": str(landing)}
    tgt, logs = out / engine / "target", out / engine / "logs"
    steps = [("seed", ["seed"]), ("history", ["run"]), ("nothing_new", ["run"]), ("incremental", ["run"])]
    if full_refresh:
        steps.append(("full_refresh", ["run", "--full-refresh"]))
    runs: dict[str, SparkStep] = {}
    for name, args in steps:
        if name == "incremental":
            link_files(batch, landing)
        log(f"{engine}: dbt {' '.join(args)} ({name})")
        result = dbt(ROOT, [*args, *target], env, tgt, logs / name, vars_, f"{engine}_{name}")
        count, seconds = statements(logs / name / "dbt.log")
        runs[name] = SparkStep(result.wall_s, result.inside_s, count, seconds)
    return runs


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench --target spark", description=__doc__.splitlines()[0])
    p.add_argument("--size", type=parse_size, default=1_000_000, help="history size in events (default 1M)")
    p.add_argument("--batch-events", type=int, default=100_000, help="events a day (the batch)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--master", default="local[2]", help="RERUN_SAFE_SPARK_MASTER of the session")
    p.add_argument("--engines", default=",".join(ENGINES), help="session, cluster or both (comma-separated)")
    p.add_argument("--full-refresh", action="store_true", help="also time `dbt run --full-refresh`")
    p.add_argument("--probes", type=int, default=30, help="trivial statements timed per round-trip probe")
    p.add_argument("--out", type=Path, default=BENCH / "out-spark", help="work folder")
    p.add_argument(
        "--doc",
        type=Path,
        default=ROOT / "docs" / "benchmarks-spark.md",
        help="the page; its results.json goes beside it",
    )
    p.add_argument("--render-only", action="store_true", help="measure nothing: the page again from its results.json")
    return p


def deliveries(a: argparse.Namespace, out: Path) -> tuple[list[Path], list[Path], int]:
    days = max(2, a.size // a.batch_events)
    cfg = GeneratorConfig(seed=a.seed, start_date=START, days=days + 1, events_per_day=a.batch_events)
    folder = out / "deliveries"
    if not (folder / "_config.json").exists():
        log(f"generating {days + 1} days x {a.batch_events:,} events")
        generate(cfg, folder)
        (folder / "_config.json").write_text(json.dumps(dataclasses.asdict(cfg), default=str))
    batch_day = (START + dt.timedelta(days=days)).isoformat()
    files = sorted(folder.glob("*.csv"))
    return [f for f in files if f.name[:10] < batch_day], [f for f in files if f.name[:10] == batch_day], days


def measure_engines(a: argparse.Namespace, engines: list[str], out: Path) -> SparkResults:
    history, batch, days = deliveries(a, out)
    results: dict[str, dict[str, SparkStep]] = {}
    probes: dict[str, float] = {}  # a trivial statement's median seconds: session, cluster client, cluster driver
    started: dict[str, float] = {}
    for engine in engines:
        landing = out / engine / "landing"
        shutil.rmtree(out / engine, ignore_errors=True)
        link_files(history, landing)
        env = dict(bench_env(), RERUN_SAFE_SPARK_SCHEMA="bench")
        if engine == "session":
            env.update(RERUN_SAFE_SPARK_DIR=str(out / engine / "spark"), RERUN_SAFE_SPARK_MASTER=a.master)
            results[engine] = run_engine(engine, env, out, landing, batch, a.full_refresh)
            invoke([PY, "-c", SESSION_PROBE, a.master, str(a.probes)], env, out, out / "session_probe.out")
            probes[engine] = float((out / "session_probe.out").read_text().split()[-1])
            continue
        from tests.spark.cluster import Cluster

        cluster = Cluster(out / engine / "cluster")
        try:
            cluster.start()
            started[engine] = cluster.started_seconds
            env.update(cluster.env("bench"))
            results[engine] = run_engine(engine, env, out, landing, batch, a.full_refresh)
            probes["cluster"], probes["cluster_driver"] = thrift_round_trip(cluster, a.probes)
        finally:
            cluster.stop()
    jvm = [invoke([PY, "-c", JVM_PROBE], bench_env(), out, out / f"jvm_{i}.out").wall_s for i in range(3)]
    return SparkResults(
        events=a.size,
        history_days=days,
        batch_events=a.batch_events,
        seed=a.seed,
        master=a.master,
        probes=a.probes,
        measured=utc_now(),
        history_files=len(history),
        batch_files=len(batch),
        cluster_started_s=started,
        round_trip_s=probes,
        jvm_start_s=round(statistics.median(jvm), 1),
        runs=results,
        load_average=tuple(round(x, 1) for x in os.getloadavg()),
    )


def main(argv: list[str] | None = None) -> int:
    p = parser()
    a = p.parse_args(argv)
    engines = [e.strip() for e in a.engines.split(",") if e.strip()]
    if not engines or any(e not in ENGINES for e in engines):
        p.error(f"--engines must name session and/or cluster, got {a.engines!r}")
    if a.batch_events < 1 or a.probes < 1:
        p.error("--batch-events and --probes must be 1 or more")
    saved = a.doc.with_suffix(".results.json")
    if a.render_only:
        figures = load(SparkResults, saved)
    else:
        figures = measure_engines(a, engines, a.out.resolve())
        save(figures, saved)
    a.doc.write_text(markdown(figures))
    print(a.doc.read_text())
    return 0


def markdown(f: SparkResults) -> str:
    """The page, from the figures alone (its results.json)."""
    runs, engines = f.runs, list(f.runs)
    names = list(next(iter(runs.values())))
    head = " | ".join(f"{e} wall s | {e} model s | {e} statements" for e in engines)
    lines = [
        "# Spark: a local session and a cluster (`make bench-spark`)",
        "",
        f"{label(f.events)} events ({f.history_days} days x {f.batch_events:,}, seed {f.seed}; "
        f"{f.history_files} history files), batch: one more day ({f.batch_files} files). "
        f"`python -m bench --target spark` (bench/spark.py), {f.measured}; each step a `dbt` subprocess, dbt on "
        "one thread. Wall time includes dbt's start-up and parse; model time is the sum of the models' "
        "`execution_time`; statements are the SQL statements dbt sent (its debug log).",
        "",
        "- session: `--target spark`, Spark inside the dbt process, master `" + f.master + "`.",
        "- cluster: `--target spark_thrift`, a standalone master and two workers (one core, 1 GB each), the"
        " Thrift server as the driver (tests/spark/cluster.py)"
        + (f", started in {f.cluster_started_s['cluster']:.1f} s." if "cluster" in f.cluster_started_s else "."),
        "",
        f"| run | {head} |",
        "|---|" + "---:|" * (3 * len(engines)),
    ]
    for name in names:
        cells = " | ".join(
            f"{runs[e][name].wall_s:.1f} | {runs[e][name].model_s or 0.0:.1f} | {runs[e][name].statements}"
            for e in engines
        )
        lines.append(f"| {name.replace('_', ' ')} | {cells} |")
    lines.append("")
    rt = f.round_trip_s
    if "session" in rt:
        lines.append(
            f"- A trivial statement (`select 1`, median of {f.probes}) in the warm session:"
            f" {1000 * rt['session']:.1f} ms (pyspark's `spark.sql(...).collect()`, a separate process)."
        )
    if "cluster" in rt:
        trip = rt["cluster"] - rt["cluster_driver"]
        lines.append(
            f"- The same through the Thrift server, sent as dbt-spark sends it: {1000 * rt['cluster']:.1f} "
            f"ms at the client, {1000 * rt['cluster_driver']:.1f} ms of it the SQL execution inside the "
            f"driver, so {1000 * trip:.1f} ms of round trip a statement."
        )
        for name in ("nothing_new", "incremental"):
            n, wall = runs["cluster"][name].statements, runs["cluster"][name].wall_s
            lines.append(
                f"- The Thrift round trips of the {name.replace('_', ' ')} run on the cluster: {n} "
                f"statements x {1000 * trip:.1f} ms = {n * trip:.1f} s, {100 * n * trip / wall:.1f} % of "
                "its wall time."
            )
    if set(engines) == set(ENGINES):
        for name in ("history", "incremental"):
            ratio = runs["cluster"][name].wall_s / runs["session"][name].wall_s
            lines.append(f"- {name.capitalize()} run, cluster / session wall time: {ratio:.2f}.")
    lines.append(f"- JVM start-up (a local session started, one query, stopped; median of 3): {f.jvm_start_s} s.")
    lines.append(
        f"- Load average at the end: {list(f.load_average)}" + "".join(f.notes[:1]) + ". Peak memory is not "
        "reported: the JVMs are child processes (the session's) or other processes (the cluster's) that "
        "os.wait4 does not see."
    )
    lines += ["", *f.notes[1:]] if len(f.notes) > 1 else []
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
