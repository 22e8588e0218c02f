"""Which tables a comparison judges: models that record every delivery are left to all checks
but replay."""

from __future__ import annotations

from pathlib import Path

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
    project = Project("p", (
        _model("staged", RerunSafeMeta(records_deliveries=True)),
        _model("revenue", RerunSafeMeta()),
    ))
    comparison = compare_snapshots(before, after, project, label="x", purpose=purpose)
    assert comparison.diff_for("revenue").identical
    if purpose is Purpose.REPLAY:
        assert comparison.passed
        assert [(nj.table, nj.reason) for nj in comparison.not_judged] == [
            ("main.staged", RECORDS_DELIVERIES_REASON)
        ]
    else:
        assert not comparison.passed
        assert comparison.diff_for("staged").surplus_right == 2
