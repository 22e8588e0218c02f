"""The benchmark pictures are redrawn from the committed pages, with the plot code a bench run uses.

`bench/run.py --replot-from` and `bench/drift.py --replot-from` rebuild the results the plot takes
from a page's own tables (a bench run's results.json is not kept) and refuse a page whose ratios or
summary do not follow from those tables. No dbt, no benchmark: each test takes a second or two.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PNG = b"\x89PNG\r\n\x1a\n"

sys.path.insert(0, str(ROOT / "bench"))
run = importlib.import_module("run")  # bench/run.py
drift = importlib.import_module("drift")  # bench/drift.py


@pytest.mark.parametrize(("page", "labels"), [("benchmarks.md", ["1M", "10M", "30M"]),
                                              ("benchmarks-quick.md", ["1M", "3M"])])
def test_size_page_replots_from_its_tables(tmp_path: Path, page: str, labels: list[str]) -> None:
    text = (DOCS / page).read_text()
    results = run.replot_from_page(DOCS / page, tmp_path / "plot.png")
    assert [r["label"] for r in results] == labels
    assert (tmp_path / "plot.png").read_bytes()[:8] == PNG
    # every size has the two steps of the ratio to the floor, the page's figures
    for r in results:
        assert r["runs"]["incremental"]["wall_s"] > 0 and r["runs"]["floor"]["sql_s"] > 0
    agree, wrong = run.page_ratio_check(results, text)
    assert not wrong and agree >= 10  # R1, R1f, R2, R3, RF, R4: wall and model figures


def test_size_page_with_a_figure_that_disagrees_with_its_ratios_is_refused(tmp_path: Path) -> None:
    text = (DOCS / "benchmarks.md").read_text()
    # the 10M incremental run's model seconds, raised by 3 s (R3a is its ratio to the 10M floor)
    ten = text.split("### N = 10M events", 1)[1].split("\n### ", 1)[0]
    row = re.search(r"^\| incremental \| dbt run \(incremental, \+1 batch(?:, the fastest of \d+)?\) \| [0-9.,]+ \| ([0-9.]+) \|",
                    ten, flags=re.M)
    assert row and text.count(row[0]) == 1
    page = tmp_path / "benchmarks.md"
    page.write_text(text.replace(row[0], row[0].replace(f"| {row[1]} |", f"| {float(row[1]) + 3:.2f} |")))
    with pytest.raises(ValueError, match=r"disagree with its ratio table: .*R3a model"):
        run.replot_from_page(page, tmp_path / "plot.png")
    assert not (tmp_path / "plot.png").exists()


def test_drift_page_replots_from_its_tables(tmp_path: Path) -> None:
    text = (DOCS / "benchmarks-drift.md").read_text()
    d = drift.replot_from_page(DOCS / "benchmarks-drift.md", tmp_path / "drift.png")
    assert [r["run"] for r in d["runs"]] == list(range(1, 101))
    assert d["history_events"] == 10_000_000
    assert [(x["day"], x["first"]) for x in d["next_pairs"]] == [("2027-05-20", "as_is"), ("2027-05-21", "compact")]
    assert (tmp_path / "drift.png").read_bytes()[:8] == PNG
    assert drift.page_summary_check(d, text) == (5, [])  # first and last means, drift, per row, layout


def test_drift_page_whose_runs_do_not_give_its_result_is_refused(tmp_path: Path) -> None:
    text = (DOCS / "benchmarks-drift.md").read_text()
    row = "| 100 | 2027-05-19 | 8.29 |"
    assert text.count(row) == 1
    page = tmp_path / "benchmarks-drift.md"
    page.write_text(text.replace(row, "| 100 | 2027-05-19 | 18.29 |"))
    with pytest.raises(ValueError, match="does not give its Result table"):
        drift.replot_from_page(page, tmp_path / "drift.png")


def test_drift_plot_of_a_smoke_run_without_the_layout_test(tmp_path: Path) -> None:
    """A few runs (the smoke run's shape: the means are one run each), no layout test: one panel."""
    d = drift.drift_from_page((DOCS / "benchmarks-drift.md").read_text())
    small = {**{k: v for k, v in d.items() if not k.startswith("next")}, "runs": d["runs"][:3]}
    assert drift.make_plot(small, tmp_path / "small.png")
    assert (tmp_path / "small.png").read_bytes()[:8] == PNG


@pytest.mark.parametrize(("script", "page"), [("run.py", "benchmarks-quick.md"), ("drift.py", "benchmarks-drift.md")])
def test_replot_from_on_the_command_line(tmp_path: Path, script: str, page: str) -> None:
    out = tmp_path / "x.png"
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / script), "--replot-from", str(DOCS / page),
                           "--plot", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == PNG
    assert "replotted" in proc.stderr


def test_the_sections_other_pages_provide_follow_from_those_pages() -> None:
    """docs/benchmarks.md ends with the drift, Postgres, large-history and Spark sections, each taken
    from its own page (bench/run.py included_pages): the committed page shows what those pages say."""
    page = (DOCS / "benchmarks.md").read_text()
    assert run.replace_included(page, DOCS) == page, "run `bench/run.py --include-only` after a bench page changes"
    included = "\n".join(run.included_pages(DOCS))
    for heading in run.INCLUDED_HEADINGS:
        assert heading in included, heading
    assert "R1 (10M vs 1M): **" in included  # the Postgres page's ratio line
