"""Every committed benchmark page is output: rendered from the results.json beside it and from
nothing else, with the code a bench run uses, and its plot drawn from the same file. No dbt, no
benchmark: each test takes a second or two."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bench import drift, large, postgres, spark
from bench.plot import make_plot
from bench.ratios import ratios
from bench.records import DriftResults, LargeResults, PostgresResults, SparkResults
from bench.render import render
from bench.results import Results, load
from bench.tables import fmt, ratio_table

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
MAIN = DOCS / "benchmarks.results.json"


def test_the_committed_page_is_its_results_rendered() -> None:
    res = load(Results, MAIN)
    assert (DOCS / "benchmarks.md").read_text() == render(res, "benchmarks.png")


def test_the_page_states_the_figures_of_its_results() -> None:
    """The step tables' figures are results.json's, and every ratio is its named function's."""
    res = load(Results, MAIN)
    text = (DOCS / "benchmarks.md").read_text()
    assert "\n".join(ratio_table(ratios(res))) in text
    for r in res.sizes:
        block = text.split(f"### N = {r.label} events", 1)[1].split("\n### ", 1)[0]
        for step, run in r.runs.items():
            row = re.search(rf"^\| {step} \| [^|]+ \| ([^|]+) \| ([^|]+) \|", block, flags=re.M)
            assert row and (row[1].strip(), row[2].strip()) == (fmt(run.wall_s), fmt(run.inside_s)), (r.label, step)


def test_the_ratios_the_page_judges_by() -> None:
    """The committed run's verdicts, as docs/benchmarks.md and the decision records state them."""
    got = {r.id: (fmt(r.wall), fmt(r.inside), str(r.verdict)) for r in ratios(load(Results, MAIN))}
    assert got["R1"] == ("1.53", "1.64", "not met")
    assert got["R3b"] == ("1.86", "0.99", "met")
    assert got["RF"] == ("0.91", "0.88", "met")
    assert got["R2"] == ("11.27", "18.97", "met")
    assert got["RG"] == ("1.02", "0.90", "met") and got["RGc"] == ("2.39", "-", "not met")
    assert got["T"] == ("31.69", "-", "not met")


def test_a_results_file_with_an_unknown_field_is_refused(tmp_path: Path) -> None:
    data = json.loads(MAIN.read_text())
    data["sizes"][0]["runs"]["incremental"]["wal_s"] = 1.0
    bad = tmp_path / "b.results.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="unknown fields"):
        load(Results, bad)


@pytest.mark.parametrize(
    ("page", "render_page"),
    [
        ("benchmarks-drift.md", lambda p: drift.render(load(DriftResults, p), Path("benchmarks-drift.png"))),
        ("benchmarks-postgres.md", lambda p: postgres.render(load(PostgresResults, p))),
        ("benchmarks-spark.md", lambda p: spark.markdown(load(SparkResults, p))),
        ("benchmarks-large.md", lambda p: large.render(load(LargeResults, p))),
    ],
)
def test_each_other_page_is_its_results_rendered(page: str, render_page: Callable[[Path], str]) -> None:
    assert (DOCS / page).read_text() == render_page((DOCS / page).with_suffix(".results.json"))


def test_the_plots_are_drawn_from_the_results(tmp_path: Path) -> None:
    assert make_plot(load(Results, MAIN).sizes, tmp_path / "b.png") and (tmp_path / "b.png").stat().st_size > 10_000
    saved = load(DriftResults, DOCS / "benchmarks-drift.results.json")
    assert drift.make_plot(saved, tmp_path / "d.png") and (tmp_path / "d.png").stat().st_size > 10_000


def test_render_runs_nothing_and_writes_the_page_and_its_plot(tmp_path: Path) -> None:
    results = tmp_path / "benchmarks.results.json"
    results.write_text(MAIN.read_text())
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "render", str(results)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "benchmarks.md").read_text() == (DOCS / "benchmarks.md").read_text()
    assert (tmp_path / "benchmarks.png").stat().st_size > 10_000
    wrong = subprocess.run(
        [sys.executable, "-m", "bench", "render", str(DOCS / "benchmarks.md")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert wrong.returncode == 2 and "not a results.json" in wrong.stderr
