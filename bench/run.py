"""Measure the incremental cost of rerun_safe against history size.

    .venv/bin/python bench/run.py                       # 1M, 10M, 30M events: about 30 min
    .venv/bin/python bench/run.py --small --out /tmp/b --doc /tmp/b/b.md   # CI smoke, ~1 min

For each history size N, in one process on this machine:

1. generate ``days + 1`` delivery days of ``batch_events`` events each (pipeline_demo.generate, the
   usual pathologies), ``days = N / batch_events``, so the held-back last day is a batch of the
   same size at every N (100k events: 1 % of 10M); the history is every file dated before it;
2. ``dbt run`` the history (``--history-tests``: ``dbt build``, tests timed apart; at
   ``--memory-size``, 30M, at ``--memory-limit`` 2GB: the memory run), land the batch, ``dbt run``
   (incremental: t_inc), then, at the largest size up to 10M, where R2 and RF are judged
   (``--full-refresh-sizes``), ``dbt run --full-refresh`` (t_full) and the one-pass floor
   (``--one-pass-sizes``);
3. the floor: bench/floor.sql (bench/floor.py, DuckDB outside dbt) on a copy of the warehouse
   taken before the incremental run, checked equal to dbt's fct_order_items/fct_daily_revenue;
   the incremental run and the floor each run ``--repeats`` times (2), alternately, on fresh copies
   of that warehouse, and the fastest of each is the one reported (every repeat is listed);
4. the peer: bench/microbatch_peer (dbt's microbatch strategy, lookback 3) on the same files, at 1M
   and 10M (its history in month batches, its incremental run in its own day batches);
5. at one size (1M by default) the harness idempotency check, timed against one build.

Every dbt invocation is a subprocess: wall time, peak RSS (getrusage of a small wrapper), per-model
``execution_time`` from run_results.json and per-statement times from dbt's JSON debug log.
Writes ``--out``/results.json, the Markdown report ``--doc`` and a PNG plot next to it. Ratios are
reported against their targets; nothing here asserts a timing.

    .venv/bin/python bench/run.py --replot-from docs/benchmarks.md   # redraw benchmarks.png, run nothing

redraws the plot from the page's own step tables (results.json is not kept), refusing a page whose
ratio table does not follow from them.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
PEER = BENCH / "microbatch_peer"
PY = sys.executable
DBT = str(Path(PY).parent / "dbt")
sys.path.insert(0, str(ROOT))

from harness import diff_tables  # noqa: E402
from pipeline_demo.generate import GeneratorConfig, generate  # noqa: E402

sys.path.insert(0, str(BENCH))
from per_row import TITLE as PER_ROW_TITLE  # noqa: E402
from per_row import render_per_row  # noqa: E402

START = dt.date(2026, 11, 1)
DEFAULT_SIZES = [1_000_000, 10_000_000, 30_000_000]
LOOKBACK_DAYS = 3
LATENESS_H = 72


# --------------------------------------------------------------------------- helpers


def label(n: int) -> str:
    for div, suffix in ((1_000_000, "M"), (1_000, "k")):
        if n >= div and n % (div // 10) == 0:
            v = n / div
            return f"{v:g}{suffix}"
    return str(n)


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# Runs argv[3:] and writes its peak RSS (KB) to argv[1]. Through this small process, because Linux
# copies the parent's memory high-water mark into a forked child: measured directly, every child
# of this benchmark would report at least this process's own peak (its DuckDB diffs reach GBs).
_PEAK_RSS = ("import resource, subprocess, sys; rc = subprocess.call(sys.argv[2:]); "
             "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); "
             "sys.exit(rc)")


RSS_PROBE = "wrapper"  # recorded with the results: runs before it measured with os.wait4 directly
RSS_CAVEAT = ("The peak RSS figures of this run were read from the child directly, without the wrapper process: "
              "each is at least the "
              "benchmark process's own peak at the time (Linux copies it into a forked child), so a figure below "
              "that peak is hidden by it; equal figures in one table are the benchmark's, not the step's.")


def invoke(cmd: list[str], env: dict, cwd: Path, out_file: Path) -> dict:
    """Run cmd; wall time and the peak RSS of the child (and its waited children), in MB."""
    out_file.parent.mkdir(parents=True, exist_ok=True)
    rss_file = out_file.with_suffix(".rss")
    rss_file.unlink(missing_ok=True)
    load0 = os.getloadavg()[0]
    started_at = time.time()
    t0 = time.perf_counter()
    with open(out_file, "w") as fh:
        proc = subprocess.run([PY, "-c", _PEAK_RSS, str(rss_file), *cmd], cwd=str(cwd), env=env, stdout=fh,
                              stderr=subprocess.STDOUT)
    wall = time.perf_counter() - t0
    peak_kb = int(rss_file.read_text()) if rss_file.exists() else 0
    return {"cmd": " ".join(cmd), "rc": proc.returncode, "wall_s": wall, "started_at": started_at,
            "peak_rss_mb": peak_kb / 1024.0, "output": str(out_file),
            "load_before": load0, "load_after": os.getloadavg()[0]}


def _statement_kind(sql: str) -> str:
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


def statement_breakdown(log_file: Path) -> dict:
    """Seconds per (node, statement kind) from dbt's JSON debug log."""
    out: dict[str, dict[str, float]] = {}
    pending: dict[str, tuple[str, str]] = {}
    if not log_file.exists():
        return out
    for line in log_file.open():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        name = d.get("info", {}).get("name")
        thread = d.get("info", {}).get("thread", "")
        if name == "SQLQuery":
            node = d["data"].get("conn_name", "?")
            node = node.split(".")[-1] if node.startswith(("model.", "test.")) else "(run level)"
            pending[thread] = (node, _statement_kind(d["data"].get("sql", "")))
        elif name == "SQLQueryStatus" and thread in pending:
            node, kind = pending.pop(thread)
            per = out.setdefault(node, {})
            per[kind] = per.get(kind, 0.0) + float(d["data"].get("elapsed", 0.0))
    return out


# dbt's JSON log events that split a dbt process's wall time into phases (see wall_phases)
PHASE_EVENTS = {"MainReportVersion": "first", "ConcurrencyLine": "run_start", "FinishedRunningStats": "run_end",
                "CommandCompleted": "completed"}


def wall_phases(log_file: Path, started_at: float, wall_s: float) -> dict:
    """A dbt process's wall time in phases, from its JSON log's timestamps and the wall clock:
    `start` (the processes start and Python imports dbt, up to its first log line), `parse` (flags,
    project, partial parse and manifest, up to "Concurrency: ..."), `run` (hooks, the adapter's
    cache, the models: dbt's own elapsed time), `artifacts` (run_results.json, manifest, summary
    lines), `exit` (after "Command ... succeeded": the adapter's connections closed (for DuckDB a
    checkpoint of whatever the run wrote after its on-run-end checkpoint, normally nothing) and the
    interpreter's shutdown). Seconds; {} without a log."""
    seen: dict[str, float] = {}
    full_parse = None
    if not log_file.exists():
        return {}
    for line in log_file.open():
        if '"name": "' not in line:
            continue
        try:
            info = json.loads(line)["info"]
        except (ValueError, KeyError):
            continue
        if info.get("name") == "UnableToPartialParse":  # the whole project parsed again, and why
            full_parse = info.get("msg", "").removeprefix("Unable to do partial parsing because ")
        key = PHASE_EVENTS.get(info.get("name", ""))
        if key and key not in seen:
            seen[key] = dt.datetime.fromisoformat(info["ts"].replace("Z", "+00:00")).timestamp()
    if set(seen) != set(PHASE_EVENTS.values()):
        return {}
    ended_at = started_at + wall_s
    return {"start": seen["first"] - started_at, "parse": seen["run_start"] - seen["first"],
            "run": seen["run_end"] - seen["run_start"], "artifacts": seen["completed"] - seen["run_end"],
            "exit": ended_at - seen["completed"], "full_parse": full_parse}


# dbt threads for every dbt invocation of the benchmark (--threads). 1 by default: DuckDB already
# runs each statement on every core, so two models at once only split the cores and the memory
# limit. Measured on a 10M-event full refresh: wall 133.7 s on 1 thread, 132.4 s on 2, but the
# models' summed execution time 126.8 s vs 145.0 s (each model ran slower while sharing).
DBT_THREADS = 1

# The clock of every benchmark run (var rerun_safe_now): the generated history runs up to 300 days
# from 2026-11-01 (1,000 for bench-large), past the machine's date, and an ingested_at more than
# max_ingested_ahead_hours after a run's clock is quarantined (ingested_in_future). A fixed clock
# after every generated day keeps the figures independent of the day the bench runs.
BENCH_NOW = "2030-01-01 00:00:00"


def dbt(project: Path, args: list[str], env: dict, target: Path, logs: Path, vars_: dict, name: str) -> dict:
    """One dbt invocation in a subprocess; timings from the wall clock and run_results.json."""
    shutil.rmtree(logs, ignore_errors=True)
    cmd = [DBT, *args, "--threads", str(DBT_THREADS), "--project-dir", str(project), "--profiles-dir", str(project),
           "--target-path", str(target), "--log-path", str(logs), "--log-format-file", "json",
           "--vars", json.dumps(vars_)]
    r = invoke(cmd, env, project, logs.parent / f"{name}.out")
    r["name"] = name
    models: dict[str, float] = {}
    tests = hooks = 0.0
    n_tests = 0
    elapsed = None
    rr = target / "run_results.json"
    if rr.exists() and rr.stat().st_mtime >= time.time() - r["wall_s"] - 5:
        rr_json = json.loads(rr.read_text())
        elapsed = rr_json.get("elapsed_time")
        for res in rr_json["results"]:
            uid, t = res["unique_id"], float(res.get("execution_time") or 0.0)
            if uid.startswith("model."):
                models[uid.split(".")[-1]] = t
            elif uid.startswith(("test.", "unit_test.")):
                tests += t
                n_tests += 1
            else:
                hooks += t
    r.update(models=models, model_s=sum(models.values()), tests_s=tests, n_tests=n_tests, hooks_s=hooks,
             dbt_elapsed_s=elapsed,
             # start-up + parse: wall minus dbt's own elapsed run time (models overlap on 2 threads,
             # so wall - sum(models) can be negative)
             overhead_s=(r["wall_s"] - elapsed) if elapsed else r["wall_s"] - sum(models.values()) - tests - hooks,
             statements=statement_breakdown(logs / "dbt.log"),
             phases=wall_phases(logs / "dbt.log", r["started_at"], r["wall_s"]))
    if r["rc"] != 0:
        tail = Path(r["output"]).read_text()[-3000:]
        raise RuntimeError(f"{name} failed (rc {r['rc']}): {' '.join(cmd)}\n{tail}")
    return r


PROJECT_PARTS = ("dbt_project.yml", "profiles.yml", "packages.yml", "dependencies.yml", "package-lock.yml",
                 "models", "macros", "seeds", "snapshots", "analyses", "tests/dbt")


