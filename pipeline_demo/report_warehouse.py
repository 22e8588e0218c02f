"""The warehouse a pipeline report is drawn from (pipeline_demo/report.py): its runs, their
figures from the run log, the corrections, the lateness of every delivered copy and what the
marts hold now, read in one read-only connection. The warehouse path never enters SQL text; the
schema and table names are quoted (harness.quote).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path
from typing import Any

import duckdb

from harness._plumbing import quote
from pipeline_demo.inputs import InputError, connect_read_only, shown

# The tables the page reads: a warehouse without all of them in one schema was not built by this
# project (or not to its end).
REQUIRED = (
    "rerun_safe_runs",
    "rerun_safe_run_log",
    "stg_landing__events",
    "int_event_copies_classified",
    "int_corrections_recorded",
    "late_events",
    "quarantined_events",
    "fct_daily_revenue",
    "fct_order_items",
    "fct_revenue_ledger",
)


class ReportError(Exception):
    """A bad argument or warehouse: the message names it and says what is wrong."""


@dataclasses.dataclass
class Run:
    run_seq: int
    command: str
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    status: str
    metrics: dict[str, dict[str, Any]]  # model -> its figures of this run
    rebuilt: list[str]
    rows_in: int | None = None
    quarantined: int | None = None
    late: int | None = None
    applied: int | None = None
    waiting: int | None = None


@dataclasses.dataclass
class Correction:
    correction_id: str
    correct_from: dt.date
    correct_to: dt.date
    mark: dt.datetime | None
    recorded_run_seq: int
    rows_applied: int


@dataclasses.dataclass
class Warehouse:
    path: Path
    schema: str
    runs: list[Run]
    corrections: list[Correction]
    lateness: list[tuple[int, int]]  # (lateness_seconds, rows), one per copy
    late_bounds: tuple[int | None, int | None]  # largest lateness not late, smallest late (seconds)
    totals: dict[str, Any]


def open_read_only(path: Path, name: str = "--warehouse") -> duckdb.DuckDBPyConnection:
    try:
        return connect_read_only(path, name, "make report")
    except InputError as exc:
        raise ReportError(f"{exc}; no page was written") from exc


def find_schema(con: duckdb.DuckDBPyConnection, path: Path, name: str = "--warehouse") -> str:
    rows = con.execute(
        "select table_schema, table_name from information_schema.tables where table_catalog = current_database()"
    ).fetchall()
    by_schema: dict[str, set[str]] = {}
    for schema, name in rows:
        by_schema.setdefault(schema, set()).add(name)
    complete = sorted(schema for schema, names in by_schema.items() if set(REQUIRED) <= names)
    if len(complete) == 1:
        return complete[0]
    if len(complete) > 1:
        raise ReportError(
            f"{name} {shown(path)}: this project's tables are in several schemas ({', '.join(complete)}); "
            "the report reads one warehouse of one target"
        )
    best = max(by_schema.items(), key=lambda item: len(set(REQUIRED) & item[1]), default=("main", set()))
    missing = [name for name in REQUIRED if name not in best[1]]
    raise ReportError(
        f"{name} {shown(path)}: not a warehouse of this project (rerun_safe): it has no {', '.join(missing)}"
        f"{' in schema ' + best[0] if best[1] else ''}. Build it with make demo, or with dbt build"
    )


def read_warehouse(path: Path, name: str = "--warehouse") -> Warehouse:
    con = open_read_only(path, name)
    try:
        schema = find_schema(con, path, name)

        def table(name: str) -> str:
            return f"{quote(schema)}.{quote(name)}"

        runs: dict[int, Run] = {}
        for run_seq, command, started, finished, status in con.execute(
            f"select run_seq, command, started_at, finished_at, status from {table('rerun_safe_runs')} order by run_seq"
        ).fetchall():
            runs[int(run_seq)] = Run(int(run_seq), str(command), started, finished, str(status), {}, [])
        for run_seq, model, full_refresh, metrics in con.execute(
            f"select run_seq, model, is_full_refresh, metrics from {table('rerun_safe_run_log')} "
            "order by run_seq, model"
        ).fetchall():
            run = runs.get(int(run_seq))
            if run is None:
                continue
            try:
                figures = json.loads(metrics) if metrics else {}
            except ValueError:
                figures = {}
            run.metrics[str(model)] = figures if isinstance(figures, dict) else {}
            if full_refresh:
                run.rebuilt.append(str(model))
        _derive(list(runs.values()))

        applied_by = dict(
            con.execute(
                f"select applied_by_correction_id, count(*) from {table('late_events')} "
                "where applied_by_correction_id is not null group by 1"
            ).fetchall()
        )
        corrections = [
            Correction(str(cid), start, end, mark, int(seq), int(applied_by.get(cid, 0)))
            for cid, start, end, mark, seq in con.execute(
                f"select correction_id, correct_from, correct_to, mark, recorded_run_seq "
                f"from {table('int_corrections_recorded')} order by recorded_run_seq, correct_from, correction_id"
            ).fetchall()
        ]
        classified = table("int_event_copies_classified")
        lateness = [
            (int(s), int(n))
            for s, n in con.execute(
                f"select lateness_seconds, row_count from {classified} where lateness_seconds is not null"
            ).fetchall()
        ]
        bounds = con.execute(
            f"select max(lateness_seconds) filter (where not is_late), min(lateness_seconds) filter (where is_late) "
            f"from {classified}"
        ).fetchone() or (None, None)
        totals_sql = {
            "rows_staged": f"select count(*) from {table('stg_landing__events')}",
            "quarantined": f"select count(*) from {table('quarantined_events')}",
            "late_waiting": f"select count(*) from {table('late_events')} where status = 'waiting'",
            "late_applied": f"select count(*) from {table('late_events')} where status = 'applied'",
            "days": f"select count(*) from {table('fct_daily_revenue')}",
            "items": f"select count(*) from {table('fct_order_items')}",
            "net_cents": f"select coalesce(sum(net_cents), 0) from {table('fct_daily_revenue')}",
            "ledger_postings": f"select count(*) from {table('fct_revenue_ledger')}",
            "ledger_cents": f"select coalesce(sum(amount_cents), 0) from {table('fct_revenue_ledger')}",
        }
        totals = {name: con.execute(sql).fetchone()[0] for name, sql in totals_sql.items()}  # type: ignore[index]
    except duckdb.Error as exc:
        raise ReportError(
            f"{name} {shown(path)}: reading it failed ({str(exc).splitlines()[0]}); "
            "was it built by this version of the project?"
        ) from exc
    finally:
        con.close()
    return Warehouse(path, schema, list(runs.values()), corrections, lateness, (bounds[0], bounds[1]), totals)


def _figure(run: Run, model: str, name: str) -> int | None:
    value = run.metrics.get(model, {}).get(name)
    return int(value) if isinstance(value, (int, float)) else None


def _derive(runs: list[Run]) -> None:
    """Per run: rows in, quarantined, late, applied (this run's late_events `applied` figure less the
    last earlier one: the figure is the table's count), and the late queue after it."""
    applied_before = 0
    for run in runs:
        run.rows_in = _figure(run, "stg_landing__events", "rows_read")
        run.quarantined = _figure(run, "quarantined_events", "quarantined_this_run")
        run.late = _figure(run, "int_event_copies_classified", "late_waiting_written")
        applied_now = _figure(run, "late_events", "applied")
        run.waiting = _figure(run, "late_events", "waiting")
        if applied_now is not None:
            run.applied = applied_now - applied_before
            applied_before = applied_now
