"""Lateness (informational): how late rows land, and what a watermark would route to the queue."""

from __future__ import annotations

import argparse
import csv
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from harness.checks.base import Check
from harness.context import CheckContext
from harness.engines.base import quote
from harness.errors import InputError
from harness.project import project_vars
from harness.results import CheckResult, Status

NAME = "lateness"
TIMESTAMP_FORMATS = ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d %H:%M:%S")
PERCENTILES = (("p50", 0.5), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99), ("p99.9", 0.999))
DEFAULT_ALLOWED_LATENESS_HOURS = 72.0


@dataclass(frozen=True)
class Options:
    event_time_column: str = "event_time"
    ingested_at_column: str = "ingested_at"
    # None: the project's var allowed_lateness_hours, else DEFAULT_ALLOWED_LATENESS_HOURS
    allowed_lateness_hours: float | None = None
    share: float = 0.99
    histogram: Path | None = None  # None: lateness.png next to --summary, else next to --junit
    # the report flags, read for the histogram's default place
    summary: Path | None = None
    junit: Path | None = None


def csv_header(path: Path) -> list[str]:
    """The column names of a CSV file: its first record as a CSV parser reads it (RFC 4180: a
    quoted name may hold commas, doubled quotes and line breaks), spaces around each stripped,
    a UTF-8 byte order mark dropped. An empty file has none."""
    with path.open(newline="", encoding="utf-8-sig", errors="replace") as handle:
        first = next(csv.reader(handle, skipinitialspace=True), [])
    return [name.strip() for name in first]


def _parse(column: str) -> str:
    tries = ", ".join(f"try_strptime({quote(column)}, '{fmt}')" for fmt in TIMESTAMP_FORMATS)
    return f"coalesce({tries})"


def allowed_lateness(ctx: CheckContext, options: Options) -> tuple[float, str]:
    explicit = options.allowed_lateness_hours
    if explicit is not None:
        return float(explicit), "--allowed-lateness-hours"
    if "allowed_lateness_hours" in ctx.settings.vars:
        return float(ctx.settings.vars["allowed_lateness_hours"]), "--vars"
    declared = project_vars(ctx.settings.project_dir).get("allowed_lateness_hours")
    if declared is not None:
        return float(declared), "dbt_project.yml vars"
    return DEFAULT_ALLOWED_LATENESS_HOURS, "default"


def _histogram_path(options: Options) -> Path | None:
    if options.histogram is not None:
        return Path(options.histogram)
    for report in (options.summary, options.junit):
        if report is not None:
            return Path(report).with_name("lateness.png")
    return None


