"""`python -m pipeline_demo demo`: land deliveries batch by batch into one warehouse, build after each
batch, and print what the pipeline did (rows per table). The `make demo` entry point.

On this project (a warehouse with rerun_safe's tables) it also prints, per batch, what was
landed, quarantined, counted as duplicate and queued as late, then retries the last build
with nothing new (the business tables must not change) and runs a correction over the first
delivery day (late rows are applied, the ledger still balances)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from harness.dbt_invoke import DbtSettings, invoke
from harness.deliveries import DEFAULT_BATCH_PATTERN, discover_batches, land
from harness.diff import quote
from harness.project import load_manifest
from harness.warehouse import take_snapshot
from pipeline_demo import generate

HELP = "land deliveries batch by batch into one warehouse, build after each, print the tables"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--deliveries", type=Path, default=Path("data/deliveries"), metavar="DIR",
        help="CSV deliveries; generated (python -m pipeline_demo generate) when the folder has none",
    )
    parser.add_argument("--landing", type=Path, default=Path("data/landing"), metavar="DIR")
    parser.add_argument("--warehouse", type=Path, default=Path("target/rerun_safe.duckdb"), metavar="PATH")
    parser.add_argument("--batch-pattern", default=DEFAULT_BATCH_PATTERN, metavar="REGEX")
    parser.add_argument(
        "--target-path", type=Path, default=None, metavar="DIR",
        help="dbt target path (default: the project's target/)",
    )
    parser.add_argument(
        "--keep", action="store_true",
        help="keep the landing folder and warehouse of a previous demo (default: start afresh)",
    )


def _ensure_deliveries(deliveries: Path) -> int:
    if deliveries.is_dir() and any(deliveries.glob("*.csv")):
        return 0
    print(f"no deliveries in {deliveries}: generating them", flush=True)
    return generate.main(["--out", str(deliveries)])


def run(args: argparse.Namespace, settings: DbtSettings) -> int:
    if _ensure_deliveries(args.deliveries) != 0:
        return 2
    batches = discover_batches(args.deliveries, args.batch_pattern)
    landing, warehouse = args.landing.resolve(), args.warehouse.resolve()
    if not args.keep:
        shutil.rmtree(landing, ignore_errors=True)
        for stale in (warehouse, warehouse.with_name(warehouse.name + ".wal")):
            stale.unlink(missing_ok=True)
    warehouse.parent.mkdir(parents=True, exist_ok=True)
    target = args.target_path.resolve() if args.target_path else settings.project_dir / "target"
    last_target = target
    failed = False
    for number, batch in enumerate(batches, start=1):
        land(batch.files, landing)
        started = time.monotonic()
        run_ = invoke(
            settings, "build", warehouse=warehouse, target_path=target, landing=landing,
            select=tuple(args.select),
        )
        verdict = "ok" if run_.ok else "FAILED: " + "; ".join(run_.problems)[:500]
        print(
            f"batch {number}/{len(batches)} {batch.key}: landed {len(batch.files)} file(s), "
            f"dbt build {verdict} ({time.monotonic() - started:.1f} s)",
            flush=True,
        )
        failed = failed or not run_.ok
        last_target = run_.target_path
        figures = _pipeline_figures(warehouse)
        if figures:
            print("    " + ", ".join(f"{name} {value}" for name, value in figures.items()), flush=True)
    _print_tables(warehouse, last_target)
    if not failed and _pipeline_figures(warehouse):
        failed = not _retry_and_correct(args, settings, batches[0].key, warehouse, landing, target)
    print(f"\nwarehouse: {warehouse}\nlanding:   {landing}")
    return 1 if failed else 0


def _print_tables(warehouse: Path, target: Path) -> None:
    models = load_manifest(target).by_relation()
    with tempfile.TemporaryDirectory(prefix="rerun-safe-demo-") as folder:
        # A copy: this process still holds dbt's connection to the warehouse file.
        snapshot = take_snapshot(warehouse, Path(folder), "demo")
        con = duckdb.connect(str(snapshot.path), read_only=True)
        try:
            print("\nrows per relation:")
            for relation in snapshot.relations:
                count = con.execute(
                    f"select count(*) from {quote(relation.schema)}.{quote(relation.name)}"
                ).fetchone()
                kind = "model" if relation.key in models else "other"
                print(f"  {relation.display_name:<45} {kind:<6} {count[0] if count else 0:>10}")
        finally:
            con.close()
    sys.stdout.flush()


PIPELINE_FIGURES = {
    "landed": "select count(*) from stg_landing__events",
    "quarantined": "select count(*) from quarantined_events",
    "duplicates": "select coalesce(sum(row_count - 1), 0) from int_event_copies_classified",
    "late_waiting": "select count(*) from late_events where status = 'waiting'",
    "late_applied": "select count(*) from late_events where status = 'applied'",
    "net_cents": "select coalesce(sum(net_cents), 0) from fct_daily_revenue",
    "ledger_cents": "select coalesce(sum(amount_cents), 0) from fct_revenue_ledger",
}
BUSINESS_TABLES = ("fct_order_items", "fct_daily_revenue", "fct_revenue_ledger")


def _read(warehouse: Path, queries: dict[str, str]) -> dict[str, object] | None:
    """Run queries on a copy of the warehouse; None when this is not a rerun_safe warehouse."""
    with tempfile.TemporaryDirectory(prefix="rerun-safe-demo-") as folder:
        snapshot = take_snapshot(warehouse, Path(folder), "figures")
        names = {relation.name for relation in snapshot.relations}
        if not {"stg_landing__events", "fct_daily_revenue"} <= names:
            return None
        con = duckdb.connect(str(snapshot.path), read_only=True)
        try:
            return {name: con.execute(sql).fetchall()[0][0] for name, sql in queries.items()}
        finally:
            con.close()


def _pipeline_figures(warehouse: Path) -> dict[str, object] | None:
    return _read(warehouse, PIPELINE_FIGURES)


def _business_digest(warehouse: Path) -> dict[str, object] | None:
    """Row count and an order-independent hash sum per business table."""
    queries = {}
    for table in BUSINESS_TABLES:
        queries[table] = f"select count(*) || ':' || coalesce(sum(hash(t)), 0) from {table} as t"
    return _read(warehouse, queries)


def _retry_and_correct(
    args: argparse.Namespace, settings: DbtSettings, first_key: str,
    warehouse: Path, landing: Path, target: Path,
) -> bool:
    before = _business_digest(warehouse)
    retry = invoke(settings, "build", warehouse=warehouse, target_path=target, landing=landing)
    after = _business_digest(warehouse)
    unchanged = retry.ok and before == after
    print(f"\nretry of the last build, nothing new landed: business tables "
          f"{'unchanged' if unchanged else 'CHANGED (a re-run must be a no-op)'}", flush=True)
    waiting = (_pipeline_figures(warehouse) or {}).get("late_waiting")
    correction = {"correct_from": "2000-01-01", "correct_to": first_key}
    corrected_settings = dataclasses.replace(settings, vars={**settings.vars, **correction})
    corrected = invoke(corrected_settings, "build", warehouse=warehouse, target_path=target, landing=landing)
    figures = _pipeline_figures(warehouse) or {}
    balanced = figures.get("ledger_cents") == figures.get("net_cents")
    print(f"correction --vars '{json.dumps(correction)}': applied {figures.get('late_applied')} of {waiting} waiting late "
          f"rows ({figures.get('late_waiting')} still wait, they belong to later days)", flush=True)
    print(f"ledger balance {figures.get('ledger_cents')} cents = daily revenue {figures.get('net_cents')} cents: "
          f"{'yes' if balanced else 'NO'}", flush=True)
    return unchanged and corrected.ok and balanced
