"""`rerun-safe demo`: land deliveries batch by batch into one warehouse, build after each
batch, and print what the pipeline did (rows per table). The `make demo` entry point."""

from __future__ import annotations

import argparse
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

HELP = "land deliveries batch by batch into one warehouse, build after each, print the tables"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--deliveries", type=Path, default=Path("data/deliveries"), metavar="DIR",
        help="CSV deliveries; generated (rerun-safe generate) when the folder has none",
    )
    parser.add_argument("--landing", type=Path, default=Path("data/landing"), metavar="DIR")
    parser.add_argument("--warehouse", type=Path, default=Path("target/rerun_safe.duckdb"), metavar="PATH")
    parser.add_argument("--batch-pattern", default=DEFAULT_BATCH_PATTERN, metavar="REGEX")
    parser.add_argument(
        "--target-path", type=Path, default=None, metavar="DIR",
        help="dbt target path (default: the project's target/)",
    )


def _ensure_deliveries(deliveries: Path) -> int:
    if deliveries.is_dir() and any(deliveries.glob("*.csv")):
        return 0
    from harness import generate  # lazy: owned by another module

    print(f"no deliveries in {deliveries}: generating them", flush=True)
    parser = argparse.ArgumentParser(prog="rerun-safe generate")
    generate.add_arguments(parser)
    return int(generate.run(parser.parse_args(["--out", str(deliveries)])))


def run(args: argparse.Namespace, settings: DbtSettings) -> int:
    if _ensure_deliveries(args.deliveries) != 0:
        return 2
    batches = discover_batches(args.deliveries, args.batch_pattern)
    landing, warehouse = args.landing.resolve(), args.warehouse.resolve()
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
    _print_tables(warehouse, last_target)
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
