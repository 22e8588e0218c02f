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
    code = main(
        [
            "convergence",
            "--project-dir",
            str(PROJECTS / "jaffle_sources"),
            "--load-sources",
            "--split-source",
            *map(str, whole_tables),
            "--by",
            "_loaded_at",
            "--batches",
            "2",
            "--work-dir",
            str(tmp_path),
            "--quiet",
        ]
    )
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


def test_a_parquet_source_gives_parquet_deliveries_with_its_column_types(tmp_path: Path) -> None:
    """Parquet in, Parquet out: the columns selected unchanged, so a uint16 stays USMALLINT (a CSV
    delivery came back as BIGINT) and a decimal keeps its scale."""
    import duckdb

    source = tmp_path / "events.parquet"
    con = duckdb.connect()
    con.execute(
        "copy (select i::integer as id, (i % 7)::usmallint as days, (i * 1.25)::decimal(12, 2) as amount, "
        "timestamp '2026-11-01' + to_hours(i) as at, i % 2 = 0 as even, 'x' || i as label "
        f"from range(12) as r(i)) to '{source}' (format parquet)"
    )
    out = split_sources(PROJECTS / "jaffle_sources", [str(source)], ["at"], 3, tmp_path / "out")
    batches = discover_batches(out)
    files = [f for b in batches for f in b.files]
    assert [f.relative_to(out).as_posix() for f in files] == [f"events/batch={n:03d}/part-0.parquet" for n in (1, 2, 3)]

    def read(path: Path) -> str:
        return f"read_parquet('{path}', hive_partitioning = false)"

    types = con.execute(f"select column_name, column_type from (describe select * from {read(source)})").fetchall()
    assert ("days", "USMALLINT") in types and ("amount", "DECIMAL(12,2)") in types
    for file in files:
        assert (
            con.execute(f"select column_name, column_type from (describe select * from {read(file)})").fetchall()
            == types
        )
    whole = con.execute(f"select * from {read(source)} order by id").fetchall()
    parts = [row for f in files for row in con.execute(f"select * from {read(f)}").fetchall()]
    assert parts == whole  # every row once, in time order, values unchanged


@pytest.mark.parametrize(
    "column", ["b", "v", "r", "cuts", "src", "rowid", "__rs_value", "__rs_batch", 'we"ird', "with space"]
)
def test_a_column_named_like_the_splits_own_sql_is_split_on(column: str, tmp_path: Path) -> None:
    """Every column name is quoted in the split's SQL, its own names qualified: no "Ambiguous
    reference", and the other columns named so are carried unchanged."""
    names = ["id", "b", "v", "r", "cuts", "src", "rowid", "__rs_value", "__rs_batch", 'we"ird', "with space"]
    source = tmp_path / "odd.csv"
    with source.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(names)
        writer.writerows([f"e{n}", *[str(n)] * (len(names) - 1)] for n in range(1, 7))
    out = split_sources(PROJECTS / "jaffle_sources", [str(source)], [column], 2, tmp_path / "out")
    batches = discover_batches(out)
    rows = [[row[column] for f in b.files for row in _rows(f)] for b in batches]
    assert rows == [["1", "2", "3"], ["4", "5", "6"]], rows
    assert list(_rows(batches[0].files[0])[0]) == names
    assert [f.name for b in batches for f in b.files] == ["part-0.csv", "part-0.csv"]  # CSV in, CSV out


def test_batch_folders_sort_as_numbers_whatever_the_batch_count(tmp_path: Path) -> None:
    """Zero-padded to the width of --batches: with 1500 batches, batch 126 comes before 1001."""
    source = tmp_path / "events.csv"
    source.write_text("id,seq\n" + "".join(f"e{n},{n}\n" for n in range(1, 13)), encoding="utf-8")
    out = split_sources(PROJECTS / "jaffle_sources", [str(source)], ["seq"], 1500, tmp_path / "out")
    batches = discover_batches(out)
    assert [int(row["seq"]) for b in batches for f in b.files for row in _rows(f)] == list(range(1, 13))
    assert batches[-1].key == "1376"


def test_the_loader_adds_no_column_for_the_batch_folder(tmp_path: Path) -> None:
    """`raw_orders/batch=001/part-0.csv` feeds raw_orders with the file's own columns: DuckDB reads
    a `name=value` folder as a column unless told not to, which gave every source table a `batch`."""
    import duckdb

    from harness.engines.duckdb import load_into
    from harness.sources import SourceLoader, SourceTable

    source = tmp_path / "raw_orders.csv"
    source.write_text("id,at\no1,2026-11-01\no2,2026-11-02\n", encoding="utf-8")
    out = split_sources(PROJECTS / "jaffle_sources", [str(source)], ["at"], 2, tmp_path / "out")
    table = SourceTable("source.p.raw.raw_orders", "raw", "raw_orders", "memory", "raw", "raw_orders")
    loader = SourceLoader([table])
    files = [f for b in discover_batches(out) for f in b.files]
    loader.expect(files)
    assert load_into(tmp_path / "w.duckdb", loader.plan(files)) == 2
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    assert [row[0] for row in con.execute("describe raw.raw_orders").fetchall()] == ["id", "at"]
