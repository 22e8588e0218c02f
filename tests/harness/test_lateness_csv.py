"""The lateness check reads delivery headers with a CSV parser: a quoted column name
may hold a comma, a doubled quote or spaces, as RFC 4180 allows, and the check still finds its
columns. `split(",")` cut such a name in pieces and refused the deliveries."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from harness.checks import lateness
from harness.deliveries import discover_batches

EVENT, INGESTED = 'event time, UTC ("source")', "ingested at"


def _context(deliveries: Path, project_dir: Path) -> SimpleNamespace:
    """What applies() and run() read of a CheckContext: the deliveries and the dbt settings."""
    return SimpleNamespace(
        deliveries=deliveries,
        batches=lambda: discover_batches(deliveries),
        settings=SimpleNamespace(vars={}, project_dir=project_dir),
    )


OPTIONS = lateness.Options(event_time_column=EVENT, ingested_at_column=INGESTED, allowed_lateness_hours=2.0)


def test_a_quoted_header_name_with_a_comma_and_quotes_is_one_column(tmp_path: Path) -> None:
    deliveries = tmp_path / "deliveries"
    deliveries.mkdir()
    (deliveries / "2026-11-01_001.csv").write_text(
        '\ufeffevent_id, "event time, UTC (""source"")","ingested at"\n'
        "a,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z\n"
        "b,2026-11-01T10:00:00Z,2026-11-01T15:00:00Z\n",
        encoding="utf-8",
    )
    assert lateness.csv_header(deliveries / "2026-11-01_001.csv") == ["event_id", EVENT, INGESTED]
    ctx = _context(deliveries, tmp_path)
    assert lateness.Lateness().applies(ctx, OPTIONS) == ""  # type: ignore[arg-type]
    result = lateness.Lateness().run(ctx, OPTIONS)  # type: ignore[arg-type]
    assert result.metrics["rows"] == 2 and result.metrics["rows_beyond_watermark"] == 1, result.metrics


def test_a_missing_column_is_still_named(tmp_path: Path) -> None:
    deliveries = tmp_path / "deliveries"
    deliveries.mkdir()
    (deliveries / "2026-11-01_001.csv").write_text('event_id,"event time, UTC",ingested at\n', encoding="utf-8")
    reason = lateness.Lateness().applies(_context(deliveries, tmp_path), OPTIONS)  # type: ignore[arg-type]
    assert reason.startswith(f"no column {EVENT} in the deliveries' headers"), reason
