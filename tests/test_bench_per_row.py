"""bench/per_row.py: the incremental run's growth per million history events, and the
predictions it gives for histories `make bench` does not build. No benchmark runs here."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import per_row
from bench.results import Results, Run, SizeResult, Step, load

ROOT = Path(__file__).resolve().parent.parent


def size(n: int, batch_rows: int, inc: float, floor: float) -> SizeResult:
    return SizeResult(
        n=n,
        label=f"{n // 1_000_000}M",
        days=n // 100_000,
        events_per_day=100_000,
        history_files=1,
        batch_files=1,
        history_mb=1.0,
        batch_mb=1.0,
        history_rows=n,
        history_events=n,
        batch_rows=batch_rows,
        history_cmd="run",
        runs={Step.INCREMENTAL: Run(wall_s=inc + 4, inside_s=inc), Step.FLOOR: Run(wall_s=floor, inside_s=floor)},
    )


def test_the_line_through_two_sizes_and_its_predictions() -> None:
    assert per_row.fit([(1.0, 5.0), (30.0, 34.0)]) == pytest.approx((4.0, 1.0))
    rows = {
        r.name: r
        for r in per_row.per_row_cost([size(1_000_000, 100, 5.0, 3.0), size(30_000_000, 100, 34.0, 3.0 + 2.9)])
    }
    ours = rows["our incremental run, model s"]
    assert (ours.a, ours.b) == pytest.approx((4.0, 1.0))
    assert ours.at(300_000_000) == pytest.approx(304.0)
    assert rows["the floor, inside DuckDB s"].b == pytest.approx(0.1)


def test_a_size_with_another_batch_is_left_out_of_the_fit_and_named() -> None:
    results = [
        size(1_000_000, 146_000, 4.0, 3.0),
        size(10_000_000, 229_000, 9.0, 6.0),
        size(30_000_000, 147_000, 7.19, 5.9),
    ]
    ours = per_row.per_row_cost(results)[0]
    assert ours.left_out == ["10M"]
    assert ours.points == [(1.0, 4.0), (30.0, 7.19)]
    assert ours.b == pytest.approx(0.11)
    assert [pair for pair, _slope in ours.steps] == [(1.0, 10.0), (10.0, 30.0)]  # each step still shows every size
    text = "\n".join(per_row.render_per_row(results))
    assert "10M left out" in text and "MORE than the floor's" in text


def test_two_sizes_with_different_batches_are_fitted_and_flagged() -> None:
    text = "\n".join(per_row.render_per_row([size(1_000_000, 146_000, 4.0, 3.0), size(3_000_000, 318_000, 6.7, 5.3)]))
    assert "**Their batches differ**" in text and "not a per-history-row figure" in text


def test_the_page_section_follows_from_the_results() -> None:
    """The committed section is what bench/per_row.py computes from docs/benchmarks.results.json,
    at the times the page's tables show (two decimals): not a figure typed by hand."""
    sizes = load(Results, ROOT / "docs" / "benchmarks.results.json").sizes
    section = "\n".join(per_row.render_per_row(sizes))
    assert section and section in (ROOT / "docs" / "benchmarks.md").read_text()
    ours = per_row.per_row_cost(sizes)[0]
    assert (round(ours.a, 2), round(ours.b, 3), ours.left_out) == (4.19, 0.094, ["10M"])
