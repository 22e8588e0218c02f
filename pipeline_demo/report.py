"""`python -m pipeline_demo report` (`make report`): one static HTML page from a warehouse's run
log, for a person who opens it after a week of runs.

What it shows, all read from the warehouse (opened read-only, never written):
- runs over time (drawn over each run's start time): per run of `rerun_safe_runs`, the rows
  staged, quarantined and applied by a correction, and the late copies written, from that run's
  rows of `rerun_safe_run_log` (each model's figures, JSON text). Rows are rows and copies are
  copies, labelled as the run summary labels them: a row delivered twice is two copies, so the
  late copies of a run can exceed the growth of the late queue;
- the late queue after each run, in rows (`late_events`' `waiting` figure of that run);
- the corrections (`int_corrections_recorded`) and how many late rows each applied
  (`late_events.applied_by_correction_id`);
- the lateness histogram (`int_event_copies_classified.lateness_seconds`, rows weighted by their
  copies' `row_count`) against the watermark (`allowed_lateness_hours`);
- the last run's summary, and what the published tables hold now.

The pictures are matplotlib PNGs embedded as base64 data URIs: the page loads nothing (no
network, no script), so it opens from disk anywhere. Every picture has its numbers beside it in
a table (each figure in an element with a `data-figure` name: what tests/test_report.py reads).

Reading the warehouse is pipeline_demo/report_warehouse.py, drawing the pictures
pipeline_demo/report_pictures.py; this module checks the arguments and writes the page.

The warehouse path is data: it is checked (a file that exists, that DuckDB opens, holding this
project's tables in one schema) before anything is written, and it never enters SQL text.
"""

from __future__ import annotations

import argparse
import datetime as dt
import html
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from pipeline_demo.inputs import resolve, shown
from pipeline_demo.report_pictures import lateness_bins, lateness_picture, runs_picture
from pipeline_demo.report_warehouse import ReportError, Run, Warehouse, read_warehouse

HELP = "write a static HTML page of a warehouse's runs (run log, late queue, corrections, lateness)"
DEFAULT_WAREHOUSE = Path("target/demo/rerun_safe.duckdb")
PROJECT_FILE = Path(__file__).resolve().parents[1] / "dbt_project.yml"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--warehouse",
        default=None,
        metavar="PATH",
        help=f"the DuckDB file a dbt build of this project wrote (default: the demo's, {DEFAULT_WAREHOUSE}); "
        "opened read-only; make: WAREHOUSE=",
    )
    parser.add_argument(
        "--out",
        default=None,
        metavar="FILE.html",
        help="the page to write (default: <warehouse folder>/<warehouse name>.report.html; make: REPORT=)",
    )
    parser.add_argument(
        "--allowed-lateness-hours",
        type=int,
        default=None,
        metavar="HOURS",
        help="the watermark drawn on the lateness histogram (default: the allowed_lateness_hours var "
        "of dbt_project.yml); say it when the warehouse was built with --vars '{allowed_lateness_hours: N}'",
    )


# --- arguments --------------------------------------------------------------------------------


def default_out(warehouse: Path) -> Path:
    return warehouse.with_name(warehouse.stem + ".report.html")


def project_watermark() -> int:
    import yaml

    try:
        value = yaml.safe_load(PROJECT_FILE.read_text())["vars"]["allowed_lateness_hours"]
    except (OSError, KeyError, TypeError, yaml.YAMLError) as exc:
        raise ReportError(
            f"cannot read allowed_lateness_hours from {PROJECT_FILE} ({exc}): pass --allowed-lateness-hours"
        ) from exc
    return int(value)


def check_arguments(
    warehouse: Path, out: Path | None, hours: int | None, names: tuple[str, str] = ("--warehouse", "--out")
) -> tuple[Path, Path, int]:
    """The warehouse, the page and the watermark, checked; nothing is written before this.
    `names`: what the user calls the warehouse and the page (flags, or Make's WAREHOUSE and REPORT)."""
    w, o = names
    if not str(warehouse):
        raise ReportError(f"{w} is empty: give the path of a DuckDB file")
    if not warehouse.exists():
        raise ReportError(
            f"{w} {shown(warehouse)}: no such file. Build one first (make demo builds {DEFAULT_WAREHOUSE}), "
            "or point WAREHOUSE= (--warehouse) at the DuckDB file of a dbt build of this project"
        )
    if not warehouse.is_file():
        raise ReportError(f"{w} {shown(warehouse)}: not a file (a DuckDB database is one file)")
    out = default_out(warehouse) if out is None else out
    if out.suffix.lower() not in (".html", ".htm"):
        raise ReportError(f"{o} {shown(out)}: the page's name must end in .html")
    if out.exists() and not out.is_file():
        raise ReportError(f"{o} {shown(out)}: exists and is not a file")
    if out.exists() and out.resolve() == warehouse.resolve():
        raise ReportError(f"{o} {shown(out)}: that is the warehouse itself")
    for parent in out.resolve().parents:
        if parent.exists():
            if not parent.is_dir():
                raise ReportError(f"{o} {shown(out)}: {parent} is not a folder")
            break
    hours = project_watermark() if hours is None else hours
    if not 0 <= hours <= 87600:
        raise ReportError(f"--allowed-lateness-hours {hours}: whole hours 0-87600 (as the var allowed_lateness_hours)")
    return warehouse, out, hours


