"""The correct twin passes every check, and the report still says what it did not judge."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.compare import RECORDS_DELIVERIES_REASON
from harness.report import render_terminal
from harness.results import Status
from tests.harness.helpers import run_fixture_check


@pytest.mark.parametrize("check", ["idempotency", "convergence", "replay", "batches"])
def test_correct_twin_passes(check: str, workdir: Path) -> None:
    result = run_fixture_check(check, "correct", workdir)
    assert result.status is Status.PASS, result.failure_message()
    assert result.comparisons and all(c.diffs for c in result.comparisons)
    for comparison in result.comparisons:
        not_judged = {nj.table: nj.reason for nj in comparison.not_judged}
        # A hook's table and an audit model are listed, never silently skipped.
        assert "not a model" in not_judged["main.run_log"]
        assert "audit log" in not_judged["main.load_log"]
        assert comparison.diff_for("event_computed_at").excluded_columns == ("computed_at",)
        assert comparison.diff_for("daily_revenue").left_rows > 0  # a view model, compared by rows
        if check == "replay":  # records every delivery: a redelivery under a new name adds rows
            assert not_judged["main.file_events"] == RECORDS_DELIVERIES_REASON
        else:
            assert comparison.diff_for("file_events").left_rows == 12
    if check in ("convergence", "batches"):
        # The append-only ledger differs in history between routes; its balance must not.
        ledger = result.comparisons[0].diff_for("event_ledger")
        assert ledger.mode == "history" and ledger.key == ("event_id",)
    report = render_terminal([result])
    assert "PASS" in report and "main.run_log: not judged" in report


def test_lateness_reports_percentiles_watermark_and_histogram(tmp_path: Path) -> None:
    histogram = tmp_path / "lateness.png"
    result = run_fixture_check("lateness", "correct", tmp_path / "work", histogram=histogram)
    assert result.status is Status.PASS
    metrics = result.metrics
    assert metrics["rows"] == 12 and metrics["rows_unparseable"] == 0
    assert metrics["max"] == pytest.approx(100.0)  # e8: 2026-10-29T06:00 landed 2026-11-02T10:00
    assert metrics["allowed_lateness_hours"] == 72.0
    assert metrics["allowed_lateness_source"] == "dbt_project.yml vars"
    assert metrics["rows_beyond_watermark"] == 1
    covering = metrics["whole_hours_covering_share"]
    assert isinstance(covering, int) and covering >= 72
    assert histogram.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_lateness_fails_only_when_it_cannot_compute(tmp_path: Path) -> None:
    result = run_fixture_check("lateness", "correct", tmp_path / "work", event_time_column="no_such_column")
    assert result.status is Status.ERROR
    assert "no_such_column" in " ".join(result.errors)
