"""The incremental run's cost per history row, and what it predicts for histories this machine
does not build in `make bench` (300M and 1B events).

Method: for each measure (our incremental run and the floor's, on model time and on wall time),
a straight line t = a + b x N fitted by least squares to the sizes measured (1M, 10M and 30M in
`make bench`) whose batch is the same size: the batch day's redelivered files are drawn at
random from the history, so its row count varies with N (146k rows at 1M and 30M, 229k at 10M
in one run), and a larger batch costs more at any history size. Sizes whose batch differs by
more than BATCH_TOLERANCE from the smallest size's are left out of the fit (and named); with
fewer than two left, all sizes are fitted and the section says so. b, in seconds per million
history events, is the growth per history row; a is the part of the run that no history size
explains (the batch's own work, dbt's start and parse). The prediction at N is a + b x N. The
slope of each step between consecutive sizes is shown beside it, with the batch rows: a later
step steeper than an earlier one at the same batch means the growth is faster than linear and
the line under-predicts. bench/render.py writes the section from results.json; bench/large.py
evaluates the same line at its size.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence

from bench.results import SizeResult, Step

TITLE = "Per history row: the growth, and what it predicts"
PREDICT = (100_000_000, 300_000_000, 1_000_000_000)
BATCH_TOLERANCE = 0.05  # a size's batch rows may differ this much from the smallest size's
# (label, step, on inside time or wall time) of each measure; the floor's inside time is its time inside DuckDB
MEASURES = (
    ("our incremental run, model s", Step.INCREMENTAL, True),
    ("our incremental run, wall s", Step.INCREMENTAL, False),
    ("the floor, inside DuckDB s", Step.FLOOR, True),
    ("the floor, wall s", Step.FLOOR, False),
)


@dataclasses.dataclass(frozen=True)
class Line:
    """One measure's least-squares line t = a + b x N (N in millions of history events)."""

    name: str
    points: list[tuple[float, float]]
    a: float
    b: float
    steps: list[tuple[tuple[float, float], float]]
    left_out: list[str]

    def at(self, events: float) -> float:
        return self.a + self.b * events / 1e6


def fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """(a, b) of the least-squares line t = a + b x n through (n, t); n in millions of events."""
    if len(points) < 2 or len({n for n, _t in points}) < 2:
        raise ValueError(f"a line needs two sizes at least, got {points}")
    mean_n = sum(n for n, _t in points) / len(points)
    mean_t = sum(t for _n, t in points) / len(points)
    b = sum((n - mean_n) * (t - mean_t) for n, t in points) / sum((n - mean_n) ** 2 for n, _t in points)
    return mean_t - b * mean_n, b


def same_batch(sizes: Sequence[SizeResult]) -> tuple[list[SizeResult], list[SizeResult]]:
    """(the sizes whose batch rows are within BATCH_TOLERANCE of the smallest size's, the others);
    every size when a batch size is unknown or fewer than two sizes agree."""
    ordered = sorted(sizes, key=lambda r: r.n)
    if not ordered or any(not r.batch_rows for r in ordered):
        return ordered, []
    base = ordered[0].batch_rows
    kept = [r for r in ordered if abs(r.batch_rows - base) <= BATCH_TOLERANCE * base]
    if len(kept) < 2:
        return ordered, []
    return kept, [r for r in ordered if r not in kept]


def shown(value: float) -> float:
    """A time as the page's tables show it (two decimals): the fit follows from the page's figures."""
    return round(value, 2)


def _points(sizes: Sequence[SizeResult], step: Step, on_inside: bool) -> list[tuple[float, float]]:
    """(n in millions, t) of each size that has the time, by n."""
    out = []
    for r in sizes:
        run = r.runs.get(step)
        t = (run.inside_s if on_inside else run.wall_s) if run else None
        if t is not None:
            out.append((r.n / 1e6, shown(t)))
    return sorted(out)


