"""Deliveries from data the project already has: --split-source cuts a seed or a
file into N deliveries by a time column, so the checks run with no delivery folder made by hand."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from harness.cli import main
from harness.deliveries import discover_batches
from harness.split import find_source, split_sources
from tests.harness.helpers import FIXTURES, PROJECTS

TABLES = ("raw_customers", "raw_orders", "raw_payments")


@pytest.fixture(scope="module")
def whole_tables(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """jaffle_sources' four daily loads glued into one file per table: the data a project has."""
    folder = tmp_path_factory.mktemp("whole")
    paths = []
    for table in TABLES:
        rows: list[list[str]] = []
        for path in sorted((FIXTURES / "deliveries_sources").glob(f"*_{table}.csv")):
            with path.open(newline="") as handle:
                found = list(csv.reader(handle))
            rows += found if not rows else found[1:]
        target = folder / f"{table}.csv"
        with target.open("w", newline="") as handle:
            csv.writer(handle, lineterminator="\n").writerows(rows)
        paths.append(target)
    return paths


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_tables_are_cut_at_common_points_every_row_once(whole_tables: list[Path], tmp_path: Path) -> None:
    out = split_sources(PROJECTS / "jaffle_sources", [str(p) for p in whole_tables], ["_loaded_at"], 2, tmp_path)
    batches = discover_batches(out)
    assert [b.key for b in batches] == ["001", "002"]
    for whole in whole_tables:
        parts = [f for b in batches for f in b.files if f.parent.parent.name == whole.stem]
        pieces = [row for part in parts for row in _rows(part)]
        assert sorted(map(str, pieces)) == sorted(map(str, _rows(whole)))  # every row once, text kept
    stamps = {b.key: {row["_loaded_at"] for f in b.files for row in _rows(f)} for b in batches}
    assert max(stamps["001"]) < min(stamps["002"])  # one span of time per batch, across tables
    assert find_source(PROJECTS / "correct", "currencies").name == "currencies.csv"  # a seed by name


def test_convergence_runs_on_deliveries_cut_from_the_data(whole_tables: list[Path], tmp_path: Path, capsys) -> None:
    code = main([
        "convergence", "--project-dir", str(PROJECTS / "jaffle_sources"), "--load-sources",
        "--split-source", *map(str, whole_tables), "--by", "_loaded_at", "--batches", "2",
        "--work-dir", str(tmp_path), "--quiet",
    ])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "== convergence: PASS" in out and "rows compared" in out


def test_a_numeric_column_is_cut_in_number_order_not_text_order(tmp_path: Path) -> None:
    """Values 1..12 of a number column: as text "10" < "9"; as numbers batch 1 holds 1..6."""
    source = tmp_path / "events.csv"
    source.write_text("id,seq\n" + "".join(f"e{n},{n}\n" for n in range(1, 13)), encoding="utf-8")
    out = split_sources(PROJECTS / "jaffle_sources", [str(source)], ["seq"], 2, tmp_path / "out")
    batches = discover_batches(out)
    seqs = [sorted(int(row["seq"]) for f in b.files for row in _rows(f)) for b in batches]
    assert seqs == [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]], seqs
