"""`python -m pipeline_demo demo`: land deliveries batch by batch into one warehouse, build after each
batch, and print what the pipeline did (rows per table). The `make demo` entry point.

On this project (a warehouse with rerun_safe's tables) it also prints, per batch, what was
landed, quarantined, counted as duplicate and queued as late, then retries the last build
with nothing new (the business tables must not change) and runs a correction over the first
delivery day (late rows are applied, the ledger still balances).

It never destroys what it did not make. It works in a warehouse and landing folder of its own
(target/demo/), which `make show`, `make report`, `make land` and the README's "run dbt
yourself" read by default. It starts afresh only over a warehouse it made (a marker file beside
it, `<warehouse>.demo.json`, lists every relation it held when the demo finished) that holds no
relation the marker does not list (builds of this project in it, after `make land`, are the
demo's path; a table of anyone else's is not), and over a landing folder holding only regular
files whose bytes equal the delivery of the same name (compared by SHA-256); anything else it
refuses, naming it, and deletes nothing. It removes only those files, never the folder with
whatever else it holds.

With --hold-back N (make demo: 1) the last N days of the deliveries are not landed: `make land
DAY=...` lands one of them, for an incremental build to watch."""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from harness._plumbing import (
    DEFAULT_BATCH_PATTERN,
    Batch,
    DbtSettings,
    discover_batches,
    invoke,
    land,
    load_manifest,
    quote,
    take_snapshot,
)
from pipeline_demo import generate
from pipeline_demo.inputs import resolve, same_content, shown

HELP = "land deliveries batch by batch into one warehouse, build after each, print the tables"
DEMO_WAREHOUSE = Path("target/demo/rerun_safe.duckdb")
DEMO_LANDING = Path("target/demo/landing")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--deliveries",
        type=Path,
        default=None,
        metavar="DIR",
        help="CSV deliveries (default data/deliveries; make: DELIVERIES=); generated "
        "(python -m pipeline_demo generate) when the folder has none",
    )
    parser.add_argument(
        "--landing",
        type=Path,
        default=None,
        metavar="DIR",
        help=f"the demo's landing folder (default {DEMO_LANDING}; make: LANDING=)",
    )
    parser.add_argument(
        "--warehouse",
        type=Path,
        default=None,
        metavar="PATH",
        help=f"the demo's DuckDB file (default {DEMO_WAREHOUSE}; make: WAREHOUSE=); one the demo "
        "did not make, or holding a relation it did not make, is never overwritten",
    )
    parser.add_argument("--batch-pattern", default=DEFAULT_BATCH_PATTERN, metavar="REGEX")
    parser.add_argument(
        "--target-path",
        type=Path,
        default=None,
        metavar="DIR",
        help="dbt target path (default: the project's target/)",
    )
    parser.add_argument(
        "--hold-back",
        type=int,
        default=0,
        metavar="N",
        help="land every day but the last N (default 0), left for make land DAY=...",
    )
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the landing folder and warehouse and build on them (default: start afresh, "
        "over a warehouse and landing folder of a previous demo only)",
    )


def _ensure_deliveries(deliveries: Path) -> int:
    if deliveries.is_dir() and any(deliveries.glob("*.csv")):
        return 0
    print(f"no deliveries in {deliveries}: generating them", flush=True)
    return generate.main(["--out", str(deliveries)])


