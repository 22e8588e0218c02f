"""Time the incremental run on Postgres (`--target postgres`) against history size: R1.

    .venv/bin/python -m bench --target postgres --size 1M,10M     # make bench-postgres: 1M and 10M events
    .venv/bin/python -m bench --target postgres --size 100k,300k --batch-events 20000 --out /tmp/bp \
        --doc /tmp/bp/pg.md                                         # a smoke run

Same deliveries as the size sweep (pipeline_demo.generate, seed 7, `--batch-events` a day, one day
held back as the batch, so the batch is the same at every size). One throw-away PostgreSQL
server for the whole run (tests/postgres/server.py: the tests' own, initdb in a temporary
folder, fsync off), and for each size in `--sizes` a database of its own (`bench_<size>`,
schema `bench`), where each step is a `dbt` subprocess (bench/measure.py's dbt(): wall time, model
times from run_results.json, per-statement times from the debug log):

1. `dbt seed` + `dbt run` the history (a full build of every file);
2. `VACUUM (ANALYZE)` of the database: the statistics and visibility map autovacuum gives a
   warehouse at rest (tables made by CREATE TABLE AS have none until it runs), so the
   incremental run's plans do not depend on whether autovacuum got there first;
3. land the batch, `dbt run` (t_inc: one incremental run).

With `--explain`, the server loads auto_explain and logs the plan of every statement of the
incremental run, with actual times and buffers (EXPLAIN (ANALYZE, BUFFERS), nested statements
too), into `--out`/<size>/incremental_plans.log: which lookups scan the history. It slows the
run (timing every plan node), so its figures are not t_inc.

R1 = t_inc(size) / t_inc(smallest size), on model time (sum of the models' execution_time) and
on wall time. Writes the figures to ``<doc>.results.json`` and renders the page (--doc) from them,
with each table's size and indexes after the incremental run; nothing is asserted.
``--render-only`` renders the page again from that file.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import re
import shutil
import signal
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
    parse_size,
    snapshot_project,
    utc_now,
)
from bench.measure import dbt
from bench.records import Code, PgIndex, PgSize, PgTable, PostgresResults, StepTimes
from bench.results import Run, load, save
from pipeline_demo.generate import GeneratorConfig, generate
from tests.postgres.server import PostgresServer, throwaway_server

SCHEMA = "bench"
# auto_explain's settings for --explain (set on the size's database for the incremental run)
EXPLAIN = {
    "log_min_duration": "0",
    "log_analyze": "on",
    "log_buffers": "on",
    "log_nested_statements": "on",
    "log_timing": "on",
    "log_triggers": "on",
}


def admin(server: PostgresServer, dbname: str, *statements: str) -> list[list[tuple[Any, ...]]]:
    """Statements on database `dbname`, in autocommit; the rows of each."""
    at: Any = dataclasses.replace(server, dbname=dbname)  # tests/postgres/server.py is not typed
    con = at.connect()
    out = []
    try:
        with con.cursor() as cur:
            for sql in statements:
                cur.execute(sql)
                out.append(cur.fetchall() if cur.description else [])
    finally:
        con.close()
    return out


def deliveries_for(n: int, a: argparse.Namespace, work: Path) -> tuple[list[Path], list[Path], int]:
    """Generate (or reuse) the deliveries of size n: (history files, batch files, history days)."""
    days = max(2, n // a.batch_events)
    cfg = GeneratorConfig(seed=a.seed, start_date=START, days=days + 1, events_per_day=a.batch_events)
    deliveries = work / "deliveries"
    marker = deliveries / "_config.json"
    key = json.dumps(dataclasses.asdict(cfg), default=str, sort_keys=True)
    if not (marker.exists() and marker.read_text() == key):
        shutil.rmtree(deliveries, ignore_errors=True)
        log(f"{label(n)}: generating {days + 1} days x {a.batch_events:,} events")
        generate(cfg, deliveries)
        marker.write_text(key)
    else:
        log(f"{label(n)}: reusing deliveries in {deliveries}")
    batch_day = (START + dt.timedelta(days=days)).isoformat()
    files = sorted(deliveries.glob("*.csv"))
    return [f for f in files if f.name[:10] < batch_day], [f for f in files if f.name[:10] == batch_day], days


def land(files: list[Path], landing: Path) -> None:
    link_files(files, landing)
    for f in files:
        (landing / f.name).chmod(0o644)  # the server's OS user reads it


def bench_size(n: int, a: argparse.Namespace, server: PostgresServer, project: Path, out: Path) -> PgSize:
    lab = label(n)
    work = out / lab
    history, batch, days = deliveries_for(n, a, work)
    dbname = "bench_" + lab.lower().replace(".", "_")
    admin(server, "postgres", f"drop database if exists {dbname} with (force)", f"create database {dbname}")
    landing = server.new_landing()  # under the cluster's folder: the server's OS user can read it
    land(history, landing)
    env = dict(
        bench_env(),
        RERUN_SAFE_PG_HOST=server.host,
        RERUN_SAFE_PG_PORT=str(server.port),
        RERUN_SAFE_PG_USER=server.user,
        RERUN_SAFE_PG_DBNAME=dbname,
        RERUN_SAFE_PG_SCHEMA=SCHEMA,
    )
    vars_ = {"landing_path": str(landing), "rerun_safe_now": BENCH_NOW}
    tgt, logs = work / "target", work / "logs"
    pg = ["--target", "postgres"]
    runs: dict[str, Run] = {}
    log(f"{lab}: dbt seed")
    runs["seed"] = dbt(project, ["seed", *pg], env, tgt, logs / "seed", vars_, "seed")
    log(f"{lab}: dbt run (history: {len(history)} files, {days} days)")
    runs["history_build"] = dbt(project, ["run", *pg], env, tgt, logs / "history", vars_, "history_build")
    log(f"{lab}: vacuum (analyze)")
    t0 = time.perf_counter()
    admin(server, dbname, "vacuum (analyze)")
    vacuum_s = time.perf_counter() - t0
    land(batch, landing)
    log_file = server.log_file
    if a.explain and log_file is None:
        raise RuntimeError("--explain: the server keeps no log file to read the plans from")
    if a.explain and log_file:  # new sessions only: dbt's connections of the incremental run
        admin(server, "postgres", *[f"alter database {dbname} set auto_explain.{k} = {v}" for k, v in EXPLAIN.items()])
        log_start = log_file.stat().st_size
    log(f"{lab}: dbt run (incremental, {len(batch)} batch files)")
    runs["incremental"] = dbt(project, ["run", *pg], env, tgt, logs / "incremental", vars_, "incremental")
    if a.explain and log_file:
        admin(server, "postgres", f"alter database {dbname} reset all")
        with log_file.open("rb") as fh:
            fh.seek(log_start)
            (work / "incremental_plans.log").write_bytes(fh.read())
    tables, indexes = admin(
        server,
        dbname,
        "select c.relname, c.reltuples::bigint, pg_total_relation_size(c.oid) from pg_class as c"
        f" where c.relnamespace = '{SCHEMA}'::regnamespace and c.relkind = 'r' order by c.relname",
        f"select tablename, indexdef from pg_indexes where schemaname = '{SCHEMA}' order by tablename, indexname",
    )
    shutil.rmtree(landing, ignore_errors=True)
    if not a.keep_databases:
        admin(server, "postgres", f"drop database {dbname} with (force)")
    return PgSize(
        n=n,
        label=lab,
        days=days,
        batch_events=a.batch_events,
        database=dbname,
        history_files=len(history),
        batch_files=len(batch),
        vacuum_analyze_s=round(vacuum_s, 2),
        runs={
            name: StepTimes(r.wall_s, r.inside_s, r.overhead_s, dict(r.models), dict(r.statements))
            for name, r in runs.items()
        },
        tables=tuple(PgTable(t, int(rows), round(size / 1e6, 1)) for t, rows, size in tables),
        indexes=tuple(PgIndex(t, d) for t, d in indexes),
    )


def ratio(num: float | None, den: float | None) -> str:
    return f"{num / den:.2f}" if num is not None and den else "n/a"


def _f(v: float | None, nd: int) -> str:
    return "-" if v is None else f"{v:.{nd}f}"


def render(saved: PostgresResults) -> str:
    """The page, from its results.json alone."""
    results, project = saved.results, saved.code
    base = results[0]
    inc = [r.runs["incremental"] for r in results]
    models = sorted({m for r in inc for m in r.models}, key=lambda m: -inc[-1].models.get(m, 0.0))
    head = " | ".join(r.label for r in results)
    rule = "|".join(["---:"] * len(results))

    def row(name: str, cells: list[str]) -> str:
        return f"| {name} | {' | '.join(cells)} |"

    lines = [
        "# Benchmarks on Postgres",
        "",
        "Rendered by `python -m bench --target postgres` (bench/postgres.py; `make bench-postgres`: 1M and 10M "
        "events) from [benchmarks-postgres.results.json](benchmarks-postgres.results.json). The same deliveries as "
        'the DuckDB sweep (docs/benchmarks.md, "Method"): N / batch events delivery days, one more day held back '
        "as the batch, so the batch is the same at every size. Each size in a database of its own on one "
        "throw-away server: `dbt seed`, `dbt run` (the history), `VACUUM (ANALYZE)`, the batch landed, `dbt run` "
        "(t_inc). R1 = t_inc(size) / t_inc(smallest size); model s = the sum of the models' execution_time, "
        "wall = the dbt process. What was changed on Postgres and why, with earlier runs: "
        "[decisions/2026-12-06-bench-postgres.md](decisions/2026-12-06-bench-postgres.md).",
        "",
        "## The run",
        "",
        f"Postgres (`--target postgres`, PostgreSQL {saved.postgres}; a throw-away cluster, fsync off, default "
        f"memory settings), batch: one more day of {saved.batch_events:,} events, seed {saved.seed}; "
        f"{saved.measured}, code {project.commit}"
        + (f" with uncommitted changes to {', '.join(project.dirty_files)}" if project.dirty_files else "")
        + f", load average at the end {list(saved.load_average)}.",
        "",
        f"| step | {head} |",
        f"|---|{rule}|",
        row("history (events)", [f"{r.n:,} ({r.days} days, {r.history_files} files)" for r in results]),
        row("history build: wall s", [f"{r.runs['history_build'].wall_s:.1f}" for r in results]),
        row("vacuum (analyze) s", [f"{r.vacuum_analyze_s:.1f}" for r in results]),
        row("**incremental: wall s**", [f"**{x.wall_s:.2f}**" for x in inc]),
        row("**incremental: model s**", [f"**{_f(x.model_s, 2)}**" for x in inc]),
        row("incremental: dbt overhead s", [_f(x.overhead_s, 2) for x in inc]),
        *[row(m, [f"{x.models.get(m, 0.0):.2f}" for x in inc]) for m in models],
        "",
    ]
    for r, x in zip(results[1:], inc[1:], strict=True):
        lines.append(
            f"R1 ({r.label} vs {base.label}): **{ratio(x.model_s, inc[0].model_s)}** on model time, "
            f"**{ratio(x.wall_s, inc[0].wall_s)}** on wall time."
        )
    return "\n".join([*lines, *_largest(results[-1])]) + "\n"


def _largest(largest: PgSize) -> list[str]:
    """Where the incremental run's time goes at the largest size, and its tables and indexes."""
    return [
        "",
        f"Where the incremental run's model time goes at {largest.label} (seconds per statement kind, "
        "from dbt's debug log):",
        "",
        "| model | statement | s |",
        "|---|---|---:|",
        *[
            f"| {node} | {kind} | {s:.2f} |"
            for node, kinds in sorted(largest.runs["incremental"].statements.items())
            for kind, s in sorted(kinds.items(), key=lambda kv: -kv[1])
            if s >= 0.01
        ],
        "",
        f"Tables and indexes at {largest.label}, after the incremental run:",
        "",
        "| table | rows | MB | indexes |",
        "|---|---:|---:|---|",
        *[
            f"| {t.table} | {t.rows:,} | {t.mb} | "
            + (
                "<br>".join(
                    re.sub(r" ON \S+ USING btree", "", i.index).removeprefix("CREATE ")
                    for i in largest.indexes
                    if i.table == t.table
                )
                or "none"
            )
            + " |"
            for t in largest.tables
        ],
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench --target postgres", description=__doc__.splitlines()[0])
    p.add_argument("--size", default="1M,10M", help="history sizes in events, comma-separated (default 1M,10M)")
    p.add_argument("--batch-events", type=int, default=100_000, help="events a day (the batch)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", type=Path, default=BENCH / "out-postgres", help="work folder")
    p.add_argument(
        "--doc",
        type=Path,
        default=ROOT / "docs" / "benchmarks-postgres.md",
        help="the page; its results.json goes beside it",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="log the plans of the incremental run's statements (auto_explain; slows the run)",
    )
    p.add_argument(
        "--keep-databases",
        action="store_true",
        help="keep each size's database until the server stops (inspection in a debugger)",
    )
    p.add_argument("--render-only", action="store_true", help="measure nothing: the page again from its results.json")
    a = p.parse_args(argv)
    try:
        sizes = sorted({parse_size(s) for s in a.size.split(",") if s.strip()})
    except argparse.ArgumentTypeError as e:
        p.error(f"--size: {e}")
    if not sizes or a.batch_events < 1:
        p.error("--size needs a size at least, --batch-events 1 or more")
    saved_path = a.doc.with_suffix(".results.json")
    saved = load(PostgresResults, saved_path) if a.render_only else measure_sizes(a, sizes, saved_path)
    a.doc.write_text(render(saved))
    print(a.doc.read_text())
    return 0


def measure_sizes(a: argparse.Namespace, sizes: list[int], saved_path: Path) -> PostgresResults:
    # a SIGTERM (timeout, CI cancel) unwinds like Ctrl-C, so the server is stopped and its folder deleted
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    out = a.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    project, commit, dirty = snapshot_project(out / "project")
    saved = PostgresResults(code=Code(commit, dirty), batch_events=a.batch_events, seed=a.seed)
    settings = {"session_preload_libraries": "auto_explain"} if a.explain else None
    with throwaway_server(prefix="rerun_safe_pg_bench_", settings=settings) as server:
        saved = dataclasses.replace(saved, postgres=admin(server, "postgres", "show server_version")[0][0][0])
        for n in sizes:
            saved = dataclasses.replace(saved, results=(*saved.results, bench_size(n, a, server, project, out)))
            save(saved, saved_path)  # a run stopped part-way keeps the sizes it measured
    saved = dataclasses.replace(saved, measured=utc_now(), load_average=tuple(round(x, 1) for x in os.getloadavg()))
    save(saved, saved_path)
    return saved
