"""The PNG beside docs/benchmarks.md: each step's seconds against history size, and t_inc / t_floor (R3)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.ratios import floor_ratios
from bench.results import SizeResult, Step

# The plot's series: (step, on inside time, legend, colour, line style). One colour per system; solid =
# wall time, dashed = the time the ratios are judged on (the models' execution_time; the floor's time
# inside DuckDB).
PLOT_SERIES = [
    (Step.INCREMENTAL, False, "dbt incremental, wall", "C0", "o-"),
    (Step.INCREMENTAL, True, "dbt incremental, models", "C0", "o--"),
    (Step.FLOOR, False, "floor SQL, wall", "C3", "^-"),
    (Step.FLOOR, True, "floor SQL, inside DuckDB", "C3", "^--"),
    (Step.FULL_REFRESH, False, "dbt full refresh, wall", "C2", "s-"),
    (Step.PEER_INCREMENTAL, False, "microbatch peer (lookback 3), wall", "C4", "d-"),
    (Step.PEER_CORRECT, False, "microbatch peer, window wide enough to be right, wall", "C5", "x-"),
]
FLOOR_TARGET = 1.5  # R3: t_inc / t_floor, on model time


def plain_log_ticks(axis: Any, ticker: Any) -> None:
    """Label a log axis 1, 2, 5, 10, 20 ... as plain numbers (not 2x10^0)."""
    axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _pos: f"{v:,.10g}"))
    axis.set_minor_locator(ticker.NullLocator())


def _seconds_panel(ax: Any, ticker: Any, sizes: Sequence[SizeResult]) -> None:
    for step, on_inside, name, colour, style in PLOT_SERIES:
        pts = []
        for r in sizes:
            run = r.runs.get(step)
            t = (run.inside_s if on_inside else run.wall_s) if run else None
            if t is not None:
                pts.append((r.n, t))
        if pts:  # hollow markers: the judged times (dashed)
            ax.plot(
                [p[0] for p in pts],
                [p[1] for p in pts],
                style,
                color=colour,
                label=name,
                markerfacecolor="white" if "--" in style else colour,
            )
    ax.set_yscale("log")
    plain_log_ticks(ax.yaxis, ticker)
    shown_s = [y for line in ax.get_lines() for y in line.get_ydata()]
    if shown_s:  # from the 1-2-5 tick below the fastest step to the one above the slowest
        steps = [m * 10.0**e for e in range(-3, 7) for m in (1, 2, 5)]
        ax.set_ylim(max(v for v in steps if v <= min(shown_s)), min(v for v in steps if v >= max(shown_s) * 1.05))
    ax.set_ylabel("seconds (log scale)")
    ax.set_title(
        "Seconds per run\n(solid: wall time; dashed, hollow: model time, on which the ratios are judged)", fontsize=10
    )
    ax.legend(fontsize=8, loc="upper left")


def _ratio_panel(rx: Any, sizes: Sequence[SizeResult]) -> None:
    fr = floor_ratios(sizes)
    for idx, name, style, face, dy in (
        (2, "on model time (judged)", "o--", "white", -15),
        (1, "on wall time (dbt start-up included)", "o-", "C0", 7),
    ):
        pts = [(x[0], v) for x in fr if (v := x[idx]) is not None]
        if not pts:
            continue
        rx.plot(
            [p[0] for p in pts],
            [p[1] for p in pts],
            style,
            color="C0",
            markerfacecolor=face,
            label=f"t_inc / t_floor, {name}",
        )
        for n, v in pts:
            rx.annotate(f"{v:.2f}", (n, v), textcoords="offset points", xytext=(0, dy), ha="center", fontsize=9)
    rx.axhline(FLOOR_TARGET, color="C3", ls=":", label=f"target (R3): <= {FLOOR_TARGET:g} on model time")
    rx.axhline(1.0, color="0.4", lw=0.8, label="1 = as fast as the floor")
    judged = [v for x in fr if (v := x[2]) is not None]
    shown = judged + [v for x in fr if (v := x[1]) is not None]
    rx.set_ylim(0, max([FLOOR_TARGET, *shown]) * 1.25)
    rx.set_ylabel("dbt incremental / floor SQL")
    if judged:
        met = all(v <= FLOOR_TARGET for v in judged)
        span = f"{min(judged):.2f}" if len(judged) == 1 else f"{min(judged):.2f}-{max(judged):.2f}"
        rx.set_title(
            f"Ratio to the floor (R3), on model time:\n{span}, "
            + ("within" if met else "not within")
            + f" the {FLOOR_TARGET:g} target"
        )
    else:
        rx.set_title("Ratio to the floor (R3)")
    rx.legend(fontsize=8, loc="lower right")


def make_plot(sizes: Sequence[SizeResult], path: Path) -> bool:
    """Left: the seconds of each step against history size. Right: t_inc / t_floor (R3) against its
    target. False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker as ticker
    except ImportError:
        return False
    xs = [r.n for r in sizes]
    fig, (ax, rx) = plt.subplots(1, 2, figsize=(12, 5.4), gridspec_kw={"width_ratios": [3, 2]})
    _seconds_panel(ax, ticker, sizes)
    _ratio_panel(rx, sizes)
    for a_ in (ax, rx):
        a_.set_xscale("log")
        a_.set_xticks(xs)
        a_.set_xticklabels([r.label for r in sizes])
        a_.xaxis.set_minor_locator(ticker.NullLocator())
        a_.set_xlim(min(xs) / 1.5, max(xs) * 1.5)
        a_.set_xlabel("history size (events, log scale)")
        a_.grid(True, which="major", alpha=0.3)
    fig.suptitle(
        f"rerun_safe: the cost of one {sizes[0].events_per_day:,}-event daily batch against "
        "history size (one run per size)"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
