"""`python -m pipeline_demo land --day YYYY-MM-DD` (`make land DAY=...`): copy one day's
deliveries into the demo's landing folder, so that the next incremental build reads them.

The day is a batch key of the deliveries (their names start with it, as the demo batches them:
harness DEFAULT_BATCH_PATTERN). Before anything is copied: DAY must be a calendar date that is
among the deliveries' days, the landing folder must exist (the demo makes it), and every file
of the day must be either absent from the landing folder or already there with the same bytes;
a file of the same name with other content, or a link, is refused, naming it, and nothing is
copied. Files already landed are left as they are (their bytes are the delivery's).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import shlex
import sys
from pathlib import Path

from harness._plumbing import DEFAULT_BATCH_PATTERN, Batch, discover_batches, land
from pipeline_demo.inputs import InputError, Value, resolve, same_content, shown

HELP = "copy one day's deliveries into the demo's landing folder (then run an incremental build)"
DEFAULT_DELIVERIES = "data/deliveries"
DEFAULT_LANDING = "target/demo/landing"
DEFAULT_WAREHOUSE = "target/demo/rerun_safe.duckdb"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--day", default=None, metavar="YYYY-MM-DD", help="the day to land (make: DAY=)")
    parser.add_argument(
        "--deliveries",
        default=None,
        metavar="DIR",
        help=f"the deliveries (default {DEFAULT_DELIVERIES}; make: DELIVERIES=)",
    )
    parser.add_argument(
        "--landing",
        default=None,
        metavar="DIR",
        help=f"the landing folder (default the demo's, {DEFAULT_LANDING}; make: LANDING=)",
    )
    parser.add_argument(
        "--warehouse",
        default=None,
        metavar="PATH",
        help=f"the warehouse the printed build command writes (default {DEFAULT_WAREHOUSE}; "
        "make: WAREHOUSE=); only printed, never opened",
    )


def check_day(value: Value) -> dt.date:
    text = value.text.strip()
    try:
        if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
            raise ValueError(text)
        return dt.date.fromisoformat(text)
    except ValueError:
        raise InputError(f"{value.name} {shown(value.text)}: a calendar date, YYYY-MM-DD") from None


def batches_of(value: Value) -> list[Batch]:
    folder = Path(value.text)
    if not value.text.strip() or not folder.is_dir():
        raise InputError(f"{value.name} {shown(value.text)}: no such folder (make demo generates the deliveries)")
    try:
        return discover_batches(folder, DEFAULT_BATCH_PATTERN)
    except (OSError, ValueError) as exc:
        raise InputError(f"{value.name} {shown(value.text)}: {exc}") from exc


def build_command(warehouse: str, landing: str) -> str:
    """The dbt command that builds what was landed, quoted for a POSIX shell."""
    variables = json.dumps({"landing_path": landing})
    return f"DBT_DUCKDB_PATH={shlex.quote(warehouse)} .venv/bin/dbt build --vars {shlex.quote(variables)}"


def land_day(day_value: Value, deliveries_value: Value, landing_value: Value) -> tuple[list[Path], list[Path]]:
    """(files copied, files already landed)."""
    day = check_day(day_value)
    batches = batches_of(deliveries_value)
    keys = [batch.key for batch in batches]
    batch = next((b for b in batches if b.key == day.isoformat()), None)
    if batch is None:
        raise InputError(
            f"{day_value.name} {day.isoformat()}: no delivery of that day in {shown(deliveries_value.text)} "
            f"(its days: {keys[0]} to {keys[-1]})"
        )
    landing = Path(landing_value.text)
    if not landing_value.text.strip() or landing.is_symlink() or not landing.is_dir():
        raise InputError(
            f"{landing_value.name} {shown(landing_value.text)}: no such folder (make demo makes the demo's landing "
            "folder; run it first)"
        )
    new, already = [], []
    for source in batch.files:
        if source.parent.resolve() != Path(deliveries_value.text).resolve():
            raise InputError(
                f"{deliveries_value.name}: {shown(source)} is in a subfolder; make land copies flat deliveries"
            )
        target = landing / source.name
        if target.is_symlink() or target.exists():
            if not same_content(target, source):
                raise InputError(
                    f"{landing_value.name}: {shown(target)} exists with other content than the delivery "
                    f"{shown(source)}; nothing was copied (move your file away to land the day)"
                )
            already.append(target)
        else:
            new.append(source)
    return land(new, landing), already


def run(args: argparse.Namespace) -> int:
    landing = resolve(args.landing, "--landing", "LANDING", DEFAULT_LANDING)
    warehouse = resolve(args.warehouse, "--warehouse", "WAREHOUSE", DEFAULT_WAREHOUSE)
    day = resolve(args.day, "--day", "DAY", "")
    try:
        if not day.text.strip():
            raise InputError(f"{day.name} is not given: the day to land, YYYY-MM-DD (make land DAY=2026-11-10)")
        copied, already = land_day(
            day, resolve(args.deliveries, "--deliveries", "DELIVERIES", DEFAULT_DELIVERIES), landing
        )
    except InputError as exc:
        print(f"land: {exc}", file=sys.stderr, flush=True)
        return 2
    print(
        f"land: {len(copied)} file(s) of {day.text.strip()} copied into {landing.text}"
        + (f", {len(already)} already there with the same bytes" if already else ""),
        flush=True,
    )
    make_vars = "" if warehouse.text == DEFAULT_WAREHOUSE else f" WAREHOUSE={shlex.quote(warehouse.text)}"
    print(
        "land: now build them incrementally (only the new files are read), then look:\n"
        f"  {build_command(warehouse.text, landing.text)}\n"
        f"  make report{make_vars}    # or: make show{make_vars} TABLE=fct_daily_revenue",
        flush=True,
    )
    return 0
