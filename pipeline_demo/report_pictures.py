"""The pictures of the pipeline report (pipeline_demo/report.py): matplotlib PNGs as base64 data
URIs, so the page loads nothing. matplotlib is imported when a picture is drawn, with the Agg
backend (no display).
"""

from __future__ import annotations

import base64
import io
import itertools
from collections.abc import Sequence
from typing import Any

from pipeline_demo.report_warehouse import Run, Warehouse


def _png(fig: Any) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def run_times(runs: Sequence[Run]) -> list[tuple[Run, float]]:
    """Each run that has a start (or end) time, with that time as a matplotlib date number: the
    pictures are drawn over the time the runs started, not over their numbers."""
    import matplotlib.dates

    timed = [(run, run.started_at or run.finished_at) for run in runs]
    return [(run, float(matplotlib.dates.date2num(when))) for run, when in timed if when is not None]


def runs_picture(warehouse: Warehouse) -> str:
    import matplotlib
    import matplotlib.dates

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    timed = run_times(warehouse.runs)
    runs, x = [run for run, _ in timed], [when for _, when in timed]
    gaps = [later - earlier for earlier, later in itertools.pairwise(x) if later > earlier]
    width = 0.8 * min(gaps) if gaps else 1 / (24 * 60)  # a day is 1.0; one run alone: a minute wide
    fig, (top, middle, bottom) = plt.subplots(
        3, 1, figsize=(10, 8), sharex=True, gridspec_kw={"height_ratios": [3, 2, 2]}
    )
    top.bar(x, [run.rows_in or 0 for run in runs], width=width, color="#4c72b0")
    top.set_ylabel("rows staged")
    top.set_title(f"Runs over time: {len(runs)} runs of {warehouse.path.name}")
    third = width / 3
    for offset, (label, values, colour) in enumerate(
        (
            ("quarantined rows", [run.quarantined or 0 for run in runs], "#c44e52"),
            ("late copies written", [run.late or 0 for run in runs], "#dd8452"),
            ("late rows applied by a correction", [run.applied or 0 for run in runs], "#55a868"),
        )
    ):
        middle.bar([v + (offset - 1) * third for v in x], values, width=third, label=label, color=colour)
    middle.set_ylabel("rows or copies")
    middle.legend(loc="upper left", fontsize="small")
    bottom.plot(
        x,
        [run.waiting if run.waiting is not None else float("nan") for run in runs],
        marker="o",
        color="#8172b3",
        label="late rows waiting after the run",
    )
    bottom.set_ylabel("late rows waiting")
    bottom.set_xlabel("run start time (UTC, rerun_safe_runs.started_at)")
    bottom.set_ylim(bottom=0)
    starts = {run.run_seq: when for run, when in timed}
    corrected = sorted({starts[c.recorded_run_seq] for c in warehouse.corrections if c.recorded_run_seq in starts})
    for when in corrected:
        for axis in (top, middle, bottom):
            axis.axvline(when, color="#55a868", linestyle="--", linewidth=1)
    if corrected:
        bottom.plot([], [], color="#55a868", linestyle="--", label="a correction recorded")
    bottom.legend(loc="upper left", fontsize="small")
    locator = matplotlib.dates.AutoDateLocator()
    bottom.xaxis.set_major_locator(locator)
    bottom.xaxis.set_major_formatter(matplotlib.dates.ConciseDateFormatter(locator))
    for axis in (top, middle, bottom):
        axis.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        axis.yaxis.set_major_formatter(matplotlib.ticker.StrMethodFormatter("{x:,.0f}"))
        axis.grid(axis="y", alpha=0.3)
    return _png(fig)


def lateness_bins(lateness: Sequence[tuple[int, int]], hours: int) -> list[tuple[str, float, float, int]]:
    """(label, from hours, to hours, rows): 24 bins up to twice the watermark, 12 of them under
    it, each holding what is above its lower bound up to its upper one (a row exactly at the
    watermark is on time, as `is_late` says: strictly later); rows before 0 h and after twice
    the watermark in a bin each. Whole seconds throughout: a bin is max(hours, 1) * 300 s."""
    step = max(hours, 1) * 300
    counts = [0] * 24
    below = above = 0
    for seconds, rows in lateness:
        if seconds < 0:
            below += rows
        elif seconds > 24 * step:
            above += rows
        else:
            counts[max(-(-seconds // step) - 1, 0)] += rows
    bins = [("< 0 h", float("-inf"), 0.0, below)] if below else []
    bins += [
        (f"{i * step / 3600:g}-{(i + 1) * step / 3600:g} h", i * step / 3600, (i + 1) * step / 3600, counts[i])
        for i in range(24)
    ]
    bins.append((f"> {24 * step / 3600:g} h", 24 * step / 3600, float("inf"), above))
    return bins


def lateness_picture(warehouse: Warehouse, hours: int) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bins = lateness_bins(warehouse.lateness, hours)
    fig, axis = plt.subplots(figsize=(10, 4))
    labels = [label for label, *_ in bins]
    colours = ["#dd8452" if lo >= hours else "#4c72b0" for _, lo, _, _ in bins]
    axis.bar(range(len(bins)), [rows for *_, rows in bins], color=colours)
    position = next((i for i, (_, lo, _, _) in enumerate(bins) if lo >= hours), len(bins)) - 0.5
    axis.axvline(position, color="black", linestyle="--")
    axis.text(position, axis.get_ylim()[1] * 0.95, f"  watermark {hours} h", va="top")
    logarithmic = max(rows for *_, rows in bins) > 100  # a few late rows stay visible beside many on time
    if logarithmic:
        axis.set_yscale("symlog", linthresh=10)
    else:
        axis.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    axis.yaxis.set_major_formatter(matplotlib.ticker.StrMethodFormatter("{x:,.0f}"))
    axis.set_xticks(range(len(bins)), labels, rotation=60, ha="right", fontsize="small")
    axis.set_xlabel("lateness (ingested_at - event_time), hours")
    axis.set_ylabel("rows (log scale)" if logarithmic else "rows")
    axis.set_title("Lateness of every delivered row against the watermark (orange: later than it, so late)")
    return _png(fig)
