"""The incremental run's cost per history row, and what it predicts for histories this machine
does not build in `make bench` (300M and 1B events).

    .venv/bin/python bench/per_row.py docs/benchmarks.md            # print the section from the page
    .venv/bin/python bench/per_row.py docs/benchmarks.md --write    # and put it into the page

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
the line under-predicts. bench/run.py writes the same section into the page it renders, from
the same function.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

TITLE = "Per history row: the growth, and what it predicts"
PREDICT = (100_000_000, 300_000_000, 1_000_000_000)
BATCH_TOLERANCE = 0.05  # a size's batch rows may differ this much from the smallest size's
# (label, run key, time field) of each measure; the floor's model time is its time inside DuckDB
MEASURES = (
    ("our incremental run, model s", "incremental", "model_s"),
    ("our incremental run, wall s", "incremental", "wall_s"),
    ("the floor, inside DuckDB s", "floor", "sql_s"),
    ("the floor, wall s", "floor", "wall_s"),
)


def fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """(a, b) of the least-squares line t = a + b x n through (n, t); n in millions of events."""
    if len(points) < 2 or len({n for n, _t in points}) < 2:
        raise ValueError(f"a line needs two sizes at least, got {points}")
    mean_n = sum(n for n, _t in points) / len(points)
    mean_t = sum(t for _n, t in points) / len(points)
    b = sum((n - mean_n) * (t - mean_t) for n, t in points) / sum((n - mean_n) ** 2 for n, _t in points)
    return mean_t - b * mean_n, b


def same_batch(results: list[dict]) -> tuple[list[dict], list[dict]]:
    """(the sizes whose batch rows are within BATCH_TOLERANCE of the smallest size's, the others);
    every size when a batch size is unknown or fewer than two sizes agree."""
    ordered = sorted(results, key=lambda r: r["n"])
    if not ordered or any(not r.get("batch_rows") for r in ordered):
        return ordered, []
    base = ordered[0]["batch_rows"]
    kept = [r for r in ordered if abs(r["batch_rows"] - base) <= BATCH_TOLERANCE * base]
    if len(kept) < 2:
        return ordered, []
    return kept, [r for r in ordered if r not in kept]


def _points(sizes: list[dict], run: str, field: str) -> list[tuple[float, float]]:
    """(n in millions, t) of each size that has `field` of `run`, by n."""
    return sorted((r["n"] / 1e6, r["runs"][run][field]) for r in sizes
                  if r["runs"].get(run, {}).get(field) is not None)


def per_row_cost(results: list[dict]) -> list[dict]:
    """For each measure with a time at two fitted sizes or more: its points (n in millions, t),
    a, b (s per million history events), each step's slope over all sizes, the sizes left out
    for their batch, and the predictions at PREDICT."""
    fitted, left_out = same_batch(results)
    rows = []
    for name, run, field in MEASURES:
        points = _points(fitted, run, field)
        if len(points) < 2:
            continue
        a, b = fit(points)
        every = _points(fitted + left_out, run, field)
        steps = [((n1, n2), (t2 - t1) / (n2 - n1)) for (n1, t1), (n2, t2) in itertools.pairwise(every)]
        rows.append({"name": name, "points": points, "a": a, "b": b, "steps": steps,
                     "left_out": [r["label"] for r in left_out],
                     "predicted": {n: a + b * n / 1e6 for n in PREDICT}})
    return rows


def _millions(n: float) -> str:
    return f"{n:g}M" if n < 1000 else f"{n / 1000:g}B"


def render_per_row(results: list[dict]) -> list[str]:
    """The page's section (heading included), or [] without two sizes to fit."""
    rows = per_row_cost(results)
    if not rows:
        return []
    sizes = ", ".join(_millions(n) for n, _t in rows[0]["points"])
    batches = ", ".join(f"{r['label']} {r['batch_rows']:,}" for r in sorted(results, key=lambda r: r["n"])
                        if r.get("batch_rows"))
    left_out = rows[0]["left_out"]
    fitted = [r for r in results if r["label"] not in left_out and r.get("batch_rows")]
    rows_of = [r["batch_rows"] for r in fitted]
    mixed = bool(rows_of) and max(rows_of) > (1 + BATCH_TOLERANCE) * min(rows_of)
    if left_out:
        why = (f"the sizes measured above with the same batch ({sizes}); {', '.join(left_out)} left out: "
               f"its batch differs by more than {BATCH_TOLERANCE:.0%} (batch rows: {batches}).")
    elif mixed:
        why = (f"the sizes measured above ({sizes}). **Their batches differ** (batch rows: {batches}), "
               "so b below mixes the growth with history with the cost of a larger batch: "
               "not a per-history-row figure.")
    else:
        why = f"the sizes measured above ({sizes}), with the same batch" + (
            f" (batch rows: {batches})." if batches else ".")
    out = [f"## {TITLE}", "",
           f"A straight line t = a + b x N, fitted by least squares to {why} "
           "b is the growth per million history events, a the part no history size explains, "
           "and the prediction at N is a + b x N (bench/per_row.py, its docstring). "
           "Each step's own slope is shown beside b: a later step steeper than an earlier one means "
           "the growth is faster than linear, and the line then under-predicts large histories. "
           "These are extrapolations, not measurements: `make bench-large` (bench/large.py) builds one "
           "larger history and sets its incremental run beside the line of docs/benchmarks.md "
           "([benchmarks-large.md](benchmarks-large.md)).", "",
           "| measure | a, s | b, s per 1M history events | slope of each step, s per 1M | "
           + " | ".join(f"predicted at {_millions(n / 1e6)}, s" for n in PREDICT) + " |",
           "|---|---:|---:|---|" + "---:|" * len(PREDICT)]
    for row in rows:
        steps = ", ".join(f"{_millions(n1)} -> {_millions(n2)}: {s:.3f}" for (n1, n2), s in row["steps"])
        out.append(f"| {row['name']} | {row['a']:.2f} | {row['b']:.3f} | {steps} | "
                   + " | ".join(f"{row['predicted'][n]:.1f}" for n in PREDICT) + " |")
    ours = next((r for r in rows if r["name"].startswith("our incremental run, model")), None)
    floor = next((r for r in rows if r["name"].startswith("the floor, inside")), None)
    if ours and floor:
        verdict = "at most" if ours["b"] <= floor["b"] else "MORE than"
        out += ["", f"Our growth per million history events on model time is {ours['b']:.3f} s, "
                    f"{verdict} the floor's {floor['b']:.3f} s."]
    return [*out, ""]


def replace_section(text: str, section: list[str], before: str = "## Ratios") -> str:
    """The page with its per-row section replaced, or inserted before `before`."""
    block = "\n".join(section)
    head = f"## {TITLE}\n"
    if head in text:
        start = text.index(head)
        end = text.find("\n## ", start + len(head))
        return text[:start] + block + ("\n" + text[end + 1:] if end >= 0 else "")
    if before + "\n" not in text:
        raise ValueError(f"no '{before}' section to put the per-row section before")
    at = text.index(before + "\n")
    return text[:at] + block + "\n" + text[at:]


def batch_rows_from_page(text: str, results: list[dict]) -> None:
    """Each size's batch rows, from its days line ("batch 7 files, 146,391 rows")."""
    import re

    from run import _page_section

    for block in re.split(r"^### ", _page_section(text, "Results per size"), flags=re.M)[1:]:
        head = re.match(r"N = (\S+) events", block)
        batch = re.search(r"batch \d+ files, ([\d,]+) rows", block)
        for r in results:
            if head and batch and r["label"] == head[1]:
                r["batch_rows"] = int(batch[1].replace(",", ""))


def main(argv: list[str] | None = None) -> int:
    from run import results_from_page  # the page's own step tables, as --replot-from reads them

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("page", type=Path, help="a page bench/run.py wrote (docs/benchmarks.md)")
    p.add_argument("--write", action="store_true", help="replace (or insert) the section in the page")
    a = p.parse_args(argv)
    text = a.page.read_text()
    results = results_from_page(text)
    batch_rows_from_page(text, results)
    section = render_per_row(results)
    if not section:
        print(f"{a.page}: fewer than two sizes with an incremental run: nothing to fit", file=sys.stderr)
        return 1
    print("\n".join(section))
    if a.write:
        a.page.write_text(replace_section(text, section))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
