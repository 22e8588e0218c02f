"""Load stamps: the reordered splits of `batches` stamp the columns a loader writes
into each delivery at delivery time, so a correct merge on `>= max(<load stamp>)` passes; a
high-water mark the harness cannot tell is a load stamp gives a warning, not a failure."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness import stamps
from harness.deliveries import discover_batches
from harness.results import Status
from tests.harness.helpers import DELIVERIES, PROJECTS, run_fixture_check

REVERSE = "one batch per key vs one batch per key, reverse order"


def test_restamp_gives_each_delivery_the_natural_stamp_of_its_slot(tmp_path: Path) -> None:
    natural = discover_batches(DELIVERIES)
    assert stamps.detect(natural) == ("_loaded_at",)  # ingested_at varies inside a batch
    values = stamps.batch_stamps(natural, ["_loaded_at"])
    assert [v["_loaded_at"] for v in values] == [
        "2026-11-01T12:00:00Z",
        "2026-11-02T13:00:00Z",
        "2026-11-03T12:00:00Z",
    ]
    reverse = stamps.restamp(list(reversed(natural)), values, DELIVERIES, tmp_path)
    first = reverse[0].files[0]
    assert first.name == "2026-11-03_a.csv"
    lines = first.read_text().splitlines()
    assert all(line.endswith(",2026-11-01T12:00:00Z") for line in lines[1:])
    assert lines[1].startswith("e8,sale,c3,o7,i8,400,EUR,2026-10-29T06:00:00Z,2026-11-02T10:00:00Z,1,")
    assert first.stat().st_mtime == (DELIVERIES / first.name).stat().st_mtime


@pytest.fixture(scope="module")
def declared(tmp_path_factory: pytest.TempPathFactory):
    return run_fixture_check(
        "batches",
        "correct",
        tmp_path_factory.mktemp("declared"),
        select=("loaded_events",),
        splits=("reverse",),
    )


def test_a_merge_on_a_declared_load_stamp_passes_the_reverse_order(declared) -> None:
    assert declared.status is Status.PASS, declared.failure_message()
    diff = declared.comparisons[0].diff_for("loaded_events")
    assert diff.identical and diff.stamped_columns == ("_loaded_at",)
    assert declared.exercised["load stamps stamped at delivery"] == "_loaded_at"


def test_an_undeclared_high_water_mark_is_a_warning_naming_the_column(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECTS / "correct", project, ignore=shutil.ignore_patterns("target", "logs", "*.duckdb"))
    model = project / "models" / "loaded_events.sql"
    model.write_text(
        model.read_text().replace("    meta={'rerun_safe': {'load_stamp_columns': ['_loaded_at']}},\n", "")
    )
    result = run_fixture_check(
        "batches",
        "correct",
        tmp_path / "work",
        project_dir=project,
        select=("loaded_events",),
        splits=("reverse",),
    )
    assert result.status is Status.PASS, result.failure_message()
    diff = result.comparisons[0].diff_for("loaded_events")
    assert not diff.identical and "keys removed" in diff.kinds()
    assert "max(_loaded_at)" in diff.warning and "load_stamp_columns" in diff.warning
    assert result.warnings() and "WARNING" in __import__("harness.report", fromlist=["x"]).render_terminal([result])


def test_the_shuffled_split_is_neither_the_natural_nor_the_reverse_order() -> None:
    from harness.checks.batches import variants

    natural = discover_batches(DELIVERIES)
    names = dict(variants(natural, 2, ("shuffled", "reverse")))
    order = [b.key for b in names["one batch per key, shuffled"]]
    assert sorted(order) == [b.key for b in natural]
    assert order not in ([b.key for b in natural], [b.key for b in reversed(natural)])
    assert "one batch per key, shuffled" not in dict(variants(natural[:2], 2, ("shuffled",)))


def test_load_stamps_are_read_from_sources_and_models_and_filters_from_the_sql(tmp_path: Path) -> None:
    import json

    from harness.project import load_manifest

    model = {
        "resource_type": "model",
        "package_name": "p",
        "name": "m",
        "schema": "main",
        "config": {
            "materialized": "incremental",
            "meta": {"rerun_safe": {"load_stamp_columns": ["delivered_on"]}},
        },
        "raw_code": (
            "select * from s {% if is_incremental() %} where t > (select max(m.t) from {{ this }} m) {% endif %}"
        ),
        "depends_on": {"nodes": ["model.p.up"]},
    }
    upstream = {
        "resource_type": "model",
        "package_name": "p",
        "name": "up",
        "schema": "main",
        "config": {},
        "raw_code": "{% if is_incremental() %} where u >= (select max(u) from {{ this }}) {% endif %}",
    }
    source = {"schema": "raw", "name": "orders", "source_meta": {"rerun_safe": {"load_stamp_columns": ["_loaded_at"]}}}
    (tmp_path / "manifest.json").write_text(
        json.dumps(
            {
                "metadata": {"project_name": "p"},
                "nodes": {"model.p.m": model, "model.p.up": upstream},
                "sources": {"source.p.raw.orders": source},
            }
        )
    )
    project = load_manifest(tmp_path)
    assert project.load_stamps() == ("_loaded_at", "delivered_on")
    assert project.trusted_by("model.p.m") == ("t", "u")


def _deliveries(folder: Path, batches: dict[str, list[dict[str, str]]]) -> Path:
    """One flat file per batch key (`<key>_a.csv`), rows as given."""
    import csv

    folder.mkdir()
    for key, rows in batches.items():
        with (folder / f"{key}_a.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    return folder


def test_a_reordered_split_stamps_each_delivery_with_the_greatest_natural_stamp(tmp_path: Path) -> None:
    """Several stamp values in one delivery: its stamp is the greatest (a number column compared as
    numbers: 100 > 11, 10 > 9), and every row of the i-th reordered delivery carries it."""
    root = _deliveries(
        tmp_path / "deliveries",
        {
            "2026-11-01": [
                {"id": "a", "_loaded_at": "2026-11-01T10:00:00Z", "load_seq": "3"},
                {"id": "b", "_loaded_at": "2026-11-01T12:00:00Z", "load_seq": "2"},
                {"id": "c", "_loaded_at": "2026-11-01T11:00:00Z", "load_seq": "3"},
            ],
            "2026-11-02": [
                {"id": "d", "_loaded_at": "2026-11-02T09:00:00Z", "load_seq": "9"},
                {"id": "e", "_loaded_at": "2026-11-02T13:30:00Z", "load_seq": "10"},
            ],
            "2026-11-03": [
                {"id": "f", "_loaded_at": "2026-11-03T08:00:00Z", "load_seq": "100"},
                {"id": "g", "_loaded_at": "2026-11-03T07:00:00Z", "load_seq": "11"},
            ],
        },
    )
    natural = discover_batches(root)
    values = stamps.batch_stamps(natural, ["_loaded_at", "load_seq"])
    assert values == [
        {"_loaded_at": "2026-11-01T12:00:00Z", "load_seq": "3"},
        {"_loaded_at": "2026-11-02T13:30:00Z", "load_seq": "10"},
        {"_loaded_at": "2026-11-03T08:00:00Z", "load_seq": "100"},
    ]
    reverse = stamps.restamp(list(reversed(natural)), values, root, tmp_path / "restamped")
    import csv

    for delivered, stamp in zip(reverse, values, strict=True):
        with delivered.files[0].open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert {(r["_loaded_at"], r["load_seq"]) for r in rows} == {(stamp["_loaded_at"], stamp["load_seq"])}
    assert [r.files[0].name for r in reverse] == ["2026-11-03_a.csv", "2026-11-02_a.csv", "2026-11-01_a.csv"]


def test_only_a_strictly_rising_column_with_one_value_per_batch_is_a_load_stamp(tmp_path: Path) -> None:
    """Found in the deliveries: one value per batch, strictly rising with the batch order (numbers
    compared as numbers). Two values in a batch, a repeated or falling value: no load stamp."""

    def row(loaded: str, seq: str, several: str, flat: str, falling: str) -> dict[str, str]:
        return {"_loaded_at": loaded, "seq": seq, "several": several, "flat": flat, "falling": falling}

    root = _deliveries(
        tmp_path / "deliveries",
        {
            "2026-11-01": [row("2026-11-01T12:00:00Z", "9", "a1", "x", "3")],
            "2026-11-02": [
                row("2026-11-02T12:00:00Z", "10", "b1", "x", "2"),
                row("2026-11-02T12:00:00Z", "10", "b2", "x", "2"),
            ],
            "2026-11-03": [row("2026-11-03T12:00:00Z", "11", "c1", "y", "1")],
        },
    )
    natural = discover_batches(root)
    assert stamps.detect(natural) == ("_loaded_at", "seq")
    assert stamps.detect(natural[:1]) == ()  # one batch: nothing rises


def test_every_split_that_reorders_the_deliveries_is_restamped() -> None:
    """The shuffled split is restamped like the reverse one: every split that delivers the keys out
    of their natural order, and only those, is in REORDERED (harness.checks.batches restamps them)."""
    from harness.checks.batches import REORDERED, SPLITS, variants

    natural = discover_batches(DELIVERIES)
    keys = [b.key for b in natural]
    named = variants(natural, 2, SPLITS)
    assert {name for name, _ in named} >= {"one batch per key, reverse order", "one batch per key, shuffled"}
    for name, split in named:
        order = [b.key for b in split]
        reordered = len(order) == len(keys) and order != keys
        assert (name in REORDERED) == reordered, name


def test_parquet_deliveries_in_batch_folders_are_restamped_with_their_types(tmp_path: Path) -> None:
    """Hive-style Parquet deliveries (`events/batch=001/part-0.parquet`): `batch` is no column of
    theirs (so no load stamp), a stamp keeps its type, and a value or column name holding a quote
    is data in the rewrite's SQL."""
    import duckdb

    from harness.split import split_sources

    source = tmp_path / "events.parquet"
    con = duckdb.connect()
    con.execute(
        "copy (select i as id, timestamp '2026-11-01' + to_days(i) as _loaded_at, "
        "'it''s ' || i as \"we\"\"ird\" from range(3) as r(i)) "
        f"to '{source}' (format parquet)"
    )
    root = split_sources(PROJECTS / "jaffle_sources", [str(source)], ["_loaded_at"], 3, tmp_path / "deliveries")
    natural = discover_batches(root)
    assert stamps.detect(natural) == ("_loaded_at", "id", 'we"ird')
    values = stamps.batch_stamps(natural, ["_loaded_at", 'we"ird'])
    assert values[0] == {"_loaded_at": "2026-11-01 00:00:00", 'we"ird': "it's 0"}
    reverse = stamps.restamp(list(reversed(natural)), values, root, tmp_path / "restamped")
    first = reverse[0].files[0]
    read = f"read_parquet('{first}', hive_partitioning = false)"
    assert con.execute(f"select * from {read}").fetchall() == [
        (2, __import__("datetime").datetime(2026, 11, 1), "it's 0")
    ]
    assert con.execute(f"select column_type from (describe select * from {read})").fetchall() == [
        ("BIGINT",),
        ("TIMESTAMP",),
        ("VARCHAR",),
    ]