def per_row_cost(sizes: Sequence[SizeResult]) -> list[Line]:
    """For each measure with a time at two fitted sizes or more: its line, each step's slope over
    all sizes, and the sizes left out for their batch."""
    fitted, left_out = same_batch(sizes)
    rows = []
    for name, step, on_inside in MEASURES:
        points = _points(fitted, step, on_inside)
        if len(points) < 2:
            continue
        a, b = fit(points)
        every = _points(fitted + left_out, step, on_inside)
        steps = [((n1, n2), (t2 - t1) / (n2 - n1)) for (n1, t1), (n2, t2) in itertools.pairwise(every)]
        rows.append(Line(name, points, a, b, steps, [r.label for r in left_out]))
    return rows


def _millions(n: float) -> str:
    return f"{n:g}M" if n < 1000 else f"{n / 1000:g}B"


def _why(sizes: Sequence[SizeResult], line: Line) -> str:
    fitted_sizes = ", ".join(_millions(n) for n, _t in line.points)
    batches = ", ".join(f"{r.label} {r.batch_rows:,}" for r in sorted(sizes, key=lambda r: r.n) if r.batch_rows)
    rows_of = [r.batch_rows for r in sizes if r.label not in line.left_out and r.batch_rows]
    if line.left_out:
        return (
            f"the sizes measured above with the same batch ({fitted_sizes}); {', '.join(line.left_out)} left "
            f"out: its batch differs by more than {BATCH_TOLERANCE:.0%} (batch rows: {batches})."
        )
    if rows_of and max(rows_of) > (1 + BATCH_TOLERANCE) * min(rows_of):
        return (
            f"the sizes measured above ({fitted_sizes}). **Their batches differ** (batch rows: {batches}), "
            "so b below mixes the growth with history with the cost of a larger batch: "
            "not a per-history-row figure."
        )
    return f"the sizes measured above ({fitted_sizes}), with the same batch" + (
        f" (batch rows: {batches})." if batches else "."
    )


def render_per_row(sizes: Sequence[SizeResult]) -> list[str]:
    """The page's section (heading included), or [] without two sizes to fit."""
    rows = per_row_cost(sizes)
    if not rows:
        return []
    out = [
        f"## {TITLE}",
        "",
        f"A straight line t = a + b x N, fitted by least squares to {_why(sizes, rows[0])} "
        "b is the growth per million history events, a the part no history size explains, "
        "and the prediction at N is a + b x N (bench/per_row.py, its docstring). "
        "Each step's own slope is shown beside b: a later step steeper than an earlier one means "
        "the growth is faster than linear, and the line then under-predicts large histories. "
        "These are extrapolations, not measurements: `make bench-large` (bench/large.py) builds one "
        "larger history and sets its incremental run beside the line of docs/benchmarks.md "
        "([benchmarks-large.md](benchmarks-large.md)).",
        "",
        "| measure | a, s | b, s per 1M history events | slope of each step, s per 1M | "
        + " | ".join(f"predicted at {_millions(n / 1e6)}, s" for n in PREDICT)
        + " |",
        "|---|---:|---:|---|" + "---:|" * len(PREDICT),
    ]
    for row in rows:
        steps = ", ".join(f"{_millions(n1)} -> {_millions(n2)}: {s:.3f}" for (n1, n2), s in row.steps)
        out.append(
            f"| {row.name} | {row.a:.2f} | {row.b:.3f} | {steps} | "
            + " | ".join(f"{row.at(n):.1f}" for n in PREDICT)
            + " |"
        )
    ours = next((r for r in rows if r.name.startswith("our incremental run, model")), None)
    floor = next((r for r in rows if r.name.startswith("the floor, inside")), None)
    if ours and floor:
        verdict = "at most" if ours.b <= floor.b else "MORE than"
        out += [
            "",
            f"Our growth per million history events on model time is {ours.b:.3f} s, "
            f"{verdict} the floor's {floor.b:.3f} s.",
        ]
    return [*out, ""]
