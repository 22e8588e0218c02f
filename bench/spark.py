"""Time the pipeline on Spark local (`--target spark`) at 1M events: one incremental run and a
full refresh, and how much of a run is JVM start-up.

    .venv/bin/python bench/spark.py --out /tmp/bench_spark --doc docs/benchmarks-spark.md   # 1M events
    .venv/bin/python bench/spark.py --events 20000 --out /tmp/bs      # a smoke run, a few minutes

Same deliveries as bench/run.py (pipeline_demo.generate, seed 7, `--batch-events` a day, one day
held back as the batch). Steps, each a `dbt` subprocess on one Spark warehouse (a fresh
RERUN_SAFE_SPARK_DIR under --out):

1. `dbt seed` + `dbt run` the history (the history build: a full build of every file);
2. land the batch, `dbt run` (t_inc: one incremental run);
3. `dbt run --full-refresh` (t_full);
4. JVM start-up: a Python process that starts and stops the same local Spark session, three
   times (the median), against the wall time of a `dbt run` with nothing new.

Prints the figures and writes them as Markdown (--doc); nothing is asserted.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import PY, ROOT, START, dbt, invoke, label, link_files, log  # noqa: E402

from pipeline_demo.generate import GeneratorConfig, generate  # noqa: E402

JVM_PROBE = (
    "from pyspark.sql import SparkSession\n"
    "s = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false').getOrCreate()\n"
    "s.sql('select 1').collect()\n"
    "s.stop()\n"
)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--events", type=int, default=1_000_000, help="history size in events")
    p.add_argument("--batch-events", type=int, default=100_000, help="events a day (the batch)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--master", default="local[2]", help="RERUN_SAFE_SPARK_MASTER")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--doc", type=Path, default=None, help="write the Markdown here")
    a = p.parse_args(argv)
    out = a.out.resolve()
    days = max(2, a.events // a.batch_events)
    cfg = GeneratorConfig(seed=a.seed, start_date=START, days=days + 1, events_per_day=a.batch_events)
    deliveries = out / "deliveries"
    if not (deliveries / "_config.json").exists():
        log(f"generating {days + 1} days x {a.batch_events:,} events")
        generate(cfg, deliveries)
        (deliveries / "_config.json").write_text(json.dumps(dataclasses.asdict(cfg), default=str))
    batch_day = (START + __import__("datetime").timedelta(days=days)).isoformat()
    files = sorted(deliveries.glob("*.csv"))
    history = [f for f in files if f.name[:10] < batch_day]
    batch = [f for f in files if f.name[:10] == batch_day]
    landing = out / "landing"
    import shutil

    for folder in (landing, out / "spark"):
        shutil.rmtree(folder, ignore_errors=True)
    link_files(history, landing)
    env = dict(__import__("os").environ, RERUN_SAFE_SPARK_DIR=str(out / "spark"),
               RERUN_SAFE_SPARK_MASTER=a.master, RERUN_SAFE_SPARK_SCHEMA="bench")
    vars_ = {"landing_path": str(landing)}
    tgt, logs = out / "target", out / "logs"
    spark = ["--target", "spark"]
    runs = {}
    log("dbt seed")
    runs["seed"] = dbt(ROOT, ["seed", *spark], env, tgt, logs / "seed", vars_, "seed")
    log("dbt run: the history")
    runs["history"] = dbt(ROOT, ["run", *spark], env, tgt, logs / "history", vars_, "history")
    log("dbt run: nothing new")
    runs["nothing_new"] = dbt(ROOT, ["run", *spark], env, tgt, logs / "nothing", vars_, "nothing_new")
    link_files(batch, landing)
    log("dbt run: the batch (incremental)")
    runs["incremental"] = dbt(ROOT, ["run", *spark], env, tgt, logs / "inc", vars_, "incremental")
    log("dbt run --full-refresh")
    runs["full_refresh"] = dbt(ROOT, ["run", "--full-refresh", *spark], env, tgt, logs / "full", vars_, "full_refresh")
    jvm = []
    for i in range(3):
        probe = invoke([PY, "-c", JVM_PROBE], env, out, out / f"jvm_{i}.out")
        jvm.append(probe["wall_s"])
    figures = {
        "events": a.events, "history_days": days, "batch_events": a.batch_events, "master": a.master,
        "history_files": len(history), "batch_files": len(batch),
        **{f"{name}_wall_s": round(r["wall_s"], 1) for name, r in runs.items()},
        **{f"{name}_model_s": round(r["model_s"], 1) for name, r in runs.items()},
        "jvm_start_s": round(statistics.median(jvm), 1),
        "load_average": [round(x, 1) for x in __import__("os").getloadavg()],
    }
    (out / "results.json").write_text(json.dumps(figures, indent=2))
    lines = [
        f"Spark local (`{a.master}`), {label(a.events)} events ({days} days x {a.batch_events:,}, seed {a.seed}), "
        f"batch: one more day ({len(batch)} files). `bench/spark.py`, {time.strftime('%Y-%m-%d')}.",
        "",
        "| run | wall s | model s |",
        "|---|---:|---:|",
        *[f"| {name} | {r['wall_s']:.1f} | {r['model_s']:.1f} |" for name, r in runs.items()],
        "",
        f"JVM start-up (a local session started, one query, stopped; median of 3): {figures['jvm_start_s']} s, "
        f"that is {100 * figures['jvm_start_s'] / runs['incremental']['wall_s']:.0f} % of the incremental run's wall "
        f"time and {100 * figures['jvm_start_s'] / runs['nothing_new']['wall_s']:.0f} % of a run with nothing new. "
        f"Load average at the end: {figures['load_average']}. Peak memory is not reported: the JVM is a "
        "child process that os.wait4 does not see.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.doc:
        a.doc.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