# --- the page ---------------------------------------------------------------------------------


def _cell(value: Any, figure: str | None = None) -> str:
    shown = (
        ""
        if value is None
        else (f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value))
    )
    attribute = f' data-figure="{html.escape(figure)}"' if figure else ""
    return f"<td{attribute}>{html.escape(shown)}</td>"


def _when(value: dt.datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%d %H:%M:%S")


def _number(figures: object, name: str) -> int | None:
    """A whole-number figure of a model's run-log row, or None when it is missing or not a number
    (a run log written by another version of the project, or edited by hand)."""
    value = figures.get(name) if isinstance(figures, dict) else None
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _shown(value: int | None, signed: bool = False) -> str:
    return "?" if value is None else (f"{value:+,}" if signed else f"{value:,}")


def _last_run_lines(run: Run) -> list[str]:
    """The last run in the words of the run summary (macros/audit/run_summary.sql): rows are
    rows, copies are copies. A figure missing from the run log is shown as `?`."""
    m = run.metrics
    lines = [f"run {run.run_seq} ({run.command}, started {_when(run.started_at)} UTC): {run.status}"]
    if run.status == "refused":
        lines.append("another run held the warehouse; this run wrote nothing")
        return lines
    if not m:
        lines.append("no model committed in this run")
        return lines
    deliveries = m.get("stg_landing__deliveries")
    if deliveries is not None:
        new, rejected = _number(deliveries, "files_new") or 0, _number(deliveries, "files_rejected") or 0
        lines.append(
            f"deliveries: {new - rejected} new accepted, {rejected} rejected, "
            f"{(_number(deliveries, 'files_listed') or 0) - new} unchanged (already seen)"
        )
    lines.append(
        f"rows: {run.rows_in or 0} staged, {run.quarantined or 0} quarantined, {run.applied or 0} late rows "
        f"applied by a correction; {_shown(run.waiting)} late rows waiting; copies: {run.late or 0} late copies written"
    )
    corrections = m.get("int_corrections_recorded", {})
    if _number(corrections, "corrections_recorded"):
        lines.append(f"correction recorded: {_number(corrections, 'corrections_recorded')}")
    ledger, days = m.get("fct_revenue_ledger"), m.get("fct_daily_revenue")
    if ledger is not None:
        lines.append(
            f"ledger: {_number(ledger, 'postings') or 0} postings ({_number(ledger, 'reversals') or 0} reversals), "
            f"net {_shown(_number(ledger, 'posted_cents'), signed=True)} cents"
        )
    if ledger is not None and days is not None:
        balance, net = _number(ledger, "balance_cents"), _number(days, "net_cents")
        if balance is None or net is None:
            lines.append("balance: not checked (the run log has no balance_cents or net_cents for this run)")
        else:
            balanced = balance == net
            lines.append(
                f"balance: ledger {balance:,} cents {'=' if balanced else '!='} daily "
                f"revenue {net:,} cents: {'balanced' if balanced else 'NOT BALANCED'}"
            )
    if run.rebuilt:
        lines.append("rebuilt from scratch: " + ", ".join(run.rebuilt))
    return lines


CSS = """
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
td, th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
th { background: #f2f2f2; } td.text, th.text { text-align: left; }
img { max-width: 100%; } .note { color: #555; font-size: 0.9em; } .bad { color: #b00; font-weight: bold; }
details { margin: 0.6em 0; } ul.summary { font-family: monospace; }
"""


def render(warehouse: Warehouse, hours: int, generated: dt.datetime) -> str:
    parts = [
        *_head(warehouse, generated),
        *_now_section(warehouse),
        *_last_run_section(warehouse.runs[-1] if warehouse.runs else None),
        *_runs_section(warehouse),
        *_corrections_section(warehouse),
        *_lateness_section(warehouse, hours),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _head(warehouse: Warehouse, generated: dt.datetime) -> list[str]:
    e = html.escape
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>rerun_safe report: {e(warehouse.path.name)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>rerun_safe pipeline report: {e(warehouse.path.name)}</h1>",
        f'<p class="note">Warehouse <code data-figure="warehouse">{e(str(warehouse.path))}</code> (schema '
        f"<code>{e(warehouse.schema)}</code>), read-only, at {e(_when(generated))} UTC. Written by "
        "<code>python -m pipeline_demo report</code> from the run registry (<code>rerun_safe_runs</code>), the run "
        "log (<code>rerun_safe_run_log</code>) and the marts.</p>",
    ]


def _now_section(warehouse: Warehouse) -> list[str]:
    runs, totals, e = warehouse.runs, warehouse.totals, html.escape
    balanced = totals["ledger_cents"] == totals["net_cents"]
    return [
        "<h2>Now</h2><table><tr>",
        "".join(
            f"<th>{e(label)}</th>"
            for label in (
                "runs",
                "rows staged",
                "quarantined rows",
                "late rows waiting",
                "late rows applied",
                "daily revenue rows",
                "items",
                "ledger postings",
                "ledger cents",
                "daily revenue net cents",
                "balance",
            )
        ),
        "</tr><tr>",
        _cell(len(runs), "runs"),
        _cell(totals["rows_staged"], "rows_staged"),
        _cell(totals["quarantined"], "quarantined"),
        _cell(totals["late_waiting"], "late_waiting"),
        _cell(totals["late_applied"], "late_applied"),
        _cell(totals["days"], "days"),
        _cell(totals["items"], "items"),
        _cell(totals["ledger_postings"], "ledger_postings"),
        _cell(int(totals["ledger_cents"]), "ledger_cents"),
        _cell(int(totals["net_cents"]), "net_cents"),
        f'<td data-figure="balance" class="{"" if balanced else "bad"}">'
        f"{'balanced' if balanced else 'NOT BALANCED'}</td>",
        "</tr></table>",
        "<h2>The last run</h2>",
    ]


def _last_run_section(last: Run | None) -> list[str]:
    e = html.escape
    parts: list[str] = []
    if last is None:
        parts.append('<p data-figure="last_run">no run recorded yet</p>')
    else:
        parts.append(
            '<ul class="summary" data-figure="last_run">'
            + "".join(f"<li>{e(line)}</li>" for line in _last_run_lines(last))
            + "</ul>"
        )
    return parts


def _runs_section(warehouse: Warehouse) -> list[str]:
    runs, e = warehouse.runs, html.escape
    parts: list[str] = []
    parts.append("<h2>Runs over time</h2>")
    if runs:
        parts.append(
            f'<img id="runs-picture" alt="rows staged, quarantined, late and applied per run, and the late '
            f'queue after each run" src="{runs_picture(warehouse)}">'
        )
    parts.append(
        '<p class="note">Per run, from its rows of the run log: rows staged (stg_landing__events '
        "<code>rows_read</code>), quarantined rows (<code>quarantined_this_run</code>), late rows applied by a "
        "correction (late_events <code>applied</code> less the run before), late rows waiting after the run "
        "(late_events <code>waiting</code>: the late queue, one row per event), and late copies written "
        "(int_event_copies_classified <code>late_waiting_written</code>: a row delivered twice is two copies, so "
        "this can exceed the queue's growth). The pictures are drawn over the runs' start times. "
        "Empty: the model did not commit in that run.</p>"
    )
    parts.append(
        '<table id="runs"><tr><th>run</th><th class="text">command</th><th class="text">started (UTC)</th>'
        '<th class="text">status</th><th>rows staged</th><th>quarantined rows</th><th>late rows applied</th>'
        '<th>late rows waiting</th><th>late copies written</th><th class="text">rebuilt</th></tr>'
    )
    for run in runs:
        parts.append(
            f'<tr data-run="{run.run_seq}">' + _cell(run.run_seq) + f'<td class="text">{e(run.command)}</td>'
            f'<td class="text">{e(_when(run.started_at))}</td>'
            f'<td class="text{"" if run.status in ("success", "refused") else " bad"}">{e(run.status)}</td>'
            + _cell(run.rows_in, "rows_in")
            + _cell(run.quarantined, "quarantined")
            + _cell(run.applied, "applied")
            + _cell(run.waiting, "waiting")
            + _cell(run.late, "late_copies")
            + f'<td class="text">{e(", ".join(run.rebuilt) if len(run.rebuilt) < 9 else "every model")}</td></tr>'
        )
    parts.append("</table>")
    return parts


def _corrections_section(warehouse: Warehouse) -> list[str]:
    e = html.escape
    parts: list[str] = []
    parts.append("<h2>Corrections</h2>")
    if warehouse.corrections:
        parts.append(
            '<table id="corrections"><tr><th class="text">from</th><th class="text">to</th>'
            '<th class="text">ingestion mark</th><th>recorded by run</th><th>late rows applied</th></tr>'
        )
        for c in warehouse.corrections:
            parts.append(
                f'<tr data-correction="{e(c.correction_id)}"><td class="text">{c.correct_from}</td>'
                f'<td class="text">{c.correct_to}</td><td class="text">{e(_when(c.mark))}</td>'
                + _cell(c.recorded_run_seq, "recorded_run_seq")
                + _cell(c.rows_applied, "rows_applied")
                + "</tr>"
            )
        parts.append("</table>")
    else:
        parts.append(
            '<p id="corrections">No correction recorded. Late rows wait in <code>late_events</code> until one: '
            "<code>dbt build --vars '{correct_from: ..., correct_to: ...}'</code>.</p>"
        )
    return parts


def _lateness_section(warehouse: Warehouse, hours: int) -> list[str]:
    e = html.escape
    parts: list[str] = []
    parts.append("<h2>Lateness against the watermark</h2>")
    if warehouse.lateness:
        parts.append(
            f'<img id="lateness-picture" alt="histogram of lateness in hours with the watermark at {hours} h" '
            f'src="{lateness_picture(warehouse, hours)}">'
        )
    not_late, late = warehouse.late_bounds
    agrees = (not_late is None or not_late <= hours * 3600) and (late is None or late > hours * 3600)
    parts.append(
        f'<p class="note">Watermark <span data-figure="watermark_hours">{hours}</span> h '
        "(<code>allowed_lateness_hours</code>; a row later than it waits for a correction). Every delivered row "
        "(duplicate copies counted) by its lateness, <code>ingested_at - event_time</code>, from "
        "<code>int_event_copies_classified</code>. "
        + (
            "The warehouse's own classification agrees: every row later than the watermark is late, no other."
            if agrees
            else f'<span class="bad" data-figure="watermark_mismatch">The warehouse was not classified with {hours} h: '
            f"its latest on-time row is {_hours(not_late)} h late and its earliest late row {_hours(late)} h. "
            "Pass the watermark it was built with: --allowed-lateness-hours.</span>"
        )
        + "</p>"
    )
    bins = lateness_bins(warehouse.lateness, hours)
    parts.append(
        '<details><summary>the histogram\'s numbers</summary><table id="lateness"><tr><th class="text">'
        "lateness</th><th>rows</th></tr>"
        + "".join(
            f'<tr><td class="text">{e(label)}</td>{_cell(rows, "late_rows" if low >= hours else "on_time_rows")}</tr>'
            for label, low, _, rows in bins
        )
        + "</table></details>"
    )
    return parts


def _hours(seconds: int | None) -> str:
    return "?" if seconds is None else f"{seconds / 3600:.2f}"


def write_report(
    warehouse_path: Path,
    out: Path | None = None,
    hours: int | None = None,
    names: tuple[str, str] = ("--warehouse", "--out"),
) -> Path:
    warehouse_path, out, hours = check_arguments(warehouse_path, out, hours, names)
    warehouse = read_warehouse(warehouse_path, names[0])
    page = render(warehouse, hours, dt.datetime.now(dt.UTC).replace(tzinfo=None))
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=out.parent, prefix=".report-", suffix=".tmp", delete=False
    ) as handle:
        handle.write(page)
    os.replace(handle.name, out)
    return out


def run(args: argparse.Namespace) -> int:
    """Exit 0 with the page written, or 2 with one line naming the bad value (WAREHOUSE and REPORT
    when `make report` passed them, the flags otherwise)."""
    warehouse = resolve(args.warehouse, "--warehouse", "WAREHOUSE", str(DEFAULT_WAREHOUSE))
    out = resolve(args.out, "--out", "REPORT", "")
    try:
        if any(not c.isprintable() for c in warehouse.text + out.text):
            bad = warehouse if any(not c.isprintable() for c in warehouse.text) else out
            raise ReportError(f"{bad.name} {shown(bad.text)}: a path without control characters")
        written = write_report(
            Path(warehouse.text),
            Path(out.text) if out.text else None,
            args.allowed_lateness_hours,
            (warehouse.name, out.name),
        )
    except ReportError as exc:
        print(f"report: {exc}", file=sys.stderr, flush=True)
        return 2
    print(f"report: wrote {written} (open it in a browser; it loads nothing from the network)", flush=True)
    return 0
