"""bench/per_row.py: the incremental run's growth per million history events, and the
predictions it gives for histories `make bench` does not build. No benchmark runs here."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
sys.path.insert(0, str(ROOT / "bench"))
per_row = importlib.import_module("per_row")  # bench/per_row.py
run = importlib.import_module("run")  # bench/run.py


def size(n: int, batch_rows: int, inc: float, floor: float) -> dict:
    return {"n": n, "label": f"{n // 1_000_000}M", "batch_rows": batch_rows,
            "runs": {"incremental": {"model_s": inc, "wall_s": inc + 4}, "floor": {"sql_s": floor, "wall_s": floor}}}


def test_the_line_through_two_sizes_and_its_predictions() -> None:
    assert per_row.fit([(1.0, 5.0), (30.0, 34.0)]) == pytest.approx((4.0, 1.0))
    rows = {r["name"]: r for r in per_row.per_row_cost([size(1_000_000, 100, 5.0, 3.0),
                                                         size(30_000_000, 100, 34.0, 3.0 + 2.9)])}
    ours = rows["our incremental run, model s"]
    assert (ours["a"], ours["b"]) == pytest.approx((4.0, 1.0))
    assert ours["predicted"][300_000_000] == pytest.approx(304.0)
    assert rows["the floor, inside DuckDB s"]["b"] == pytest.approx(0.1)


def test_a_size_with_another_batch_is_left_out_of_the_fit_and_named() -> None:
    results = [size(1_000_000, 146_000, 4.0, 3.0), size(10_000_000, 229_000, 9.0, 6.0),
               size(30_000_000, 147_000, 7.19, 5.9)]
    ours = per_row.per_row_cost(results)[0]
    assert ours["left_out"] == ["10M"]
    assert ours["points"] == [(1.0, 4.0), (30.0, 7.19)]
    assert ours["b"] == pytest.approx(0.11)
    # each step's slope still shows every size
    assert [pair for pair, _slope in ours["steps"]] == [(1.0, 10.0), (10.0, 30.0)]
    text = "\n".join(per_row.render_per_row(results))
    assert "10M left out" in text and "MORE than the floor's" in text


def test_two_sizes_with_different_batches_are_fitted_and_flagged() -> None:
    text = "\n".join(per_row.render_per_row([size(1_000_000, 146_000, 4.0, 3.0), size(3_000_000, 318_000, 6.7, 5.3)]))
    assert "**Their batches differ**" in text and "not a per-history-row figure" in text


@pytest.mark.parametrize("page", ["benchmarks.md", "benchmarks-quick.md"])
def test_the_page_section_follows_from_the_page_tables(page: str) -> None:
    """The committed section is what bench/per_row.py computes from the page's own step tables
    (bench/run.py writes it from the same function): not a figure typed by hand."""
    text = (DOCS / page).read_text()
    results = run.results_from_page(text)
    per_row.batch_rows_from_page(text, results)
    assert all(r.get("batch_rows") for r in results)
    section = per_row.render_per_row(results)
    assert "\n".join(section) in text
    assert per_row.replace_section(text, section) == text  # in place, once