def run(args: argparse.Namespace, settings: DbtSettings) -> int:
    if not _arguments_checked(args) or _ensure_deliveries(args.deliveries) != 0:
        return 2
    try:
        every_batch = discover_batches(args.deliveries, args.batch_pattern)
    except (OSError, ValueError) as exc:
        print(f"demo: {exc}", file=sys.stderr, flush=True)
        return 2
    held = every_batch[len(every_batch) - args.hold_back :] if 0 < args.hold_back < len(every_batch) else []
    batches = every_batch[: len(every_batch) - len(held)]
    if _a_link_is_given(args):
        return 2
    landing, warehouse = args.landing.resolve(), args.warehouse.resolve()
    ours = _marker(warehouse).exists() or not _exists(warehouse)
    if not args.keep and not _start_afresh(warehouse, landing, every_batch):
        return 2
    warehouse.parent.mkdir(parents=True, exist_ok=True)
    target = args.target_path.resolve() if args.target_path else settings.project_dir / "target"
    try:
        failed, last_target = _build_batches(args, settings, batches, warehouse, landing, target)
        _print_tables(warehouse, last_target, "after the last batch")
        if not failed and _pipeline_figures(warehouse):
            failed = not _retry_and_correct(args, settings, batches[0].key, warehouse, landing, target)
            _print_tables(warehouse, last_target, "after the retry and the correction")
    finally:
        if ours and _exists(warehouse):
            _write_marker(warehouse, landing)
    print(f"\nwarehouse: {warehouse}\nlanding:   {landing}")
    _print_next_steps(warehouse, landing, args.deliveries, held[0].key if held else None)
    return 1 if failed else 0


def _arguments_checked(args: argparse.Namespace) -> bool:
    """Each path (flag, or Make variable) a printable non-empty path, set on `args` as a Path; the
    days held back 0 or more. False after one line naming the bad value."""
    for attribute, flag, make_name, default in (
        ("deliveries", "--deliveries", "DELIVERIES", "data/deliveries"),
        ("landing", "--landing", "LANDING", str(DEMO_LANDING)),
        ("warehouse", "--warehouse", "WAREHOUSE", str(DEMO_WAREHOUSE)),
    ):
        value = resolve(getattr(args, attribute), flag, make_name, default)
        if not value.text.strip() or any(not c.isprintable() for c in value.text):
            print(f"demo: {value.name} {shown(value.text)}: a path without control characters", file=sys.stderr)
            return False
        setattr(args, attribute, Path(value.text))
    if args.hold_back < 0:
        print(f"demo: --hold-back {args.hold_back}: a whole number of days, 0 or more", file=sys.stderr, flush=True)
        return False
    return True


def _a_link_is_given(args: argparse.Namespace) -> bool:
    """Whether --landing or --warehouse is a symbolic link (never followed), after saying so."""
    for given, flag in ((args.landing, "--landing"), (args.warehouse, "--warehouse")):
        if given.is_symlink():
            print(
                f"demo: {flag} {given}: a symbolic link, never followed; give the folder or file itself",
                file=sys.stderr,
                flush=True,
            )
            return True
    return False


def _start_afresh(warehouse: Path, landing: Path, every_batch: list[Batch]) -> bool:
    """Remove the previous demo's warehouse and landed files, only when they are the demo's own;
    False after one line saying why not (nothing deleted)."""
    deliveries = {path.name: path for batch in every_batch for path in batch.files}
    refusal = _refusal(warehouse, landing, deliveries)
    if refusal:
        print(
            f"demo: refusing to start afresh: {refusal}; nothing was deleted. Point --warehouse/--landing "
            f"(make demo WAREHOUSE=... LANDING=...) elsewhere (the defaults, {DEMO_WAREHOUSE} and "
            f"{DEMO_LANDING}, are the demo's own), or move the file away yourself.",
            file=sys.stderr,
            flush=True,
        )
        return False
    landed = sorted(path for path in landing.iterdir()) if landing.is_dir() else []
    if landed or _exists(warehouse):
        print(
            f"demo: starting afresh: removing the previous demo's warehouse and its {len(landed)} landed "
            "file(s), then building again",
            flush=True,
        )
    for path in landed:
        path.unlink()
    for stale in (warehouse, warehouse.with_name(warehouse.name + ".wal"), _marker(warehouse)):
        stale.unlink(missing_ok=True)
    return True


