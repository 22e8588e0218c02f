"""Which tables a comparison judges: models that record every delivery are left to all checks
but replay."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

import duckdb
import pytest

from harness.compare import RECORDS_DELIVERIES_REASON, Purpose, compare_snapshots
from harness.engines.duckdb import take_snapshot
from harness.project import Model, Project, RerunSafeMeta


def _warehouse(path: Path, staged_rows: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(path))
    con.execute(f"create table staged as select range as row_id from range({staged_rows})")
    con.execute("create table revenue as select 1 as company_id, 100 as cents")
    con.close()
    return path


def _model(name: str, meta: RerunSafeMeta) -> Model:
    return Model(f"model.p.{name}", name, "model", "w", "main", name, "incremental", rerun_safe=meta)


@pytest.mark.parametrize("purpose", list(Purpose))
def test_a_model_recording_deliveries_is_judged_by_every_purpose_but_replay(tmp_path: Path, purpose: Purpose) -> None:
    # A redelivery under a new name added 2 staged rows; the business table did not change.
    before = take_snapshot(_warehouse(tmp_path / "a" / "w.duckdb", 3), tmp_path / "sa", "before")
    after = take_snapshot(_warehouse(tmp_path / "b" / "w.duckdb", 5), tmp_path / "sb", "after")
    project = Project(
        "p",
        (
            _model("staged", RerunSafeMeta(records_deliveries=True)),
            _model("revenue", RerunSafeMeta()),
        ),
    )
    comparison = compare_snapshots(before, after, project, label="x", purpose=purpose)
    assert comparison.diff_for("revenue").identical
    if purpose is Purpose.REPLAY:
        assert comparison.passed
        assert [(nj.table, nj.reason) for nj in comparison.not_judged] == [("main.staged", RECORDS_DELIVERIES_REASON)]
    else:
        assert not comparison.passed
        assert comparison.diff_for("staged").surplus_right == 2


EARLY, LATE = "2026-12-07 05:25:22", "2026-12-07 05:26:08"


def _snapshot_warehouse(path: Path, ran_at: str, price: int) -> Path:
    """A check-strategy snapshot of one product, as dbt writes it when it runs at `ran_at`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(path))
    con.execute(
        "create table scd_products as select 7 as product_id, ? as price, md5('7' || ?) as dbt_scd_id,"
        " ?::timestamp as dbt_updated_at, ?::timestamp as dbt_valid_from, null::timestamp as dbt_valid_to",
        [price, ran_at, ran_at, ran_at],
    )
    con.close()
    return path


class _ComparedAs(TypedDict):
    label: str
    purpose: Purpose


CONVERGE: _ComparedAs = {"label": "x", "purpose": Purpose.CONVERGE}


def _snapshot_model(strategy: str, renamed: dict[str, str] | None = None) -> Model:
    from harness.project import snapshot_time_columns

    config = {"strategy": strategy, "snapshot_meta_column_names": renamed or {}}
    node = {"resource_type": "snapshot", "config": config}
    return Model(
        "snapshot.p.scd_products",
        "scd_products",
        "snapshot",
        "w",
        "main",
        "scd_products",
        "snapshot",
        unique_key=("product_id",),
        snapshot_time_columns=snapshot_time_columns(node),
    )


def test_a_check_snapshot_taken_at_another_time_is_identical_and_says_why(tmp_path: Path) -> None:
    # Two lanes snapshot the same product a minute apart: dbt stamps the run's time into the
    # meta columns of a `check` snapshot, so only those differ, and they are no finding.
    left = take_snapshot(_snapshot_warehouse(tmp_path / "a" / "w.duckdb", EARLY, 100), tmp_path / "sa", "a")
    right = take_snapshot(_snapshot_warehouse(tmp_path / "b" / "w.duckdb", LATE, 100), tmp_path / "sb", "b")
    comparison = compare_snapshots(left, right, Project("p", (_snapshot_model("check"),)), **CONVERGE)
    diff = comparison.diff_for("scd_products")
    assert diff.identical and comparison.passed
    assert diff.snapshot_time_columns == ("dbt_scd_id", "dbt_updated_at", "dbt_valid_from", "dbt_valid_to")


def test_a_check_snapshot_still_differs_on_its_data_and_a_timestamp_snapshot_on_its_times(tmp_path: Path) -> None:
    a = take_snapshot(_snapshot_warehouse(tmp_path / "a" / "w.duckdb", EARLY, 100), tmp_path / "sa", "a")
    b = take_snapshot(_snapshot_warehouse(tmp_path / "b" / "w.duckdb", LATE, 120), tmp_path / "sb", "b")
    # the price changed: a finding, whatever the meta columns
    assert not compare_snapshots(a, b, Project("p", (_snapshot_model("check"),)), **CONVERGE).passed
    # a `timestamp` snapshot takes its times from the rows: a different time is a finding
    c = take_snapshot(_snapshot_warehouse(tmp_path / "c" / "w.duckdb", LATE, 100), tmp_path / "sc", "c")
    timestamp = _snapshot_model("timestamp")
    assert timestamp.snapshot_time_columns == ()
    assert not compare_snapshots(a, c, Project("p", (timestamp,)), **CONVERGE).passed
    # renamed meta columns (snapshot_meta_column_names) are the ones left out
    renamed = _snapshot_model("check", {"dbt_valid_from": "valid_from", "dbt_valid_to": "valid_to"})
    assert renamed.snapshot_time_columns == ("dbt_scd_id", "dbt_updated_at", "valid_from", "valid_to")