def write_histogram(hours: list[float], allowed: float, covering: float, share: float, path: Path) -> None:
    """Rows by lateness on a log axis, those later than the watermark (the rows that would wait in
    the correction queue) in orange, the watermark and the lateness that covers `share` marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker as ticker
    import numpy as np

    floor = 1 / 60  # rows on time or early are drawn at one minute: a log axis has no zero
    raw = np.asarray(hours, dtype=float)
    values = np.clip(raw, floor, None)
    late = raw > allowed  # the check's rule: later than the watermark, not at it
    upper = max(float(values.max()), allowed, covering, floor * 10)
    bins = np.logspace(math.log10(floor), math.log10(upper * 1.05), 40)
    figure, axis = plt.subplots(figsize=(8, 4.5))
    try:
        axis.hist(
            [values[~late], values[late]],
            bins=bins.tolist(),
            stacked=True,
            color=["#4c72b0", "#dd8452"],
            label=[f"within the watermark: {int((~late).sum()):,}", f"later, would wait: {int(late.sum()):,}"],
        )
        axis.set_xscale("log")
        axis.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _pos: f"{v:,.10g}"))
        axis.xaxis.set_minor_formatter(ticker.NullFormatter())
        axis.yaxis.set_major_locator(ticker.MaxNLocator(integer=True))  # rows: whole numbers
        axis.yaxis.set_major_formatter(ticker.StrMethodFormatter("{x:,.0f}"))
        axis.axvline(allowed, color="#c44e52", linestyle="--", label=f"watermark {allowed:g} h")
        axis.axvline(
            max(covering, floor), color="#55a868", linestyle=":", label=f"covers {share:.1%}: {covering:.1f} h"
        )
        axis.set_xlabel("lateness (ingested_at - event_time), hours, log scale (on time or early: at 1 minute)")
        axis.set_ylabel("rows")
        axis.set_title(
            f"Lateness of {len(hours):,} rows: {int(late.sum()) / max(1, len(hours)):.1%} later than "
            f"the {allowed:g} h watermark"
        )
        axis.legend(fontsize="small")
        path.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(path, dpi=100, bbox_inches="tight")
    finally:
        plt.close(figure)


def _measure(
    files: list[Path], event_col: str, ingested_col: str, allowed: float, share: float
) -> tuple[int, int, tuple[Any, ...], list[float]]:
    """Every row's lateness in hours, read in DuckDB: (rows, rows without both timestamps, the
    percentiles then max, min, rows later than `allowed`, the hours covering `share`; the hours)."""
    con = duckdb.connect()
    try:
        con.execute(
            f"""
            create temp table lateness as
            select epoch({_parse(ingested_col)} - {_parse(event_col)}) / 3600.0 as hours
            from read_csv(?, all_varchar = true, header = true, union_by_name = true)
            """,
            [[str(f) for f in files]],
        )
        total, unparsed = con.execute("select count(*), count(*) filter (where hours is null) from lateness").fetchone()  # type: ignore[misc]
        if total == unparsed:
            raise InputError(
                f"no row has both {event_col} and {ingested_col} parseable as " + " or ".join(TIMESTAMP_FORMATS)
            )
        quantiles = ", ".join(f"quantile_cont(hours, {q})" for _, q in PERCENTILES)
        row = con.execute(
            f"""
            select {quantiles}, max(hours), min(hours),
                count(*) filter (where hours > ?), quantile_cont(hours, ?)
            from lateness where hours is not null
            """,
            [allowed, share],
        ).fetchone()
        assert row is not None
        hours = [float(h) for (h,) in con.execute("select hours from lateness where hours is not null").fetchall()]
    finally:
        con.close()
    return int(total), int(unparsed), row, hours


class Lateness(Check[Options]):
    name = NAME
    help = "lateness percentiles, histogram, rows beyond the watermark (informational)"
    needs_deliveries = True
    options_type = Options

    def add_arguments(self, parser: argparse._ActionsContainer) -> None:
        parser.add_argument(
            "--event-time-column",
            default=None,
            metavar="COL",
            help="column of the event time in the deliveries (default: event_time)",
        )
        parser.add_argument(
            "--ingested-at-column",
            default=None,
            metavar="COL",
            help="column of the ingestion time in the deliveries (default: ingested_at)",
        )
        parser.add_argument(
            "--allowed-lateness-hours",
            type=float,
            default=None,
            metavar="H",
            help="watermark to evaluate (default: the project's var allowed_lateness_hours, else 72)",
        )
        parser.add_argument(
            "--share",
            type=float,
            default=None,
            metavar="S",
            help="report the allowed lateness that covers this share of rows (default: 0.99)",
        )
        parser.add_argument(
            "--histogram",
            type=Path,
            default=None,
            metavar="PATH",
            help="histogram PNG (default: lateness.png next to --summary, else next to --junit)",
        )

    def applies(self, ctx: CheckContext, options: Options) -> str:
        """Lateness needs both timestamp columns in the deliveries' headers."""
        if ctx.deliveries is None:
            return "needs --deliveries DIR (files with event and ingestion times)"
        wanted = {options.event_time_column, options.ingested_at_column}
        headers: set[str] = set()
        csv_files = [path for batch in ctx.batches() for path in batch.files if path.suffix.lower() == ".csv"]
        if not csv_files:
            return "reads CSV deliveries only (these are Parquet)"
        for path in csv_files:
            headers |= set(csv_header(path))
        missing = sorted(wanted - headers)
        if missing:
            return (
                f"no column {', '.join(missing)} in the deliveries' headers (set --event-time-column "
                "and --ingested-at-column)"
            )
        return ""

    def run(self, ctx: CheckContext, options: Options) -> CheckResult:
        started = time.monotonic()
        files = [
            f for batch in ctx.batches() for f in batch.files if f.suffix.lower() == ".csv" and f.stat().st_size > 0
        ]
        if not files:
            raise InputError("every delivery file is empty: no lateness to compute")
        event_col, ingested_col = options.event_time_column, options.ingested_at_column
        share = float(options.share)
        if not 0 < share <= 1:
            raise InputError(f"--share must be in (0, 1], got {share}")
        allowed, allowed_source = allowed_lateness(ctx, options)
        total, unparsed, row, hours = _measure(files, event_col, ingested_col, allowed, share)

        parsed = int(total) - int(unparsed)
        metrics: dict[str, object] = {
            name: round(float(v), 3) for (name, _), v in zip(PERCENTILES, row, strict=False)
        }  # row: the percentiles, then more
        beyond = int(row[-2])
        covering = float(row[-1])
        metrics.update(
            rows=int(total),
            rows_unparseable=int(unparsed),
            max=round(float(row[len(PERCENTILES)]), 3),
            min=round(float(row[len(PERCENTILES) + 1]), 3),
            allowed_lateness_hours=allowed,
            allowed_lateness_source=allowed_source,
            rows_beyond_watermark=beyond,
            share_beyond_watermark=round(beyond / parsed, 6),
            share=share,
            hours_covering_share=round(covering, 3),
            whole_hours_covering_share=max(0, math.ceil(covering)),
        )
        result = CheckResult(
            name=NAME,
            status=Status.PASS,
            metrics=metrics,
            exercised={"files read": len(files), "rows with both timestamps": parsed},
        )
        result.notes.append(
            f"{beyond} of {parsed} rows ({beyond / parsed:.2%}) are later than {allowed:g} h "
            f"({allowed_source}) and would wait in the correction queue; "
            f"an allowed lateness of {math.ceil(covering)} h would cover {share:.1%} of rows"
        )
        if unparsed:
            result.notes.append(f"{unparsed} row(s) with an unparseable timestamp are not counted")
        histogram = _histogram_path(options)
        if histogram is None:
            result.notes.append("no histogram written: pass --histogram PATH or --summary PATH")
        else:
            write_histogram(hours, allowed, covering, share, histogram)
            result.artifacts["histogram"] = str(histogram)
        result.duration_s = time.monotonic() - started
        return result