def _build_batches(
    args: argparse.Namespace,
    settings: DbtSettings,
    batches: list[Batch],
    warehouse: Path,
    landing: Path,
    target: Path,
) -> tuple[bool, Path]:
    """Land each batch and build; print the totals after each. Whether a build failed, and the
    target folder of the last."""
    last_target = target
    failed = False
    previous: dict[str, object] = {}
    print(
        "per batch: the warehouse's totals after the build (cumulative), and in brackets what this batch added",
        flush=True,
    )
    for number, batch in enumerate(batches, start=1):
        land(batch.files, landing)
        started = time.monotonic()
        run_ = invoke(
            settings,
            "build",
            warehouse=warehouse,
            target_path=target,
            landing=landing,
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
            print(
                "    totals: "
                + ", ".join(
                    f"{FIGURE_NAMES[name]} {value} ({_delta(value, previous.get(name, 0))})"
                    for name, value in figures.items()
                ),
                flush=True,
            )
            previous = figures
    return failed, last_target


def _write_marker(warehouse: Path, landing: Path) -> None:
    """The file that says the warehouse is the demo's own (what a later demo may start afresh over)."""
    _marker(warehouse).write_text(
        json.dumps(
            {
                "made_by": "python -m pipeline_demo demo",
                "landing": str(landing),
                "relations": _row_counts(warehouse),
            },
            indent=1,
            sort_keys=True,
        )
        + "\n"
    )


FIGURE_NAMES = {
    "landed": "staged rows",
    "quarantined": "quarantined rows",
    "duplicates": "duplicate copies",
    "late_waiting": "late rows waiting",
    "late_applied": "late rows applied",
    "net_cents": "daily revenue net cents",
    "ledger_cents": "ledger cents",
}


def _delta(value: object, before: object) -> str:
    try:
        change = int(value) - int(before)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return "?"
    return f"{change:+d}"


def _marker(warehouse: Path) -> Path:
    return warehouse.with_name(warehouse.name + ".demo.json")


def _exists(warehouse: Path) -> bool:
    return warehouse.exists() or warehouse.with_name(warehouse.name + ".wal").exists()


def _row_counts(warehouse: Path) -> dict[str, int]:
    """Rows per relation, on a copy: what changes when anyone writes to the warehouse (a dbt
    build adds a row to the run registry even when it has nothing new)."""
    with tempfile.TemporaryDirectory(prefix="rerun-safe-demo-") as folder:
        snapshot = take_snapshot(warehouse, Path(folder), "marker")
        con = duckdb.connect(str(snapshot.path), read_only=True)
        try:
            counts: dict[str, int] = {}
            for relation in snapshot.relations:
                row = con.execute(f"select count(*) from {quote(relation.schema)}.{quote(relation.name)}").fetchone()
                counts[relation.display_name] = int(row[0]) if row else 0
            return counts
        finally:
            con.close()


def _refusal(warehouse: Path, landing: Path, deliveries: dict[str, Path]) -> str | None:
    """Why starting afresh would destroy something the demo did not make, or None."""
    if _exists(warehouse):
        marker = _marker(warehouse)
        if not marker.exists():
            return (
                f"{warehouse} exists and the demo did not make it (no {marker.name} beside it): "
                "it may be your warehouse"
            )
        try:
            recorded = json.loads(marker.read_text())["relations"]
            now = _row_counts(warehouse)
        except (OSError, ValueError, KeyError, TypeError, duckdb.Error) as exc:
            return f"{warehouse}: cannot tell whether it changed since the demo made it ({exc})"
        added = sorted(set(now) - set(recorded))
        if added:
            return (
                f"{warehouse} changed since the demo made it ({', '.join(added[:5])}"
                f"{' ...' if len(added) > 5 else ''}): someone made a relation in it"
            )
    if landing.is_dir():
        foreign = sorted(
            path.name
            for path in landing.iterdir()
            if path.name not in deliveries or not same_content(path, deliveries[path.name])
        )
        if foreign:
            return (
                f"{landing} holds files that are not copies of the deliveries (another name or other "
                f"content: {', '.join(foreign[:5])}{' ...' if len(foreign) > 5 else ''})"
            )
    elif landing.exists():
        return f"{landing} is not a folder"
    return None


# measured once: `make harness` on the demo's deliveries, on a 2-core machine shared with other work
HARNESS_TIME = "long: about 110 dbt builds, 42 minutes measured on a shared 2-core machine"


def _print_next_steps(warehouse: Path, landing: Path, deliveries: Path, held_day: str | None) -> None:
    """Commands that work as printed from the repository's folder: the make targets read the
    demo's warehouse and landing by default, and name them only when this demo used others."""
    cwd = Path.cwd()

    def relative(path: Path) -> str:
        return str(path.relative_to(cwd)) if path.is_relative_to(cwd) else str(path)

    warehouse_text, landing_text = relative(warehouse), relative(landing)
    warehouse_var = "" if warehouse_text == str(DEMO_WAREHOUSE) else f" WAREHOUSE={shlex.quote(warehouse_text)}"
    landing_var = "" if landing_text == str(DEMO_LANDING) else f" LANDING={shlex.quote(landing_text)}"
    deliveries_text = relative(deliveries.resolve())
    if deliveries_text != "data/deliveries":
        landing_var += f" DELIVERIES={shlex.quote(deliveries_text)}"
    env = f"DBT_DUCKDB_PATH={shlex.quote(warehouse_text)}"
    build = f"{env} .venv/bin/dbt build --vars {shlex.quote(json.dumps({'landing_path': landing_text}))}"
    if held_day:
        land_step = (
            "  3. land the day the demo held back and watch an incremental build read only its files:\n"
            f"       make land{warehouse_var}{landing_var} DAY={held_day}\n"
            f"       {build}\n"
            f"       make report{warehouse_var}\n"
        )
    else:
        land_step = f"  3. build again after landing new files (make land DAY=YYYY-MM-DD):\n       {build}\n"
    print(
        "\nnext steps (from this folder):\n"
        "  1. a table's first 20 rows, read-only (LIMIT=all for every row):\n"
        f"       make show{warehouse_var} TABLE=fct_daily_revenue\n"
        "  2. every run, the late queue, the corrections and the marts on one HTML page:\n"
        f"       make report{warehouse_var}\n" + land_step + "  4. browse the models, their columns and lineage:\n"
        f"       {env} .venv/bin/dbt docs generate && .venv/bin/dbt docs serve\n"
        "  5. prove the pipeline is safe to re-run (retries, replays, crashes, backfills):\n"
        f"       make harness    ({HARNESS_TIME})",
        flush=True,
    )


def _print_tables(warehouse: Path, target: Path, when: str) -> None:
    models = load_manifest(target).by_relation()
    with tempfile.TemporaryDirectory(prefix="rerun-safe-demo-") as folder:
        # A copy: this process still holds dbt's connection to the warehouse file.
        snapshot = take_snapshot(warehouse, Path(folder), "demo")
        con = duckdb.connect(str(snapshot.path), read_only=True)
        try:
            print(f"\nrows per relation {when}:")
            for relation in snapshot.relations:
                count = con.execute(f"select count(*) from {quote(relation.schema)}.{quote(relation.name)}").fetchone()
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
    args: argparse.Namespace,
    settings: DbtSettings,
    first_key: str,
    warehouse: Path,
    landing: Path,
    target: Path,
) -> bool:
    before = _business_digest(warehouse)
    retry = invoke(settings, "build", warehouse=warehouse, target_path=target, landing=landing)
    after = _business_digest(warehouse)
    unchanged = retry.ok and before == after
    print(
        f"\nretry of the last build, nothing new landed: business tables "
        f"{'unchanged' if unchanged else 'CHANGED (a re-run must be a no-op)'}",
        flush=True,
    )
    waiting = (_pipeline_figures(warehouse) or {}).get("late_waiting")
    correction = {"correct_from": "2000-01-01", "correct_to": first_key}
    corrected_settings = dataclasses.replace(settings, vars={**settings.vars, **correction})
    corrected = invoke(corrected_settings, "build", warehouse=warehouse, target_path=target, landing=landing)
    figures = _pipeline_figures(warehouse) or {}
    balanced = figures.get("ledger_cents") == figures.get("net_cents")
    print(
        f"correction --vars '{json.dumps(correction)}': applied {figures.get('late_applied')} of {waiting} "
        f"late rows waiting ({figures.get('late_waiting')} late rows still wait, they belong to later days)",
        flush=True,
    )
    print(
        f"ledger balance {figures.get('ledger_cents')} cents = daily revenue {figures.get('net_cents')} cents: "
        f"{'yes' if balanced else 'NO'}",
        flush=True,
    )
    return unchanged and corrected.ok and balanced