def snapshot_project(dest: Path) -> dict:
    """Copy the dbt project (code only) so one benchmark run measures one version of the models,
    whatever is edited in the checkout meanwhile."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for part in PROJECT_PARTS:
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, dest / part)
        elif src.exists():
            shutil.copy2(src, dest / part)
    info = {"path": str(dest)}
    try:
        info["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                        text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "models", "macros", "dbt_project.yml"],
                               cwd=ROOT, capture_output=True, text=True, check=True).stdout.splitlines()
        info["dirty_files"] = [line[3:] for line in dirty]
    except (OSError, subprocess.CalledProcessError):
        pass
    return info


def remove(p: Path) -> None:
    """A file, or a folder (`<db>.duckdb.tmp`: DuckDB's spill folder, left behind by a killed run)."""
    shutil.rmtree(p) if p.is_dir() else p.unlink()


def link_files(files: list[Path], dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for f in files:
        target = dest / f.name
        if target.exists():
            continue
        try:
            os.link(f, target)  # same inode: same size and mtime, so the same delivery id
        except OSError:
            shutil.copy2(f, target)


def sql_str(path: Path) -> str:
    """A path as a SQL string literal (quotes doubled): paths are data, never SQL."""
    return "'" + str(path).replace("'", "''") + "'"


@contextlib.contextmanager
def attached(db_a: Path, db_b: Path):
    """An in-memory DuckDB connection with `db_a` attached as `a` and `db_b` as `b`, read-only."""
    import duckdb

    con = duckdb.connect()
    try:
        con.execute(f"attach {sql_str(db_a)} as a (read_only)")
        con.execute(f"attach {sql_str(db_b)} as b (read_only)")
        yield con
    finally:
        con.close()


def table_diff(db_a: Path, db_b: Path, pairs: list[tuple[str, str, str]]) -> dict:
    """Multiset differences of tables in two DuckDB files: the harness's diff_tables, which counts
    rows with multiplicity and NULL as equal to NULL, as EXCEPT ALL both ways did. Only rows count
    (only_a/only_b: rows on one side only, with multiplicity): a column whose type differs between
    the sides is compared by value, as EXCEPT ALL did; columns that do not pair up stop the bench."""
    out = {}
    with attached(db_a, db_b) as con:
        for key, qa, qb in pairs:
            d = diff_tables(con, qa, qb, sample_size=0, name=key)
            unpaired = [change for change in d.schema_changes if " type " not in change]
            if unpaired:
                raise RuntimeError(f"{key}: the two sides cannot be compared row by row: {'; '.join(unpaired)}")
            out[key] = {"rows": d.left_rows, "only_a": d.surplus_left, "only_b": d.surplus_right,
                        "equal": d.surplus_left == 0 and d.surplus_right == 0}
    return out


def query(db: Path, sql: str, params=None) -> list:
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


# --------------------------------------------------------------------------- one size


FCT_COLS = {
    "fct_order_items": "company_id, order_item_id, order_id, currency, first_event_time, last_event_time, "
                       "gross_cents, refunded_cents, net_cents, event_count",
    "fct_daily_revenue": "company_id, revenue_date, currency, gross_cents, refunded_cents, event_count, net_cents",
}


def fct_pairs(schema_a: str = "a.main", schema_b: str = "b.main") -> list:
    return [(t, f"select {c} from {schema_a}.{t}", f"select {c} from {schema_b}.{t}") for t, c in FCT_COLS.items()]


def bench_size(n: int, a: argparse.Namespace, env: dict, project: Path) -> dict:
    lab = label(n)
    work = Path(a.out) / lab
    epd = a.batch_events
    days = max(2, n // epd)
    cfg = GeneratorConfig(seed=a.seed, start_date=START, days=days + 1, events_per_day=epd)
    deliveries = work / "deliveries"
    marker = deliveries / "_config.json"
    cfg_key = json.dumps(dataclasses.asdict(cfg), default=str, sort_keys=True)
    res: dict = {"n": n, "label": lab, "days": days, "events_per_day": epd}

    # 1. generate (reused when the same config was generated before in this --out)
    if not (marker.exists() and marker.read_text() == cfg_key):
        shutil.rmtree(work, ignore_errors=True)
        log(f"{lab}: generating {days + 1} days x {epd:,} events")
        summary = generate(cfg, deliveries)
        marker.write_text(cfg_key)
        res["generate_s"] = summary.elapsed_s
    else:
        log(f"{lab}: reusing deliveries in {deliveries}")
        res["generate_s"] = None
    for p in ("landing", "history"):
        shutil.rmtree(work / p, ignore_errors=True)
    for p in work.glob("*.duckdb*"):
        remove(p)
    batch_day = START + dt.timedelta(days=days)
    files = sorted(deliveries.glob("*.csv"))
    history = [f for f in files if f.name[:10] < batch_day.isoformat()]
    batch = [f for f in files if f.name[:10] == batch_day.isoformat()]
    res["history_files"], res["batch_files"] = len(history), len(batch)
    res["history_mb"] = sum(f.stat().st_size for f in history) / 1e6
    res["batch_mb"] = sum(f.stat().st_size for f in batch) / 1e6
    landing, hist_dir = work / "landing", work / "history"
    link_files(history, landing)
    link_files(history, hist_dir)

    wh, floor_db, mb_db = work / "wh.duckdb", work / "floor.duckdb", work / "mb.duckdb"
    ours_env = dict(env, DBT_DUCKDB_PATH=str(wh))
    vars_ = {"landing_path": str(landing), "rerun_safe_now": BENCH_NOW}
    tgt, logs = work / "target", work / "logs"
    runs = res["runs"] = {}

    # 2. our history build, incremental run, (later) full refresh
    # with data tests where the idempotency check (two dbt builds) is compared with one build
    history_cmd = "build" if a.history_tests or n == a.idempotency_size else "run"
    res["history_cmd"] = history_cmd
    log(f"{lab}: dbt {history_cmd} (history)")
    if history_cmd == "run":  # staging joins the reference seeds: load them first
        dbt(project, ["seed"], ours_env, tgt, logs / "seed", vars_, "seed")
    if n == a.memory_size:
        # the memory run: the history build is a full build from an empty warehouse (more work than
        # --full-refresh, which keeps the full_refresh=false tables) under a low memory_limit; it
        # must complete by spilling to disk
        res["memory_run"] = memory_run(project, history_cmd, ours_env, a.memory_limit, tgt, logs, vars_, wh)
        if res["memory_run"]["completed"]:
            runs["history_build"] = res["memory_run"]["run"]
        else:
            log(f"{lab}: the build at memory_limit {a.memory_limit} failed; building at the default limit")
            for p in work.glob("*.duckdb*"):
                remove(p)
            dbt(project, ["seed"], ours_env, tgt, logs / "seed", vars_, "seed")
    if "history_build" not in runs:
        runs["history_build"] = dbt(project, [history_cmd], ours_env, tgt, logs / "history", vars_, "history_build")
    elif res["memory_run"].get("completed"):
        # the memory run's profile (another memory_limit) is not the incremental run's, and dbt parses
        # the whole project again when the profile changes ("Unable to do partial parsing because
        # profile has changed": 2.7 s of the 30M run's wall time); a scheduled run follows a run with
        # its own profile, so parse once with it, untimed
        dbt(project, ["parse"], ours_env, tgt, logs / "parse", vars_, "parse")
    res["history_rows"] = query(wh, "select count(*) from main.stg_landing__events")[0][0]
    res["history_events"] = query(wh, "select count(distinct event_id) from main.int_event_copies_classified")[0][0]
    shutil.copyfile(wh, floor_db)
    pre_db = work / "pre_incremental.duckdb"  # the history warehouse again, for the repeated runs
    if a.repeats > 1:
        shutil.copyfile(wh, pre_db)

    # 4a. peer history (same landed files)
    mb_env = dict(env, DBT_DUCKDB_PATH=str(mb_db))
    peer_start = (START - dt.timedelta(days=LOOKBACK_DAYS + 1)).isoformat()
    peer = a.peer and n in a.peer_sizes
    if peer:
        log(f"{lab}: microbatch peer history")
        # month batches: the history by the fastest correct path (dbt microbatch day by day took 6 min at
        # 10M); the measured incremental run below uses the peer's own day batches
        runs["peer_history"] = dbt(PEER, ["run", "--event-time-start", peer_start, "--event-time-end",
                                          batch_day.isoformat()], mb_env, work / "mb_target",
                                   logs / "peer_history", dict(vars_, peer_batch_size="month"), "peer_history")
        res["peer_history_batches"] = "month"

    # land the batch; our incremental run and (3.) the floor on the pre-incremental copy, alternately,
    # --repeats times, each repeat on fresh copies of the history warehouse (ours at the same path: the
    # same profile, so dbt parses partially); the step table shows the fastest of each
    link_files(batch, landing)
    tries: dict[str, list[dict]] = {"incremental": [], "floor": []}
    for i in range(a.repeats):
        suffix = f"_{i + 1}" if i else ""
        if i:
            shutil.copyfile(pre_db, wh)
            shutil.copyfile(pre_db, floor_db)
            os.sync()  # the copies' dirty pages are not written during the timed runs
        log(f"{lab}: dbt run (incremental, {len(batch)} batch files){f', repeat {i + 1}' if i else ''}")
        tries["incremental"].append(dbt(project, ["run"], ours_env, tgt, logs / f"incremental{suffix}", vars_,
                                        f"incremental{suffix}"))
        log(f"{lab}: floor{f', repeat {i + 1}' if i else ''}")
        fl = invoke([PY, str(BENCH / "floor.py"), "--db", str(floor_db), "--lateness-hours", str(LATENESS_H),
                     *[str(landing / f.name) for f in batch]], env, ROOT, logs / f"floor{suffix}.out")
        if fl["rc"] != 0:
            raise RuntimeError("floor failed:\n" + Path(fl["output"]).read_text()[-3000:])
        fl.update(json.loads(Path(fl["output"]).read_text().strip().splitlines()[-1]))
        tries["floor"].append(fl)
    if a.repeats > 1:
        remove(pre_db)
    runs["incremental"] = min(tries["incremental"], key=lambda x: x["model_s"])
    runs["floor"] = min(tries["floor"], key=lambda x: x["sql_s"])
    res["repeats"] = {k: [{"wall_s": x["wall_s"], "inside_s": x["model_s" if k == "incremental" else "sql_s"]}
                          for x in v] for k, v in tries.items()}
    res["batch_rows"] = query(
        wh, "select count(*) from main.stg_landing__events where _loaded_run_seq = "
            "(select max(_loaded_run_seq) from main.stg_landing__events)")[0][0]
    res["floor_vs_dbt"] = table_diff(wh, floor_db, fct_pairs())

    # 4b. the peer's incremental run: the window lookback 3 gives when run on the batch day
    correct_db = work / "mb_correct.duckdb"
    peer_correct = peer and n in a.peer_correct_sizes
    if peer_correct:  # its warehouse before that run, for the wide run below
        shutil.copyfile(mb_db, correct_db)
        os.sync()  # the copy's dirty pages are not written during the timed run
    if peer:
        log(f"{lab}: microbatch peer incremental")
        win_start = (batch_day - dt.timedelta(days=LOOKBACK_DAYS)).isoformat()
        runs["peer_incremental"] = dbt(PEER, ["run", "--event-time-start", win_start, "--event-time-end",
                                              (batch_day + dt.timedelta(days=1)).isoformat()],
                                       mb_env, work / "mb_target", logs / "peer_incremental", vars_,
                                       "peer_incremental")
        res["peer"] = peer_correctness(wh, mb_db, batch_day)
    # 4c. the peer at equal correctness: the same run from the same warehouse, its window widened to the
    # earliest day whose daily revenue the batch changed (the peer's revenue before the run against ours
    # after it), and never narrower than lookback 3 (which reads the batch's files). The narrowest window
    # of that form that can be right, so the most favourable to the peer; a user of the peer would have
    # to choose it before the batch arrives.
    if peer_correct:
        lookback_start = batch_day - dt.timedelta(days=LOOKBACK_DAYS)
        first_day = min(first_changed_day(wh, correct_db) or lookback_start, lookback_start)
        end = batch_day + dt.timedelta(days=1)
        log(f"{lab}: microbatch peer incremental, window from {first_day} (equal correctness)")
        runs["peer_correct"] = dbt(PEER, ["run", "--event-time-start", first_day.isoformat(), "--event-time-end",
                                          end.isoformat()], dict(env, DBT_DUCKDB_PATH=str(correct_db)),
                                   work / "mb_correct_target", logs / "peer_correct", vars_, "peer_correct")
        pc = peer_correctness(wh, correct_db, batch_day)
        res["peer_correct"] = {"window_start": first_day.isoformat(), "window_days": (end - first_day).days,
                               "equal": pc["equal"], "diff_rows": pc["diff_rows"], "days_wrong": pc["days_wrong"],
                               "abs_net_cents_wrong": pc["abs_net_cents_wrong"]}

    # full refresh of ours, compared with the incremental result (kept in the floor copy); at the
    # largest size the history build above is the full build measured (--full-refresh-sizes)
    if n not in a.full_refresh_sizes:
        log(f"{lab}: no full refresh at this size (--full-refresh-sizes)")
        return cleanup(res, work, a, env, project)
    log(f"{lab}: dbt run --full-refresh")
    runs["full_refresh"] = dbt(project, ["run", "--full-refresh"], ours_env, tgt, logs / "full_refresh", vars_,
                               "full_refresh")
    res["full_vs_incremental"] = table_diff(wh, floor_db, fct_pairs())

    # the one-pass floor: the same full recompute by hand (bench/floor.py --full-from), every landed
    # file (history and batch, as the full refresh read them) in one scan, into empty tables
    if n not in a.one_pass_sizes:
        return cleanup(res, work, a, env, project)
    log(f"{lab}: one-pass floor (full recompute)")
    full_floor_db = work / "floor_full.duckdb"
    ff = invoke([PY, str(BENCH / "floor.py"), "--full-from", str(wh), "--db", str(full_floor_db),
                 "--lateness-hours", str(LATENESS_H), *[str(landing / f.name) for f in history + batch]],
                env, ROOT, logs / "floor_full.out")
    if ff["rc"] != 0:
        raise RuntimeError("one-pass floor failed:\n" + Path(ff["output"]).read_text()[-3000:])
    ff.update(json.loads(Path(ff["output"]).read_text().strip().splitlines()[-1]))
    runs["floor_full"] = ff
    res["full_vs_floor_full"] = table_diff(wh, full_floor_db, fct_pairs())

    return cleanup(res, work, a, env, project)


def cleanup(res: dict, work: Path, a: argparse.Namespace, env: dict, project: Path) -> dict:
    """The idempotency check (at its size), then the size's files go unless --keep."""
    if res["n"] == a.idempotency_size:
        res["idempotency"] = idempotency(work / "history", work, env, project)
    if not a.keep:
        for p in work.glob("*.duckdb*"):
            remove(p)
        shutil.rmtree(work / "landing", ignore_errors=True)
        shutil.rmtree(work / "history", ignore_errors=True)
        if not a.keep_deliveries:
            shutil.rmtree(work / "deliveries", ignore_errors=True)
    return res


@contextlib.contextmanager
def peak_size(paths: Callable[[], list[Path]], into: dict, key: str, every_s: float = 1.0):
    """Poll the summed size of `paths()` (files, or folders summed over their files) every `every_s`
    seconds while the block runs; its largest value, in MB, goes to into[key]."""
    peak, done = [0], threading.Event()

    def size() -> int:
        total = 0
        for p in paths():
            with contextlib.suppress(OSError):  # a spill file removed while listed
                total += (sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) if p.is_dir()
                          else p.stat().st_size if p.exists() else 0)
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
        into[key] = max(peak[0], size()) / 1e6


def memory_run(project: Path, cmd: str, env: dict, limit: str, tgt: Path, logs: Path, vars_: dict,
               wh: Path) -> dict:
    """The history build at DuckDB memory_limit `limit`: completed or not, peak RSS, and the peak size
    of DuckDB's spill folder (`<warehouse>.tmp`, polled every half second)."""
    log(f"memory run: dbt {cmd} at memory_limit {limit}")
    spill: dict = {}
    try:
        with peak_size(lambda: [Path(f"{wh}.tmp")], spill, "mb", every_s=0.5):
            r = dbt(project, [cmd], dict(env, DBT_DUCKDB_MEMORY_LIMIT=limit), tgt, logs / "memory_run", vars_,
                    "memory_run")
    except RuntimeError as e:
        lines = [ln for ln in str(e).splitlines() if ln.strip()]
        cause = next((ln for ln in lines if "Error" in ln and "Done." not in ln), lines[-1] if lines else "")
        return {"limit": limit, "completed": False, "error": cause.strip()[:300], "spill_peak_mb": spill["mb"]}
    return {"limit": limit, "completed": True, "peak_rss_mb": r["peak_rss_mb"], "wall_s": r["wall_s"],
            "model_s": r["model_s"], "spill_peak_mb": spill["mb"], "run": r}


# Our daily revenue (a) against the peer's (b), one row per (company, day, currency) of either: its day d,
# the net difference dn, and whether the row differs (bad; net = gross - refunded on both sides).
REVENUE_DIFF_SQL = """
    select coalesce(a.revenue_date, b.revenue_date) as d,
           coalesce(a.net_cents, 0) - coalesce(b.net_cents, 0) as dn,
           (a.revenue_date is null or b.revenue_date is null or a.net_cents != b.net_cents
            or a.gross_cents != b.gross_cents or a.event_count != b.event_count) as bad
    from a.main.fct_daily_revenue a
    full join b.main.mb_daily_revenue b using (company_id, revenue_date, currency)"""


def first_changed_day(wh: Path, mb_db: Path) -> dt.date | None:
    """The earliest revenue_date on which the peer's daily revenue (mb_db) differs from ours (wh)."""
    with attached(wh, mb_db) as con:
        return con.execute(f"select min(d) filter (where bad) from ({REVENUE_DIFF_SQL})").fetchone()[0]


def peer_correctness(wh: Path, mb_db: Path, batch_day: dt.date) -> dict:
    """What the microbatch peer gets wrong after the batch, against rerun_safe's tables."""
    win = batch_day - dt.timedelta(days=LOOKBACK_DAYS)
    diff = table_diff(wh, mb_db, [(
        "fct_daily_revenue", f"select {FCT_COLS['fct_daily_revenue']} from a.main.fct_daily_revenue",
        f"select {FCT_COLS['fct_daily_revenue']} from b.main.mb_daily_revenue")])["fct_daily_revenue"]
    with attached(wh, mb_db) as con:
        days_wrong, net_wrong = con.execute(
            f"select count(distinct d) filter (where bad), coalesce(sum(abs(dn)), 0) from ({REVENUE_DIFF_SQL})").fetchone()
        seq = con.execute("select max(_loaded_run_seq) from a.main.stg_landing__events").fetchone()[0]
        late, late_out = con.execute(f"""
            select count(*) filter (where epoch(ingested_at) - epoch(event_time) > {LATENESS_H} * 3600),
                   count(*) filter (where epoch(ingested_at) - epoch(event_time) > {LATENESS_H} * 3600
                                      and cast(event_time as date) < date '{win}')
            from a.main.stg_landing__events where _loaded_run_seq = {seq} and invalid_reason is null""").fetchone()
        stale = con.execute(f"""
            with changed as (
                select distinct event_id from a.main.int_event_copies_classified where _changed_run_seq = {seq}
            )
            select count(distinct c.event_id)
            from a.main.int_event_copies_classified c semi join changed using (event_id)
            where c.revenue_date < date '{win}' and c.copy_status in ('current', 'superseded')""").fetchone()[0]
    return {"window_start": win.isoformat(), "diff_rows": diff["only_a"] + diff["only_b"], "equal": diff["equal"],
            "days_wrong": days_wrong, "abs_net_cents_wrong": int(net_wrong), "batch_late_rows": late,
            "batch_late_rows_before_window": late_out, "changed_events_touching_days_before_window": stale}


def idempotency(hist_dir: Path, work: Path, env: dict, project: Path) -> dict:
    """`python -m harness idempotency` on the history, timed; else two builds + a SQL diff."""
    idem = work / "idem"
    shutil.rmtree(idem, ignore_errors=True)
    idem.mkdir(parents=True)
    log(f"{work.name}: harness idempotency")
    r = invoke([PY, "-m", "harness", "idempotency", "--deliveries", str(hist_dir), "--project-dir", str(project),
                "--profiles-dir", str(project), "--work-dir", str(idem), "--quiet",
                "--summary", str(idem / "summary.md")], env, ROOT, work / "logs" / "idempotency.out")
    r["method"] = "python -m harness idempotency"
    r["passed"] = r["rc"] == 0
    if r["rc"] in (0, 1):
        return r
    # the harness could not run: two builds and a multiset diff of every table, by hand
    log(f"{work.name}: harness idempotency unavailable (rc {r['rc']}); timing two builds + SQL diff")
    wh = idem / "wh.duckdb"
    e = dict(env, DBT_DUCKDB_PATH=str(wh))
    vars_ = {"landing_path": str(hist_dir), "rerun_safe_now": BENCH_NOW}
    t0 = time.perf_counter()
    b1 = dbt(project, ["build"], e, idem / "target", idem / "logs1", vars_, "idem_build_1")
    snap = idem / "snap.duckdb"
    shutil.copyfile(wh, snap)
    b2 = dbt(project, ["build"], e, idem / "target", idem / "logs2", vars_, "idem_build_2")
    tables = [t for (t,) in query(wh, "select table_name from information_schema.tables where table_schema = 'main' "
                                      "and table_name not like 'rerun_safe_%' order by 1")]
    diff = table_diff(wh, snap, [(t, f"select * from a.main.{t}", f"select * from b.main.{t}") for t in tables])
    return {"method": "two dbt builds + harness.diff_tables in DuckDB (the harness CLI unavailable)",
            "rc": 0, "wall_s": time.perf_counter() - t0, "peak_rss_mb": max(b1["peak_rss_mb"], b2["peak_rss_mb"]),
            "passed": all(d["equal"] for d in diff.values()), "diff": diff}


# --------------------------------------------------------------------------- report


def machine() -> dict:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    from importlib.metadata import version

    def v(p: str) -> str:
        try:
            return version(p)
        except Exception:  # noqa: BLE001
            return "?"

    return {"nproc": os.cpu_count(), "mem_gb": round(mem_gb, 1), "cpu": cpu, "os": platform.platform(),
            "python": platform.python_version(), "dbt-core": v("dbt-core"), "dbt-duckdb": v("dbt-duckdb"),
            "duckdb": v("duckdb")}


def ratio(num, den):
    return num / den if num is not None and den else None


def verdict(value, target: float, le: bool) -> str:
    if value is None:
        return "not measured"
    return "met" if (value <= target if le else value >= target) else "not met"


def ratios(results: list[dict], idem_size: int, total_s: float | None = None, t_target: float = 30) -> list[dict]:
    by = {r["n"]: r for r in results}
    sizes = sorted(by)
    lo, hi = by[sizes[0]], by[sizes[-1]]
    mid = by.get(10_000_000) or by[sizes[len(sizes) // 2]] if len(sizes) > 1 else hi
    w = lambda r, k: r["runs"].get(k, {}).get("wall_s")  # noqa: E731
    m = lambda r, k: r["runs"].get(k, {}).get("model_s")  # noqa: E731
    fl = lambda r: r["runs"]["floor"]["wall_s"]  # noqa: E731
    out = [
        {"id": "R1", "name": f"t_inc({hi['label']}) / t_inc({lo['label']})",
         "value": ratio(w(hi, "incremental"), w(lo, "incremental")),
         "models": ratio(m(hi, "incremental"), m(lo, "incremental")), "target": 1.5, "le": True},
    ]
    # judged where --full-refresh ran (at 30M the history build is a full build from empty at 2GB: more work)
    r2 = max((r for r in results if "full_refresh" in r["runs"]), key=lambda r: r["n"], default=hi)
    out.append({"id": "R2", "name": f"t_full({r2['label']}) / t_inc({r2['label']})",
                "value": ratio(w(r2, "full_refresh"), w(r2, "incremental")),
                "models": ratio(m(r2, "full_refresh"), m(r2, "incremental")), "target": 10, "le": False})
    for i, r in enumerate([mid, hi] if mid is not hi else [hi]):
        out.append({"id": f"R3{'ab'[i]}", "name": f"t_inc({r['label']}) / t_floor({r['label']})",
                    "value": ratio(w(r, "incremental"), fl(r)),
                    "models": ratio(m(r, "incremental"), r["runs"]["floor"]["sql_s"]), "target": 1.5, "le": True})
    one_pass = [r for r in results if "floor_full" in r["runs"]]
    rf = mid if "floor_full" in mid["runs"] else max(one_pass, key=lambda r: r["n"]) if one_pass else hi
    out.append({"id": "RF", "name": f"t_full({rf['label']}) / t_one_pass_floor({rf['label']})",
                "value": ratio(w(rf, "full_refresh"), rf["runs"].get("floor_full", {}).get("wall_s")),
                "models": ratio(m(rf, "full_refresh"), rf["runs"].get("floor_full", {}).get("sql_s")),
                "target": 1.0, "le": True})
    # one row per size the peer ran at (R4a at the smallest, R4b next...): the target holds at each
    peers = sorted((r for r in results if "peer_incremental" in r["runs"]), key=lambda r: r["n"])
    r4_id = lambda i: "R4" + (chr(ord("a") + i) if len(peers) > 1 else "")  # noqa: E731
    for i, pr in enumerate(peers or [None]):
        out.append({"id": r4_id(i),
                    "name": f"t_microbatch({pr['label'] if pr else '-'}) / t_inc({pr['label'] if pr else '-'})",
                    "value": ratio(w(pr, "peer_incremental"), w(pr, "incremental")) if pr else None,
                    "models": ratio(m(pr, "peer_incremental"), m(pr, "incremental")) if pr else None,
                    "target": 2, "le": False,
                    "note": ("equal daily revenue" if pr and pr["peer"]["equal"] else
                             f"NOT equal correctness: {pr['peer']['days_wrong']} revenue day(s) wrong" if pr else "")})
    # the same, with the peer given a window wide enough to be right (where it was run)
    for i, pr in enumerate(peers):
        if "peer_correct" not in pr["runs"]:
            continue
        pc = pr["peer_correct"]
        out.append({"id": r4_id(i) + "=",
                    "name": f"t_microbatch_correct({pr['label']}) / t_inc({pr['label']}): the peer at equal correctness, "
                            f"its window from {pc['window_start']} ({pc['window_days']} days)",
                    "value": ratio(w(pr, "peer_correct"), w(pr, "incremental")),
                    "models": ratio(m(pr, "peer_correct"), m(pr, "incremental")), "target": 2, "le": False,
                    "note": "equal daily revenue" if pc["equal"] else
                            f"still NOT equal: {pc['days_wrong']} revenue day(s) wrong"})
    per_row = lambda r: (m(r, "incremental") or 0) / max(1, r.get("batch_rows") or 1)  # noqa: E731
    out.insert(1, {"id": "R1n", "name": f"the same per batch row ({hi['batch_rows']:,} rows at {hi['label']}, "
                                        f"{lo['batch_rows']:,} at {lo['label']}: the redelivered files on the batch day are drawn at random from the history, so its size varies with N)",
                   "value": None, "models": ratio(per_row(hi), per_row(lo)), "target": 1.5, "le": True})
    # not a target: how the hand-written floor, exact like our models, itself grows with history
    out.insert(2, {"id": "R1f", "name": f"t_floor({hi['label']}) / t_floor({lo['label']}): the floor's own growth, "
                                        "for reference (exact SQL by hand, no dbt)",
                   "value": ratio(fl(hi), fl(lo)),
                   "models": ratio(hi["runs"]["floor"]["sql_s"], lo["runs"]["floor"]["sql_s"]),
                   "target": None, "le": True, "reference": True})
    ir = next((r for r in results if "idempotency" in r), None)
    idem_v = ratio(ir["idempotency"]["wall_s"], w(ir, "history_build")) if ir else None
    il = ir["label"] if ir else (label(idem_size) if idem_size > 0 else "not run")
    out.append({"id": "R5", "name": f"t_idempotency_check({il}) / t_build({il})",
                "value": idem_v, "models": None, "target": 2.5, "le": True})
    for o in out:  # judged on model time (what dbt spends in the models); R5 has wall time only
        o["verdict"] = "reference" if o.get("reference") else verdict(
            o["models"] if o.get("models") is not None else o["value"], o["target"], o["le"])
    mr = next((r for r in results if "memory_run" in r), None)
    if mr:
        x = mr["memory_run"]
        out.append({"id": "M", "name": f"full build of the {mr['label']} history from empty at memory_limit "
                                       f"{x['limit']}: peak RSS, MB (it must complete, spilling)",
                    "value": x.get("peak_rss_mb"), "models": None, "target": None, "le": True,
                    "verdict": "met (completed)" if x["completed"] else "not met (failed: see its size)"})
    if total_s is not None:
        out.append({"id": "T", "name": "this benchmark run, minutes (generation included)", "value": total_s / 60,
                    "models": None, "target": t_target, "le": True, "verdict": verdict(total_s / 60, t_target, True)})
    return out


def fmt(v, nd=2) -> str:
    return "-" if v is None else f"{v:,.{nd}f}"


def overhead(x: dict) -> str:
    if x.get("dbt_elapsed_s") is not None:
        return fmt(x["overhead_s"])
    v = x["overhead_s"] + x.get("hooks_s", 0.0)
    return fmt(v) if v >= 0 else "n/a (models overlapped)"


def load(x: dict) -> str:
    return f"{x['load_before']:.1f} / {x['load_after']:.1f}" if "load_before" in x else "-"


def repeats_of(r: dict) -> int:
    """How many times a size's incremental run (and floor) ran; 0 in results older than --repeats."""
    return len(r.get("repeats", {}).get("incremental", []))


def size_table(r: dict) -> list[str]:
    rows = ["| step | command | wall s | model s | tests s | dbt overhead s | peak RSS MB | load avg before/after |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
    mem = f", memory_limit {r['memory_run']['limit']}" if r.get("memory_run", {}).get("completed") else ""
    best = f", the fastest of {repeats_of(r)}" if repeats_of(r) > 1 else ""
    names = [("history_build", f"dbt {r.get('history_cmd', 'build')} (history{mem})"),
             ("incremental", f"dbt run (incremental, +1 batch{best})"),
             ("full_refresh", "dbt run --full-refresh"), ("floor", f"floor: bench/floor.sql (DuckDB{best})"),
             ("floor_full", "one-pass floor: bench/floor.py --full-from"),
             ("peer_history", f"microbatch peer: dbt run (history, {r.get('peer_history_batches', 'day')} batches)"),
             ("peer_incremental", "microbatch peer: dbt run (lookback 3)"),
             ("peer_correct", "microbatch peer: dbt run, window wide enough to be right"
              + (f" (from {r['peer_correct']['window_start']})" if "peer_correct" in r else ""))]
    for key, title in names:
        x = r["runs"].get(key)
        if not x:
            continue
        if key in ("floor", "floor_full"):
            rows.append(f"| {key} | {title} | {fmt(x['wall_s'])} | {fmt(x['sql_s'])} | - | "
                        f"{fmt(x['wall_s'] - x['sql_s'])} | {fmt(x['peak_rss_mb'], 0)} | {load(x)} |")
        else:
            rows.append(f"| {key} | {title} | {fmt(x['wall_s'])} | {fmt(x['model_s'])} | {fmt(x['tests_s'])} | "
                        f"{overhead(x)} | {fmt(x['peak_rss_mb'], 0)} | {load(x)} |")
    if "idempotency" in r:
        x = r["idempotency"]
        rows.append(f"| idempotency | {x['method']} | {fmt(x['wall_s'])} | - | - | - | {fmt(x['peak_rss_mb'], 0)} | "
                    f"{load(x)} |")
    return rows


def model_breakdown(results: list[dict], run: str) -> list[str]:
    models = []
    for r in results:
        for mname in r["runs"].get(run, {}).get("models", {}):
            if mname not in models:
                models.append(mname)
    head = "| model | " + " | ".join(r["label"] for r in results) + " |"
    rows = [head, "|---|" + "---:|" * len(results)]
    for mname in models:
        rows.append(f"| {mname} | " + " | ".join(fmt(r["runs"].get(run, {}).get("models", {}).get(mname))
                                               for r in results) + " |")
    rows.append("| **sum of models** | " + " | ".join(fmt(r["runs"].get(run, {}).get("model_s")) for r in results) + " |")
    rows.append("| dbt start-up, parse (wall - dbt elapsed) | " + " | ".join(
        overhead(r["runs"][run]) if run in r["runs"] else "-" for r in results) + " |")
    rows.append("| **wall** | " + " | ".join(fmt(r["runs"].get(run, {}).get("wall_s")) for r in results) + " |")
    return rows


PHASE_NAMES = (("start", "start: process and Python imports, to dbt's first log line"),
               ("parse", "parse: project, partial parse, manifest"),
               ("run", "run: hooks, adapter cache, models (dbt's elapsed)"),
               ("artifacts", "artifacts: run_results, manifest, summary"),
               ("exit", "exit: connections closed, interpreter shutdown"))


def phase_table(results: list[dict], run: str) -> list[str]:
    """The wall time of `run` at each size in phases (wall_phases), with the models' sum beside the
    run phase; [] when no size has them (a page rendered from results without the phases)."""
    sized = [r for r in results if r["runs"].get(run, {}).get("phases")]
    if not sized:
        return []
    rows = [f"The `{run}` run's wall time in phases (seconds; from dbt's JSON log timestamps and the wall clock, "
            "bench/run.py wall_phases):", "",
            "| phase | " + " | ".join(r["label"] for r in sized) + " |", "|---|" + "---:|" * len(sized)]
    for key, title in PHASE_NAMES:
        rows.append(f"| {title} | " + " | ".join(fmt(r["runs"][run]["phases"][key]) for r in sized) + " |")
    rows.append("| the whole project parsed again (no partial parse) | " + " | ".join(
        "-" if "full_parse" not in r["runs"][run]["phases"]  # results from before it was recorded
        else f"yes: {r['runs'][run]['phases']['full_parse']}" if r["runs"][run]["phases"]["full_parse"] else "no"
        for r in sized) + " |")
    rows.append("| of the run phase, in models | " + " | ".join(fmt(r["runs"][run]["model_s"]) for r in sized) + " |")
    rows.append("| of the run phase, DuckDB's checkpoint (the last on-run-end hook) | " + " | ".join(
        fmt(r["runs"][run].get("statements", {}).get("(run level)", {}).get("checkpoint")) for r in sized) + " |")
    rows.append("| **wall** | " + " | ".join(fmt(r["runs"][run]["wall_s"]) for r in sized) + " |")
    return [*rows, ""]


def statement_table(r: dict, run: str) -> list[str]:
    st = r["runs"].get(run, {}).get("statements", {})
    kinds = sorted({k for v in st.values() for k in v})
    rows = ["| node | " + " | ".join(kinds) + " |", "|---|" + "---:|" * len(kinds)]
    for node, per in sorted(st.items(), key=lambda kv: -sum(kv[1].values())):
        rows.append(f"| {node} | " + " | ".join(fmt(per.get(k)) for k in kinds) + " |")
    return rows


def render(results: list[dict], rat: list[dict], mach: dict, a: argparse.Namespace, plot: Path | None) -> str:
    L: list[str] = []
    add = L.append
    add("# Benchmarks: incremental cost against history size")
    add("")
    mode, again = (("--small", "`.venv/bin/python bench/run.py --small`") if a.small else
                   ("--quick", "`make bench-quick`") if a.quick else ("full run", "`make bench`"))
    add(f"Generated by `bench/run.py` ({mode}) on "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Re-run with {again}; "
        "numbers are measurements of one run, not guarantees.")
    add("")
    add("## Machine")
    add("")
    add(f"- CPU: {mach['cpu']}, nproc = {mach['nproc']}, memory {mach['mem_gb']} GB; {mach['os']}")
    add(f"- python {mach['python']}, dbt-core {mach['dbt-core']}, dbt-duckdb {mach['dbt-duckdb']}, "
        f"duckdb {mach['duckdb']}; dbt threads {mach.get('dbt_threads', 2)} (`--threads`: DuckDB runs each statement on "
        "every core, so models one at a time; on 2 threads the models' summed time counts the time they shared "
        "the cores), DuckDB memory_limit "
        f"{os.environ.get('DBT_DUCKDB_MEMORY_LIMIT', '8GB')}")
    code = mach.get("code", {})
    add(f"- code measured: commit {code.get('commit', '?')}"
        + (f" plus uncommitted changes to {', '.join(code['dirty_files'])}" if code.get("dirty_files") else "")
        + " (a snapshot of models/macros taken when the run started)")
    add("")
    add("## Method")
    add("")
    add(f"- History of N events = N / {results[0]['events_per_day']:,} delivery days of "
        f"{results[0]['events_per_day']:,} events (pipeline_demo/generate.py, seed {a.seed}, every "
        "pathology on: redeliveries, re-sent rows, overlaps, out-of-order files, new versions and moves, "
        "conflicts, late rows, malformed rows, empty files). One more day is generated and held back: "
        "that day's files are the batch, the same size at every N, so any growth of t_inc with N is the "
        "cost of the history, not of the batch.")
    add("- `dbt run` builds the history (`dbt build`, models and data tests, at the size of the idempotency "
        "check, whose two builds it is compared with); the batch files are then linked into the "
        "landing folder and `dbt run` does the incremental run (t_inc); `dbt run --full-refresh` on the same "
        "warehouse gives t_full, at the sizes listed under \"Not measured\". At the largest size no full refresh "
        "runs: the history build is the memory run, at a low DuckDB memory_limit. It is a full build from an "
        "empty warehouse, more work than `--full-refresh` (it also inspects every file and posts the whole "
        "ledger, which a full refresh keeps: `full_refresh=false`). t_inc and t_full both exclude data tests, "
        "so they compare like with like; the history build's test time is shown apart.")
    repeats = max(map(repeats_of, results), default=1)
    if repeats > 1:
        add(f"- The incremental run and the floor run {repeats} times at every size (`--repeats`), alternately "
            "(ours, the floor, ours, the floor), each repeat on fresh copies of the warehouse as the history build "
            "left it; the tables and ratios take the fastest of each (ours by model time, the floor by its time "
            "inside DuckDB), as noise on these shared 2-core machines only ever adds time. Every repeat's "
            "figures are listed under its size.")
    add("- wall = the whole dbt subprocess (start-up, parse, hooks, models); model s = sum of `execution_time` "
        "of the models in target/run_results.json (on more than one dbt thread the sum can exceed wall); dbt overhead = "
        "wall - dbt's own `elapsed_time` (start-up and parse), or wall - models - tests in older results. Peak RSS = "
        "`ru_maxrss` of the subprocess (DuckDB runs inside it), read by a small wrapper process: Linux copies a "
        "parent's memory high-water mark into a forked child, so a child measured directly from the benchmark "
        "process would report at least the benchmark's own peak.")
    add("- **Floor**: `bench/floor.sql`, run by `bench/floor.py` in its own process on a copy of the warehouse "
        "taken before the incremental run: one transaction that reads the batch CSV files, validates and types "
        "them like staging, appends them to stg_landing__events, folds them into the copies of the touched "
        "events and re-classifies those events (lateness, corrections, conflicts, current version), writes the "
        "copies back, replaces the affected items of fct_order_items by key and the affected revenue_date "
        "partitions of fct_daily_revenue. The old copies of the touched events and items are found by a "
        "probe of the 128-bit key column alone and fetched by rowid, as our models do. It does not maintain "
        "fct_revenue_ledger, late_events, "
        "quarantined_events or the run log. Its model s column is the time inside DuckDB; wall adds Python "
        "and DuckDB start-up.")
    add("- **One-pass floor** (RF): the same SQL run by `bench/floor.py --full-from` as a full recompute, "
        "after our full refresh: a new database with our tables empty (the recorded corrections copied), "
        "every landed file read in one multi-file `read_csv` (ordinals from insertion order), then staged "
        "rows, copies, order items and daily revenue written in one transaction. It writes the tables our "
        "full refresh rewrites except the ledger, late_events and quarantined_events (which ours also "
        "maintains), and does not inspect or hash the files. Its business tables are checked equal to ours.")
    month = any(r.get("peer_history_batches") == "month" for r in results)
    add("- **Peer**: `bench/microbatch_peer`, dbt's `microbatch` strategy, batch_size day"
        + (" (its history is built with month batches: the same daily revenue in a few batches)" if month else "")
        + ", lookback 3: "
        "`mb_events` on ingested_at (reads only the files dated in the batch window or up to 3 days later), "
        "`mb_daily_revenue` on the event's day, each batch recomputing its days from every version of every "
        "event with a row on those days, with the contract's watermark, earliest-copy and conflict rules. "
        "Its incremental run is `dbt run --event-time-start <batch day - 3> --event-time-end <batch day + 1>`, "
        "the exact window `lookback: 3` gives when run on the batch day (the data is dated in the future of the "
        "wall clock, so the window is passed explicitly). At equal correctness (R4 with `=`, at "
        "`--peer-correct-sizes`): the same run from the same warehouse (copied before the lookback-3 run), its "
        "window starting on the earliest day whose daily revenue the batch changed (the peer's revenue before "
        "the run against ours after it), or the lookback-3 window's start if that is earlier: the narrowest window "
        "of that form that can be right; its daily revenue is checked against ours.")
    add("")
    log_file = BENCH / "optimisation_log.md"
    if log_file.exists():  # hand-written: what each change bought, kept across re-renders
        add(log_file.read_text().rstrip())
        add("")
    # the figures as the page's tables show them (two decimals), so the section follows from the page
    shown = [dict(r, runs={k: {f: round(v, 2) if f in ("wall_s", "model_s", "sql_s") and v is not None else v
                               for f, v in x.items()} for k, x in r["runs"].items()}) for r in results]
    for line in render_per_row(shown):
        add(line)
    add("## Ratios")
    add("")
    add("models = ratio of dbt's own model execution time (run_results.json; for the floor, its time inside DuckDB), "
        "on which each target is judged; wall = the same ratio on wall times, dbt start-up and parse included "
        "(R5 has wall times only).")
    add("")
    add("| id | ratio | wall | models only | target | verdict |")
    add("|---|---|---:|---:|---|---|")
    for o in rat:
        tgt = "-" if o["target"] is None else ("<= " if o["le"] else ">= ") + f"{o['target']:g}"
        note = f" ({o['note']})" if o.get("note") else ""
        add(f"| {o['id']} | {o['name']} | {fmt(o['value'])} | {fmt(o.get('models'))} | {tgt} | "
            f"**{o['verdict']}**{note} |")
    add("")
    if plot:
        add(f"![cost against history size]({plot.name})")
        add("")
    add("## Results per size")
    for r in results:
        add("")
        add(f"### N = {r['label']} events ({r['n']:,})")
        add("")
        add(f"{r['days']} history days x {r['events_per_day']:,} events; history {r['history_files']} files, "
            f"{r['history_rows']:,} landed rows, {r['history_mb']:,.0f} MB, {r['history_events']:,} distinct events; "
            f"batch {r['batch_files']} files, {r['batch_rows']:,} rows, {r['batch_mb']:,.1f} MB."
            + (f" Generation took {r['generate_s']:.1f} s." if r.get("generate_s") else ""))
        add("")
        L.extend(size_table(r))
        add("")
        for key, title in (("floor_vs_dbt", "floor vs dbt incremental"),
                           ("full_vs_floor_full", "one-pass floor vs dbt full refresh"),
                           ("full_vs_incremental", "full refresh vs incremental")):
            if key in r:
                add(f"- {title}: " + ", ".join(
                    f"{t} {'**equal**' if d['equal'] else '**NOT equal** (' + str(d['only_a']) + ' / ' + str(d['only_b']) + ' rows differ)'}"
                    for t, d in r[key].items()))
        if repeats_of(r) > 1:
            add("- every repeat, alternately, each on a fresh copy of the history warehouse (model s or the "
                "floor's time inside DuckDB / wall s): " + "; ".join(
                    f"{title} " + ", ".join(f"{fmt(x['inside_s'])} / {fmt(x['wall_s'])}" for x in r["repeats"][key])
                    for key, title in (("incremental", "incremental"), ("floor", "floor"))))
        if "memory_run" in r:
            x = r["memory_run"]
            add(f"- memory run: the history build (a full build from an empty warehouse) at DuckDB "
                f"memory_limit {x['limit']}: " + (
                    f"**completed** in {x['wall_s']:.1f} s wall ({x['model_s']:.1f} model-s), peak RSS "
                    f"{x['peak_rss_mb']:,.0f} MB (the DuckDB process: the limit bounds DuckDB's buffer manager, "
                    "not Python, dbt or allocations outside it); peak size of DuckDB's spill folder "
                    f"{x.get('spill_peak_mb', 0):,.0f} MB" if x["completed"] else
                    f"**FAILED**: {x['error']}"))
        if "peer" in r:
            p = r["peer"]
            add(f"- microbatch peer vs ours, fct_daily_revenue: {'**equal**' if p['equal'] else '**NOT equal**'} "
                f"({p['diff_rows']} differing rows on {p['days_wrong']} day(s), {p['abs_net_cents_wrong']:,} cents of "
                f"net revenue misplaced); the batch held {p['batch_late_rows']:,} valid rows beyond the 72 h watermark, "
                f"{p['batch_late_rows_before_window']:,} of them dated before the peer's window ({p['window_start']}); "
                f"{p['changed_events_touching_days_before_window']:,} events changed by the batch have a contribution on a "
                "day before the window.")
        if "peer_correct" in r:
            p = r["peer_correct"]
            add(f"- microbatch peer with its window from {p['window_start']} ({p['window_days']} day batches: from the "
                "earliest day whose daily revenue the batch changed, or the lookback-3 window if that is earlier) vs "
                "ours, fct_daily_revenue: "
                + ("**equal**" if p["equal"] else f"**NOT equal** ({p['diff_rows']} differing rows on {p['days_wrong']} day(s))")
                + ". A user of the peer would have to choose that window before the batch arrives; lookback 3 is wrong "
                "when it is shorter, as above.")
        if "idempotency" in r:
            x = r["idempotency"]
            add(f"- idempotency check ({x['method']}): {'passed' if x['passed'] else 'FAILED or could not run (rc ' + str(x['rc']) + ')'}, "
                f"{x['wall_s']:.1f} s against {r['runs']['history_build']['wall_s']:.1f} s for one `dbt build`.")
    add("")
    add("## Where the incremental time goes")
    add("")
    big = max(results, key=lambda r: r["n"])
    inc = big["runs"]["incremental"]
    top = sorted(inc["models"].items(), key=lambda kv: -kv[1])
    add(f"At {big['label']}: the incremental `dbt run` takes {inc['wall_s']:.1f} s wall, of which "
        f"{inc['model_s']:.1f} s of model time (summed; models overlap only on more than one dbt thread) and "
        f"dbt start-up and parse: {overhead(inc)}. The models, slowest first: "
        + ", ".join(f"{m} {t:.2f} s" for m, t in top) + ". The floor does the business-table work in "
        f"{big['runs']['floor']['sql_s']:.2f} s of SQL; its slowest statements: "
        + ", ".join(f"`{lbl}` {t:.2f} s" for lbl, t in sorted(big['runs']['floor']['statements'],
                                                                   key=lambda x: -x[1])[:3]) + ".")
    add("")
    add("Per-model `execution_time` of the incremental `dbt run` (seconds):")
    add("")
    L.extend(model_breakdown(results, "incremental"))
    add("")
    L.extend(phase_table(results, "incremental"))
    add("What the landing door costs: `stg_landing__deliveries` lists the folder, hashes every new or changed "
        "file (MD5 of its bytes: its identity) and checks its encoding, line lengths, quoting and header with an "
        "exact CSV parser; a file whose stat is unchanged reuses its recorded verdict. Header-order reading adds "
        "nothing to staging (the reader is told the file's column order).")
    add("")
    add("| history | files, MB | inspection of every file (history build) | per MB | incremental (new batch + stat of all) |")
    add("|---|---:|---:|---:|---:|")
    for r in results:
        hist = r["runs"].get("history_build", {}).get("models", {}).get("stg_landing__deliveries")
        inc = r["runs"].get("incremental", {}).get("models", {}).get("stg_landing__deliveries")
        per_mb = hist / r["history_mb"] if hist and r.get("history_mb") else None
        add(f"| {r['label']} | {r['history_files']:,}, {r['history_mb']:,.0f} | {fmt(hist)} s | {fmt(per_mb, 3)} s "
            f"| {fmt(inc)} s |")
    add("")
    add(f"Per statement kind at {big['label']} (seconds, from dbt's JSON debug log; 'build' is the model's "
        "SELECT materialised into a temp table, 'apply' the delete/insert/merge into the target, post-hooks are "
        "the run-log metrics and balance checks, 'checkpoint' DuckDB's CHECKPOINT of the last on-run-end hook, "
        "'metadata + other' the rest, COMMITs included):")
    add("")
    L.extend(statement_table(big, "incremental"))
    add("")
    add("Full refresh, per model (seconds):")
    add("")
    L.extend(model_breakdown(results, "full_refresh"))
    add("")
    add("## What the microbatch peer does not handle")
    add("")
    add("- A batch can only rewrite its own window. A new version that moves an event onto a day inside the "
        "window leaves its old contribution on a day outside it (counted twice); a correction or version of an "
        "event older than the window is never applied until a full rebuild. These are the differences counted "
        "above.")
    add("- No late-data queue and no corrections: a row beyond the watermark is simply not counted (here the "
        "peer applies the same 72 h rule so the business result can match; a peer without it would count late "
        "rows dated inside the window and silently lose those dated before it).")
    add("- No file tracking: a file that lands more than 3 days after the rows it carries is never read; a "
        "file rewritten in place is re-read only if it falls in the window; no quarantine (invalid rows are "
        "dropped silently), no ledger, no balance of where every landed row went.")
    add("- The data is dated after the wall clock, so `lookback` is reproduced with explicit "
        "`--event-time-start/--event-time-end`; each run processes 4 day-batches per model, one SQL statement "
        "set per batch.")
    add("")
    add("## Not measured / caveats")
    add("")
    measured = [r["n"] for r in results]
    if measured != DEFAULT_SIZES:
        add(f"- This run measured N = {', '.join(label(n) for n in measured)} only (the default is "
            f"{', '.join(label(n) for n in DEFAULT_SIZES)}); each ratio names the sizes it was computed at, and a "
            "target stated for another size is judged at the nearest size measured.")
    peer_n = [r["label"] for r in results if "peer_incremental" in r["runs"]]
    idem_n = [r["label"] for r in results if "idempotency" in r]
    add(f"- The microbatch peer ran at: {', '.join(peer_n) or 'no size'}; the idempotency check at: "
        f"{', '.join(idem_n) or 'no size'}.")
    fr_n = [r["label"] for r in results if "full_refresh" in r["runs"]]
    op_n = [r["label"] for r in results if "floor_full" in r["runs"]]
    add(f"- `dbt run --full-refresh` ran at: {', '.join(fr_n) or 'no size'}; the one-pass floor at: "
        f"{', '.join(op_n) or 'no size'}. Where no full refresh ran, the history build (a full build from an empty "
        "warehouse, at the memory limit at the largest size) is the only full build, so `make bench` does not "
        "pay for two full builds of the largest history.")
    add("- One run per size, no repetitions. The machine is shared (2 cores): the 1-minute load average before "
        "and after each step is in the tables; a load above 2 means other processes competed for the CPUs and "
        "that step's time is inflated. Small sizes are dominated by dbt start-up.")
    add("- The floor skips the ledger, late_events, quarantined_events and the audit tables, so it is a lower "
        "bound for the business tables only.")
    if mach.get("rss_probe") != RSS_PROBE:
        add(f"- {RSS_CAVEAT}")
    add("")
    L.extend(included_pages(ROOT / "docs", full=not a.quick and not a.small))
    return "\n".join(L)


# The sections of the page that other benchmark scripts' pages provide (each when it exists), in
# this order; `--include-only` rewrites them in an existing page without measuring anything.
INCLUDED_HEADINGS = ("## Drift over consecutive daily batches", "## R1 on Postgres", "## One large history",
                     "## Spark: a local session and a cluster")


def included_pages(docs: Path, full: bool = True) -> list[str]:
    """The page's last sections, from the pages of bench/drift.py, bench/postgres.py, bench/large.py
    and bench/spark.py (each when it exists; none of them is part of make bench); the Spark page
    only unless `full` (the pages of --quick and --small)."""
    out: list[str] = []
    spark = docs / "benchmarks-spark.md"  # written by bench/spark.py --doc (not part of make bench)
    spark_section = ([f"{INCLUDED_HEADINGS[3]} (bench/spark.py, make bench-spark)", "", spark.read_text().strip(), ""]
                     if spark.exists() else [])
    if not full:
        return spark_section
    drift = docs / "benchmarks-drift.md"  # written by bench/drift.py (make bench-drift, ~35 min)
    if drift.exists() and len(drift.read_text().strip().split("\n", 1)) == 2:
        body = drift.read_text().strip().split("\n", 1)[1].strip()  # without its title
        body = body.split("\nPer run (")[0].strip()  # the per-run table stays in benchmarks-drift.md
        out += [f"{INCLUDED_HEADINGS[0]} (bench/drift.py, `make bench-drift`)", "", body.replace("\n## ", "\n### "),
                "", "Every run's figures: [benchmarks-drift.md](benchmarks-drift.md).", ""]
    postgres = docs / "benchmarks-postgres.md"  # written by bench/postgres.py (make bench-postgres)
    r1_lines = re.findall(r"^R1 \(.*$", postgres.read_text(), flags=re.M) if postgres.exists() else []
    if r1_lines:
        run = _page_section(postgres.read_text(), "The run")
        stamp = re.search(r"`bench/postgres.py`, ([0-9-]+), code (\w+)", run)
        out += [f"{INCLUDED_HEADINGS[1]} (bench/postgres.py, `make bench-postgres`)", "",
                "The same deliveries and batch on PostgreSQL, each history in a database of its own"
                + (f" ({stamp[1]}, code {stamp[2]})" if stamp else "") + ":", "", *r1_lines, "",
                "Its tables, where the time goes and the indexes: [benchmarks-postgres.md](benchmarks-postgres.md).", ""]
    large = docs / "benchmarks-large.md"  # written by bench/large.py (make bench-large)
    if large.exists():
        text = large.read_text()
        runs = "\n\n".join(_page_section(text, "The runs").strip().split("\n\n")[:2])  # the days line, the steps
        check = _page_section(text, "Measured against the per-row prediction").strip()
        disk = [line for line in _page_section(text, "The disk").splitlines() if line.startswith("- ")]
        out += [f"{INCLUDED_HEADINGS[2]} (bench/large.py, `make bench-large`)", "", runs, "", *disk, "",
                *(line for line in check.splitlines()), "",
                "The disk it needs, the build and the run's phases: [benchmarks-large.md](benchmarks-large.md).", ""]
    return out + spark_section


def replace_included(page: str, docs: Path, log_file: Path = BENCH / "optimisation_log.md") -> str:
    """`page` with the sections other files provide written again: the hand-written log (from its
    first heading up to the per-row section) and the included pages (from the first of
    INCLUDED_HEADINGS to the end)."""
    log_text = log_file.read_text().rstrip() + "\n\n" if log_file.exists() else ""
    log_head = log_text.split("\n", 1)[0] + "\n"
    per_row_head = f"## {PER_ROW_TITLE}\n"
    if log_text and log_head in page and per_row_head in page:
        page = page[:page.index(log_head)] + log_text + page[page.index(per_row_head):]
    starts = [m.start() for h in INCLUDED_HEADINGS for m in re.finditer("^" + re.escape(h), page, flags=re.M)]
    head = page[:min(starts)] if starts else page.rstrip("\n") + "\n\n"
    return head + "\n".join(included_pages(docs))


# The plot's series: (run key, field, legend, colour, line style). One colour per system; solid = wall
# time (dbt start-up included), dashed = the time the ratios are judged on (the models' execution_time;
# for the floor, its time inside DuckDB).
PLOT_SERIES = [("incremental", "wall_s", "dbt incremental, wall", "C0", "o-"),
               ("incremental", "model_s", "dbt incremental, models", "C0", "o--"),
               ("floor", "wall_s", "floor SQL, wall", "C3", "^-"),
               ("floor", "sql_s", "floor SQL, inside DuckDB", "C3", "^--"),
               ("full_refresh", "wall_s", "dbt full refresh, wall", "C2", "s-"),
               ("peer_incremental", "wall_s", "microbatch peer (lookback 3), wall", "C4", "d-"),
               ("peer_correct", "wall_s", "microbatch peer, window wide enough to be right, wall", "C5", "x-")]
FLOOR_TARGET = 1.5  # R3: t_inc / t_floor, on model time


def floor_ratios(results: list[dict]) -> list[tuple[int, float | None, float | None]]:
    """(n, t_inc / t_floor on wall time, the same on model time) at every size: R3a and R3b of the
    ratio table where it judges them, the plot's right panel at every size."""
    out = []
    for r in results:
        inc, fl = r["runs"].get("incremental", {}), r["runs"].get("floor", {})
        out.append((r["n"], ratio(inc.get("wall_s"), fl.get("wall_s")), ratio(inc.get("model_s"), fl.get("sql_s"))))
    return out


def plain_log_ticks(axis, ticker) -> None:
    """Label a log axis 1, 2, 5, 10, 20 ... as plain numbers (not 2x10^0)."""
    axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _pos: f"{v:,.10g}"))
    axis.set_minor_locator(ticker.NullLocator())


def make_plot(results: list[dict], path: Path) -> bool:
    """Left: the seconds of each step against history size. Right: t_inc / t_floor (R3), the ratio the
    page judges the incremental run by, against its target. Both x axes: the sizes measured."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker as ticker
    except ImportError:
        return False
    xs = [r["n"] for r in results]
    fig, (ax, rx) = plt.subplots(1, 2, figsize=(12, 5.4), gridspec_kw={"width_ratios": [3, 2]})
    for key, field, name, colour, style in PLOT_SERIES:
        pts = [(r["n"], r["runs"][key][field]) for r in results if r["runs"].get(key, {}).get(field) is not None]
        if pts:  # hollow markers: the judged times (dashed)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=colour, label=name,
                    markerfacecolor="white" if "--" in style else colour)
    ax.set_yscale("log")
    plain_log_ticks(ax.yaxis, ticker)
    shown_s = [y for line in ax.get_lines() for y in line.get_ydata()]
    if shown_s:  # from the 1-2-5 tick below the fastest step to the one above the slowest: a label at each end
        steps = [m * 10.0 ** e for e in range(-3, 7) for m in (1, 2, 5)]
        ax.set_ylim(max(v for v in steps if v <= min(shown_s)), min(v for v in steps if v >= max(shown_s) * 1.05))
    ax.set_ylabel("seconds (log scale)")
    ax.set_title("Seconds per run\n(solid: wall time; dashed, hollow: model time, on which the ratios are judged)",
                 fontsize=10)
    ax.legend(fontsize=8, loc="upper left")

    fr = floor_ratios(results)
    for idx, name, style, face, dy in ((2, "on model time (judged)", "o--", "white", -15),
                                       (1, "on wall time (dbt start-up included)", "o-", "C0", 7)):
        pts = [(x[0], x[idx]) for x in fr if x[idx] is not None]
        if not pts:
            continue
        rx.plot([p[0] for p in pts], [p[1] for p in pts], style, color="C0", markerfacecolor=face,
                label=f"t_inc / t_floor, {name}")
        for n, v in pts:
            rx.annotate(f"{v:.2f}", (n, v), textcoords="offset points", xytext=(0, dy), ha="center", fontsize=9)
    rx.axhline(FLOOR_TARGET, color="C3", ls=":", label=f"target (R3): <= {FLOOR_TARGET:g} on model time")
    rx.axhline(1.0, color="0.4", lw=0.8, label="1 = as fast as the floor")
    judged = [x[2] for x in fr if x[2] is not None]
    shown = judged + [x[1] for x in fr if x[1] is not None]
    rx.set_ylim(0, max([FLOOR_TARGET, *shown]) * 1.25)
    rx.set_ylabel("dbt incremental / floor SQL")
    if judged:
        met = all(v <= FLOOR_TARGET for v in judged)
        span = f"{min(judged):.2f}" if len(judged) == 1 else f"{min(judged):.2f}-{max(judged):.2f}"
        rx.set_title(f"Ratio to the floor (R3), on model time:\n{span}, "
                     + ("within" if met else "not within") + f" the {FLOOR_TARGET:g} target")
    else:
        rx.set_title("Ratio to the floor (R3)")
    rx.legend(fontsize=8, loc="lower right")
    for a_ in (ax, rx):
        a_.set_xscale("log")
        a_.set_xticks(xs)
        a_.set_xticklabels([r["label"] for r in results])
        a_.xaxis.set_minor_locator(ticker.NullLocator())
        a_.set_xlim(min(xs) / 1.5, max(xs) * 1.5)
        a_.set_xlabel("history size (events, log scale)")
        a_.grid(True, which="major", alpha=0.3)
    fig.suptitle(f"rerun_safe: the cost of one {results[0]['events_per_day']:,}-event daily batch against "
                 "history size (one run per size)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# --------------------------------------------------------------------------- replot from a page

# size_table's step keys; the floors' "model s" column is their time inside DuckDB (sql_s)
PAGE_STEPS = ("history_build", "incremental", "full_refresh", "floor", "floor_full", "peer_history",
              "peer_incremental", "peer_correct")
# the t_<name>(<size>) of the ratio table's names, by run key
PAGE_RATIO_TERMS = {"inc": "incremental", "full": "full_refresh", "floor": "floor", "one_pass_floor": "floor_full",
                    "microbatch": "peer_incremental", "microbatch_correct": "peer_correct"}


def _page_number(cell: str) -> float | None:
    cell = cell.strip().strip("*")
    return None if cell in ("-", "") else float(cell.replace(",", ""))


def _page_section(text: str, title: str) -> str:
    if f"\n## {title}\n" not in text:
        raise ValueError(f"no section '## {title}' in the page: not one bench/run.py wrote")
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def results_from_page(text: str) -> list[dict]:
    """The `results` make_plot draws, rebuilt from a page render() wrote: each size's heading,
    its days x events line and its step table (wall s, model s), the figures as the page shows them."""
    results = []
    for block in re.split(r"^### ", _page_section(text, "Results per size"), flags=re.M)[1:]:
        head = re.match(r"N = (\S+) events \(([\d,]+)\)", block)
        days = re.search(r"^(\d+) history days x ([\d,]+) events;", block, flags=re.M)
        if not head or not days:
            raise ValueError(f"cannot read the size heading or its days line: {block[:80]!r}")
        runs: dict[str, dict] = {}
        for line in block.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 8 and cells[0] in PAGE_STEPS:
                inside = "sql_s" if cells[0] in ("floor", "floor_full") else "model_s"
                runs[cells[0]] = {"wall_s": _page_number(cells[2]), inside: _page_number(cells[3])}
        results.append({"n": int(head[2].replace(",", "")), "label": head[1], "days": int(days[1]),
                        "events_per_day": int(days[2].replace(",", "")), "runs": runs})
    if not results:
        raise ValueError("no '### N = ... events' table under '## Results per size'")
    return results


def page_ratio_check(results: list[dict], text: str) -> tuple[int, list[str]]:
    """Recompute from `results` every ratio of the page's ratio table that is a quotient of two step
    times (R1, R1f, R2, R3a/b, RF, R4...) and compare with the page: (how many figures agree, the
    ones that do not). The page's ratios come from unrounded times, ours from its tables' times
    rounded to 0.01 s, so they may differ by what that rounding allows."""
    by_label = {r["label"]: r for r in results}
    agree, wrong = 0, []
    for line in _page_section(text, "Ratios").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        m = re.match(r"t_(\w+)\((\w+)\) / t_(\w+)\((\w+)\)", cells[1]) if len(cells) == 6 else None
        if not m or m[1] not in PAGE_RATIO_TERMS or m[3] not in PAGE_RATIO_TERMS:
            continue
        num = by_label[m[2]]["runs"].get(PAGE_RATIO_TERMS[m[1]], {})
        den = by_label[m[4]]["runs"].get(PAGE_RATIO_TERMS[m[3]], {})
        for cell, field in ((cells[2], "wall_s"), (cells[3], "model")):
            page = _page_number(cell)
            f_num = field if field == "wall_s" else ("sql_s" if "sql_s" in num else "model_s")
            f_den = field if field == "wall_s" else ("sql_s" if "sql_s" in den else "model_s")
            ours = ratio(num.get(f_num), den.get(f_den))
            if page is None and ours is None:
                continue
            # the bound: both times rounded to 0.005, the page's ratio to 0.005
            slack = 0.005 + (ours or 0) * (0.005 / (num.get(f_num) or 1) + 0.005 / (den.get(f_den) or 1)) + 1e-9
            if page is None or ours is None or abs(ours - page) > slack:
                wrong.append(f"{cells[0]} {field}: page {cell}, from its tables {fmt(ours)}")
            else:
                agree += 1
    return agree, wrong


def replot_from_page(page: Path, plot: Path) -> list[dict]:
    """Redraw the PNG of a page bench/run.py wrote from the page's own figures (nothing is run):
    the same make_plot a bench run calls. Refuses when the page's ratios disagree with its tables."""
    text = page.read_text()
    results = results_from_page(text)
    agree, wrong = page_ratio_check(results, text)
    if wrong or not agree:
        raise ValueError(f"{page}: the ratios recomputed from its tables disagree with its ratio table: "
                         + ("; ".join(wrong) or "no ratio to compare"))
    if not make_plot(results, plot):
        raise RuntimeError("matplotlib is not installed: no plot")
    log(f"replotted {plot} from {page}: sizes {', '.join(r['label'] for r in results)}; "
        f"{agree} ratio figures equal the page's")
    return results


def print_summary(results: list[dict], rat: list[dict]) -> None:
    for r in results:
        print(f"\n## N = {r['label']}")
        print("\n".join(size_table(r)))
    print("\n## Incremental run, per model")
    print("\n".join(model_breakdown(results, "incremental")))
    print("\n## Ratios")
    for o in rat:
        print(f"{o['id']} {o['name']}: wall {fmt(o['value'])}, models {fmt(o.get('models'))} "
              f"(target {'-' if o['target'] is None else ('<=' if o['le'] else '>=') + format(o['target'], 'g')})"
              f" -> {o['verdict']}")


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    global DBT_THREADS
    p = argparse.ArgumentParser(description="incremental cost against history size (docs/benchmarks.md)")
    p.add_argument("--sizes", default="1000000,10000000,30000000", help="history sizes N, comma separated")
    p.add_argument("--batch-events", type=int, default=100_000,
                   help="events per delivery day; the batch is one day (default 100000, 1%% of 10M)")
    p.add_argument("--history-tests", action="store_true",
                   help="build the history with dbt build (data tests timed apart) instead of dbt run")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", default=str(BENCH / "out"), help="work folder (deliveries, warehouses, results.json)")
    p.add_argument("--doc", default=str(ROOT / "docs" / "benchmarks.md"), help="Markdown report to write")
    p.add_argument("--plot", default=None, help="PNG plot (default: next to --doc, benchmarks.png)")
    p.add_argument("--small", action="store_true", help="CI smoke: sizes 20000,60000")
    p.add_argument("--quick", action="store_true",
                   help="make bench-quick: sizes 1000000,3000000, the peer at 1M, no idempotency check, "
                        "report docs/benchmarks-quick.md (the full report stays as it is)")
    p.add_argument("--idempotency-size", type=int, default=1_000_000,
                   help="size at which the harness idempotency check runs (default 1M; --small: the largest)")
    p.add_argument("--full-refresh-sizes", default=None,
                   help="sizes at which `dbt run --full-refresh` runs after the incremental run (default: the "
                        "largest size up to 10M, where R2 and RF are judged; at 30M the history build, a full build "
                        "of the same SQL, is the one measured)")
    p.add_argument("--one-pass-sizes", default=None,
                   help="sizes at which the one-pass floor runs after the full refresh (default: the largest "
                        "size with a full refresh; RF is judged at 10M, and at 30M its copy needs 20 GB more disk)")
    p.add_argument("--memory-size", type=int, default=30_000_000,
                   help="size whose history build (a full build) runs at --memory-limit (default 30M; -1: none)")
    p.add_argument("--memory-limit", default="2GB",
                   help="DuckDB memory_limit of the memory run (default 2GB; every other step: 8GB)")
    p.add_argument("--repeats", type=int, default=2,
                   help="our incremental run and the floor, each this many times on fresh copies of the history "
                        "warehouse, alternately; the fastest of each is the one measured (default 2)")
    p.add_argument("--no-peer", dest="peer", action="store_false", help="skip the microbatch peer")
    p.add_argument("--peer-sizes", default="1000000,10000000",
                   help="sizes at which the microbatch peer runs (its history build, in month batches, is still "
                        "slow at 30M; --small: the largest size only)")
    p.add_argument("--peer-correct-sizes", default=None,
                   help="sizes at which the peer also runs with a window wide enough to be right (R4 at equal "
                        "correctness; default: every --peer-sizes size)")
    p.add_argument("--no-idempotency", action="store_true")
    p.add_argument("--threads", type=int, default=DBT_THREADS,
                   help="dbt threads for every dbt run (default 1: DuckDB parallelizes each statement itself)")
    p.add_argument("--keep", action="store_true", help="keep warehouses and landing folders")
    p.add_argument("--render-only", action="store_true",
                   help="do not measure: re-render --doc and the plot from --out/results.json")
    p.add_argument("--keep-deliveries", action="store_true", help="keep generated deliveries for a re-run")
    p.add_argument("--include-only", action="store_true",
                   help="do not measure: write the sections of --doc that other files provide (bench/"
                        "optimisation_log.md; the drift, Postgres, large-history and Spark pages) again from them")
    p.add_argument("--replot-from", type=Path, default=None, metavar="PAGE",
                   help="do not measure: redraw the PNG of a page this script wrote (docs/benchmarks.md) from "
                        "the page's own tables, to --plot (default: next to the page)")
    a = p.parse_args(argv)
    if a.repeats < 1:
        p.error(f"--repeats must be 1 or more (each size needs one incremental run and one floor); got {a.repeats}")
    if a.include_only:
        doc = Path(a.doc)
        doc.write_text(replace_included(doc.read_text(), ROOT / "docs"))
        return 0
    if a.replot_from is not None:
        replot_from_page(a.replot_from, Path(a.plot) if a.plot else a.replot_from.with_suffix(".png"))
        return 0
    if a.quick:
        if a.sizes == p.get_default("sizes"):
            a.sizes = "1000000,3000000"
        if a.peer_sizes == p.get_default("peer_sizes"):
            a.peer_sizes = "1000000"
        if a.doc == p.get_default("doc"):
            a.doc = str(ROOT / "docs" / "benchmarks-quick.md")
        a.no_idempotency = True
    if a.small and a.sizes == p.get_default("sizes"):
        a.sizes = "20000,60000"
    if a.small and a.batch_events == p.get_default("batch_events"):
        a.batch_events = 6000  # few files and microbatch batches: the smoke run stays around a minute
    sizes = sorted({int(s) for s in a.sizes.split(",") if s.strip()})
    if a.small and a.peer_sizes == p.get_default("peer_sizes"):
        a.peer_sizes = str(sizes[-1])
    a.peer_sizes = {int(x) for x in a.peer_sizes.split(",") if x.strip()}
    a.peer_correct_sizes = ({int(x) for x in a.peer_correct_sizes.split(",") if x.strip()}
                            if a.peer_correct_sizes is not None else set(a.peer_sizes))
    # by default the full refresh and the one-pass floor run where R2 and RF are judged: the largest
    # size up to 10M (10M; 3M for --quick); at the smaller sizes they judged nothing and cost 40 s
    up_to_10m = [n for n in sizes if n <= 10_000_000]  # sizes is sorted
    a.full_refresh_sizes = ({int(x) for x in a.full_refresh_sizes.split(",") if x.strip()} if a.full_refresh_sizes
                            else set(up_to_10m[-1:]))
    a.one_pass_sizes = ({int(x) for x in a.one_pass_sizes.split(",") if x.strip()} if a.one_pass_sizes
                        else set(sorted(a.full_refresh_sizes)[-1:]))  # the largest size with a full refresh
    if not a.one_pass_sizes <= a.full_refresh_sizes:
        p.error("--one-pass-sizes: the one-pass floor runs after the full refresh, so each of its sizes must "
                "be in --full-refresh-sizes")
    if a.small and a.idempotency_size == p.get_default("idempotency_size"):
        a.idempotency_size = sizes[-1]
    if a.no_idempotency:
        a.idempotency_size = -1
    a.out = str(Path(a.out).resolve())  # dbt runs with other working folders
    doc = Path(a.doc).resolve()
    plot = Path(a.plot).resolve() if a.plot else doc.with_suffix(".png")
    Path(a.out).mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("DBT_DUCKDB_MEMORY_LIMIT", "8GB")
    env["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if a.render_only:
        saved = json.loads(Path(a.out, "results.json").read_text())
        results, mach = saved["results"], saved["machine"]
        rat = ratios(results, a.idempotency_size, saved.get("total_s"), 5 if a.quick else 30)
        has_plot = make_plot(results, plot)
        doc.write_text(render(results, rat, mach, a, plot if has_plot else None))
        print_summary(results, rat)
        return 0
    DBT_THREADS = a.threads
    mach = machine()
    mach["dbt_threads"] = a.threads
    mach["rss_probe"] = RSS_PROBE
    mach["code"] = snapshot_project(Path(a.out) / "project")
    project = Path(mach["code"]["path"])
    results = []
    t0 = time.perf_counter()
    for n in sizes:
        results.append(bench_size(n, a, env, project))
        Path(a.out, "results.json").write_text(json.dumps({"machine": mach, "results": results}, indent=1,
                                                          default=str))
    total_s = time.perf_counter() - t0
    rat = ratios(results, a.idempotency_size, total_s, 5 if a.quick else 30)
    has_plot = make_plot(results, plot)
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(render(results, rat, mach, a, plot if has_plot else None))
    Path(a.out, "results.json").write_text(json.dumps({"machine": mach, "results": results, "ratios": rat,
                                                       "total_s": total_s}, indent=1, default=str))
    print_summary(results, rat)
    log(f"done in {total_s:.0f} s; wrote {doc}" + (f" and {plot}" if has_plot else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
