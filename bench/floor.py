"""Run the floor (bench/floor.sql) on a warehouse for a list of batch CSV files.

    python -m bench.floor --db WAREHOUSE.duckdb --lateness-hours 72 FILE.csv [FILE.csv ...]
    python -m bench.floor --full-from WAREHOUSE.duckdb --db NEW.duckdb FILE.csv [FILE.csv ...]

--full-from: the one-pass full recompute. NEW.duckdb gets the warehouse's tables empty (only the
recorded corrections are copied), then the same SQL runs with every file as the batch, read in
one multi-file scan (each record's ordinal from insertion order, as the full build of staging
does): staging, copies, order items and daily revenue recomputed from nothing, in one pass. It is
the one baseline of RF (docs/decisions/2026-12-07-bench-full-build.md).

Prints one JSON object: {"sql_s": seconds inside DuckDB (read + all writes, one transaction),
"statements": [[label, seconds], ...], "batch_rows": n}. Run in its own process so bench/measure.py
can read its peak memory like any dbt invocation's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import duckdb

HERE = Path(__file__).resolve().parent
COLUMNS = (
    "event_id",
    "event_type",
    "company_id",
    "order_id",
    "order_item_id",
    "amount_cents",
    "currency",
    "event_time",
    "ingested_at",
    "version",
    "_overflow",
)


def _lit(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def landed_sql(files: list[tuple[str, str, str]]) -> str:
    """One read_csv per file (record ordinals per file), like macros/landing/scan_landing_files."""
    cols = ", ".join(f"'{c}': 'varchar'" for c in COLUMNS)
    parts = []
    for path, name, file_id in files:
        parts.append(
            f"select scanned.*, {_lit(file_id)} as _file_id, {_lit(name)} as _file_name, "
            f"row_number() over () as _record_number from read_csv({_lit(path)}, header = true, "
            f"auto_detect = false, delim = ',', quote = '\"', escape = '\"', strict_mode = false, "
            f"null_padding = true, parallel = false, columns = {{{cols}}}) as scanned"
        )
    return "\nunion all\n".join(parts)


def landed_one_scan_sql(files: list[tuple[str, str, str]]) -> str:
    """Every file in one read_csv (all with the contract's header in contract order, as the
    generator writes them); a record's ordinal is its position in the scan minus its file's first
    position, like macros/pipeline/landing/scan_landing_files (duckdb__scan_landing_files_at_once)."""
    cols = ", ".join(f"'{c}': 'varchar'" for c in COLUMNS)
    paths = ", ".join(_lit(path) for path, _, _ in files)
    listed = ", ".join(f"({i}, {_lit(file_id)}, {_lit(name)})" for i, (_, name, file_id) in enumerate(files))
    return (
        "select s.* exclude (file_index, pos), listed.file_id as _file_id, listed.file_name as _file_name, "
        "s.pos - min(s.pos) over (partition by s.file_index) + 1 as _record_number from ("
        f"select scanned.*, file_index, row_number() over () as pos from read_csv([{paths}], header = true, "
        f"auto_detect = false, delim = ',', quote = '\"', escape = '\"', strict_mode = false, "
        f"null_padding = true, parallel = false, columns = {{{cols}}}) as scanned) as s "
        f"inner join (values {listed}) as listed (file_index, file_id, file_name) on s.file_index = listed.file_index"
    )


EMPTY_TABLES = (
    "stg_landing__events",
    "int_event_copies_classified",
    "fct_order_items",
    "fct_daily_revenue",
    "rerun_safe_runs",
)


def prepare_full(db: str, source: str) -> None:
    """NEW.duckdb with the source warehouse's tables, empty; the recorded corrections copied."""
    con = duckdb.connect(db)
    try:
        con.execute(f"attach {_lit(source)} as src (read_only)")
        for table in EMPTY_TABLES:
            con.execute(f"create table main.{table} as select * from src.main.{table} where false")
        con.execute("create table main.int_corrections_recorded as select * from src.main.int_corrections_recorded")
    finally:
        con.close()


def _first(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> Any:
    """The first column of the first row of `sql`."""
    row = con.execute(sql, params or []).fetchone()
    if row is None:
        raise RuntimeError(f"no row from: {sql}")
    return row[0]


def run_floor(
    db: str,
    files: list[str],
    lateness_hours: int = 72,
    threads: int | None = None,
    memory_limit: str | None = None,
    one_scan: bool = False,
) -> dict[str, Any]:
    t0 = time.perf_counter()
    con = duckdb.connect(db)
    if threads:
        con.execute(f"set threads = {int(threads)}")
    if memory_limit:
        con.execute(f"set memory_limit = {_lit(memory_limit)}")
    statements: list[tuple[str, float]] = []
    try:
        con.execute("begin")
        t = time.perf_counter()
        # delivery identity (name, size, mtime), exactly as macros/landing/landing_files_to_load
        file_list = "[" + ", ".join(_lit(f) for f in files) + "]"
        ids = con.execute(
            f"select filename, parse_filename(filename), md5(parse_filename(filename) || ':' || "
            f"cast(size as varchar) || ':' || cast(epoch_ms(last_modified) as varchar)) "
            f"from read_blob({file_list}) order by 2, 3"
        ).fetchall()
        run_seq = _first(con, "select coalesce(max(run_seq), 0) + 1 from main.rerun_safe_runs")
        statements.append(("file ids", time.perf_counter() - t))
        sql = "\n".join(
            line for line in (HERE / "floor.sql").read_text().splitlines() if not line.strip().startswith("--")
        )
        landed = landed_one_scan_sql(ids) if one_scan else landed_sql(ids)
        sql = (
            sql.replace("__LANDED__", landed)
            .replace("__RUN_SEQ__", str(run_seq))
            .replace("__LATE_S__", str(int(lateness_hours) * 3600))
        )
        for stmt in sql.split("\n;;\n"):
            body = stmt.strip()
            if not body:
                continue
            label = " ".join(body.split()[:4])[:60]
            t = time.perf_counter()
            con.execute(body)
            statements.append((label, time.perf_counter() - t))
        t = time.perf_counter()
        con.execute("commit")
        statements.append(("commit", time.perf_counter() - t))
        batch_rows = _first(con, "select count(*) from main.stg_landing__events where _loaded_run_seq = ?", [run_seq])
    finally:
        con.close()
    return {"sql_s": time.perf_counter() - t0, "statements": statements, "batch_rows": batch_rows}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db", required=True)
    p.add_argument("--lateness-hours", type=int, default=72)
    p.add_argument("--threads", type=int, default=int(os.environ.get("BENCH_THREADS", "0")) or None)
    p.add_argument("--memory-limit", default=os.environ.get("DBT_DUCKDB_MEMORY_LIMIT", "8GB"))
    p.add_argument(
        "--full-from",
        default=None,
        help="one-pass full recompute into a new --db, its empty tables shaped like this warehouse's",
    )
    p.add_argument("files", nargs="+")
    a = p.parse_args(argv)
    if a.full_from:
        prepare_full(a.db, a.full_from)
    out = run_floor(a.db, a.files, a.lateness_hours, a.threads, a.memory_limit, one_scan=bool(a.full_from))
    json.dump(out, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
