"""Comparing warehouses: the business tables of two DuckDB files row by row (the harness's
diff_tables), what the microbatch peer gets wrong against ours, and the idempotency check."""

from __future__ import annotations

import contextlib
import datetime as dt
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb

from bench.common import BENCH_NOW, LATENESS_H, LOOKBACK_DAYS, PY, ROOT, log
from bench.measure import dbt, invoke
from bench.results import Idempotency, PeerCheck, TableDiff
from harness import diff_tables

FCT_COLS = {
    "fct_order_items": "company_id, order_item_id, order_id, currency, first_event_time, last_event_time, "
    "gross_cents, refunded_cents, net_cents, event_count",
    "fct_daily_revenue": "company_id, revenue_date, currency, gross_cents, refunded_cents, event_count, net_cents",
}


def sql_str(path: Path) -> str:
    """A path as a SQL string literal (quotes doubled): paths are data, never SQL."""
    return "'" + str(path).replace("'", "''") + "'"


@contextlib.contextmanager
def attached(db_a: Path, db_b: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB connection with `db_a` attached as `a` and `db_b` as `b`, read-only."""
    con = duckdb.connect()
    try:
        con.execute(f"attach {sql_str(db_a)} as a (read_only)")
        con.execute(f"attach {sql_str(db_b)} as b (read_only)")
        yield con
    finally:
        con.close()


def fct_pairs(schema_a: str = "a.main", schema_b: str = "b.main") -> list[tuple[str, str, str]]:
    return [(t, f"select {c} from {schema_a}.{t}", f"select {c} from {schema_b}.{t}") for t, c in FCT_COLS.items()]


def table_diff(db_a: Path, db_b: Path, pairs: list[tuple[str, str, str]]) -> tuple[TableDiff, ...]:
    """Multiset differences of tables in two DuckDB files (rows with multiplicity, NULL equal to
    NULL); a column whose type differs is compared by value, columns that do not pair up stop the bench."""
    out = []
    with attached(db_a, db_b) as con:
        for key, qa, qb in pairs:
            d = diff_tables(con, qa, qb, sample_size=0, name=key)
            unpaired = [change for change in d.schema_changes if " type " not in change]
            if unpaired:
                raise RuntimeError(f"{key}: the two sides cannot be compared row by row: {'; '.join(unpaired)}")
            out.append(TableDiff(table=key, only_a=d.surplus_left, only_b=d.surplus_right))
    return tuple(out)


def query(db: Path, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def scalar(db: Path, sql: str) -> int:
    return int(query(db, sql)[0][0])


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
        row = con.execute(f"select min(d) filter (where bad) from ({REVENUE_DIFF_SQL})").fetchone()
    return row[0] if row else None


LATE_SQL = """
    select count(*) filter (where epoch(ingested_at) - epoch(event_time) > ? * 3600),
           count(*) filter (where epoch(ingested_at) - epoch(event_time) > ? * 3600
                              and cast(event_time as date) < ?)
    from a.main.stg_landing__events where _loaded_run_seq = ? and invalid_reason is null"""
STALE_SQL = """
    with changed as (
        select distinct event_id from a.main.int_event_copies_classified where _changed_run_seq = ?
    )
    select count(distinct c.event_id)
    from a.main.int_event_copies_classified c semi join changed using (event_id)
    where c.revenue_date < ? and c.copy_status in ('current', 'superseded')"""


def _one(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> tuple[Any, ...]:
    row = con.execute(sql, params or []).fetchone()
    if row is None:
        raise RuntimeError(f"no row from: {sql.strip()[:80]}")
    return tuple(row)


def peer_correctness(wh: Path, mb_db: Path, batch_day: dt.date) -> PeerCheck:
    """What the microbatch peer gets wrong after the batch, against rerun_safe's tables."""
    win = batch_day - dt.timedelta(days=LOOKBACK_DAYS)
    cols = FCT_COLS["fct_daily_revenue"]
    (diff,) = table_diff(
        wh,
        mb_db,
        [
            (
                "fct_daily_revenue",
                f"select {cols} from a.main.fct_daily_revenue",
                f"select {cols} from b.main.mb_daily_revenue",
            )
        ],
    )
    with attached(wh, mb_db) as con:
        days_wrong, net_wrong = _one(
            con, f"select count(distinct d) filter (where bad), coalesce(sum(abs(dn)), 0) from ({REVENUE_DIFF_SQL})"
        )
        (seq,) = _one(con, "select max(_loaded_run_seq) from a.main.stg_landing__events")
        late, late_out = _one(con, LATE_SQL, [LATENESS_H, LATENESS_H, win, seq])
        (stale,) = _one(con, STALE_SQL, [seq, win])
    return PeerCheck(
        window_start=win.isoformat(),
        equal=diff.equal,
        diff_rows=diff.only_a + diff.only_b,
        days_wrong=int(days_wrong),
        abs_net_cents_wrong=int(net_wrong),
        batch_late_rows=int(late),
        batch_late_rows_before_window=int(late_out),
        changed_events_touching_days_before_window=int(stale),
    )


def idempotency(hist_dir: Path, work: Path, env: dict[str, str], project: Path) -> Idempotency:
    """`python -m harness idempotency` on the history, timed; else two builds + a SQL diff."""
    idem = work / "idem"
    shutil.rmtree(idem, ignore_errors=True)
    idem.mkdir(parents=True)
    log(f"{work.name}: harness idempotency")
    p = invoke(
        [
            PY,
            "-m",
            "harness",
            "idempotency",
            "--deliveries",
            str(hist_dir),
            "--project-dir",
            str(project),
            "--profiles-dir",
            str(project),
            "--work-dir",
            str(idem),
            "--quiet",
            "--summary",
            str(idem / "summary.md"),
        ],
        env,
        ROOT,
        work / "logs" / "idempotency.out",
    )
    if p.rc in (0, 1):
        return Idempotency(
            method="python -m harness idempotency",
            passed=p.rc == 0,
            rc=p.rc,
            wall_s=p.wall_s,
            peak_rss_mb=p.peak_rss_mb,
            load_before=p.load_before,
            load_after=p.load_after,
        )
    # the harness could not run: two builds and a multiset diff of every table, by hand
    log(f"{work.name}: harness idempotency unavailable (rc {p.rc}); timing two builds + SQL diff")
    wh = idem / "wh.duckdb"
    e = dict(env, DBT_DUCKDB_PATH=str(wh))
    vars_ = {"landing_path": str(hist_dir), "rerun_safe_now": BENCH_NOW}
    t0 = time.perf_counter()
    b1 = dbt(project, ["build"], e, idem / "target", idem / "logs1", vars_, "idem_build_1")
    snap = idem / "snap.duckdb"
    shutil.copyfile(wh, snap)
    b2 = dbt(project, ["build"], e, idem / "target", idem / "logs2", vars_, "idem_build_2")
    tables = [
        t
        for (t,) in query(
            wh,
            "select table_name from information_schema.tables where table_schema = 'main' "
            "and table_name not like 'rerun_safe_%' order by 1",
        )
    ]
    diff = table_diff(wh, snap, [(t, f"select * from a.main.{t}", f"select * from b.main.{t}") for t in tables])
    return Idempotency(
        method="two dbt builds + harness.diff_tables in DuckDB (the harness CLI unavailable)",
        passed=all(d.equal for d in diff),
        rc=0,
        wall_s=time.perf_counter() - t0,
        peak_rss_mb=max(b1.peak_rss_mb or 0, b2.peak_rss_mb or 0),
    )
