"""The SQL pipeline agrees with an independent pandas implementation of the contract.

The generator produces every pathology (redeliveries, resends, overlaps, out-of-order files,
new versions that move events, conflicts, heavy-tailed lateness, every malformed kind); the
oracle (tests/reference/oracle.py) was written from the contract alone. Any disagreement in
the business tables, the quarantine or the late queue is a bug in one of them.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from pipeline_demo.generate import GeneratorConfig, generate
from tests.pipeline.project import Pipeline, deliveries_by_day
from tests.reference.oracle import Correction, mark_now, read_landing, run_oracle

ITEM_COLUMNS = [
    "company_id",
    "order_item_id",
    "order_id",
    "currency",
    "gross_cents",
    "refunded_cents",
    "net_cents",
    "event_count",
    "first_event_time",
    "last_event_time",
]
DAY_COLUMNS = ["company_id", "revenue_date", "currency", "gross_cents", "refunded_cents", "net_cents", "event_count"]


def _normalise(frame: pd.DataFrame, columns: list[str]) -> list[tuple]:
    rows = []
    for record in frame[columns].itertuples(index=False):
        rows.append(
            tuple(
                None
                if (v is None or (not isinstance(v, str) and pd.isna(v)))
                else (str(pd.Timestamp(v)) if isinstance(v, (pd.Timestamp,)) or hasattr(v, "isoformat") else v)
                for v in record
            )
        )
    return sorted(rows, key=repr)


def _warehouse_frame(pipeline: Pipeline, table: str, columns: list[str]) -> pd.DataFrame:
    records = pipeline.query(f"select {', '.join(columns)} from {table}")
    return pd.DataFrame.from_records(records, columns=columns)


@pytest.fixture(scope="module")
def deliveries(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("deliveries")
    generate(GeneratorConfig(seed=11, days=6, events_per_day=250, companies=3), out)
    return out


def test_day_by_day_build_with_correction_matches_oracle(pipeline: Pipeline, deliveries: Path) -> None:
    """Six days delivered day by day, then a correction over the first days: tables equal the oracle's at both
    points."""
    days = deliveries_by_day(deliveries)
    assert sum(len(files) for files in days) > 6
    for files in days:
        pipeline.deliver(*files)
        pipeline.run()

    rows = read_landing(pipeline.landing)
    expected = run_oracle(rows, allowed_lateness_hours=72)
    _assert_agrees(pipeline, expected)
    assert expected.late_waiting > 0, "the sample must have late rows for this test to mean anything"
    assert expected.quarantine_counts.get("conflicting_version", 0) > 0

    first_day = date.fromisoformat(files[0].name[:10])
    correction = Correction(correct_from=date(2026, 10, 1), correct_to=first_day, mark=mark_now(rows))
    pipeline.run(vars={"correct_from": str(correction.correct_from), "correct_to": str(correction.correct_to)})
    corrected = run_oracle(rows, allowed_lateness_hours=72, corrections=[correction])
    assert corrected.late_applied > 0
    _assert_agrees(pipeline, corrected)


def _assert_agrees(pipeline: Pipeline, expected) -> None:
    actual_items = _warehouse_frame(pipeline, "fct_order_items", ITEM_COLUMNS)
    assert _normalise(actual_items, ITEM_COLUMNS) == _normalise(expected.fct_order_items, ITEM_COLUMNS)
    actual_days = _warehouse_frame(pipeline, "fct_daily_revenue", DAY_COLUMNS)
    assert _normalise(actual_days, DAY_COLUMNS) == _normalise(expected.fct_daily_revenue, DAY_COLUMNS)
    # the quarantine and the late queue, row by row
    actual_quarantine = pipeline.query("select source_file, source_line, reason from quarantined_events")
    expected_quarantine = [
        (r.source_file, int(r.source_line), r.reason) for r in expected.quarantined_events.itertuples()
    ]
    assert sorted(actual_quarantine) == sorted(expected_quarantine)
    actual_late = pipeline.query(
        "select event_id, version, cast(event_time as varchar), cast(ingested_at as varchar),"
        " cast(revenue_date as varchar), lateness_seconds, status from late_events"
    )
    expected_late = [
        (
            r.event_id,
            int(r.version),
            str(r.event_time),
            str(r.ingested_at),
            str(r.revenue_date),
            int(r.lateness.total_seconds()),
            r.status,
        )
        for r in expected.late_events.itertuples()
    ]
    assert sorted(actual_late) == sorted(expected_late)
    balance = dict(pipeline.query("select copy_status, count(*) from int_event_copies_classified group by copy_status"))
    assert balance.get("current", 0) == expected.balance["current"]
    assert balance.get("superseded", 0) == expected.balance["superseded"]
    assert (
        pipeline.scalar("select coalesce(sum(row_count - 1), 0) from int_event_copies_classified")
        == expected.balance["duplicates"]
    )
    assert pipeline.scalar("select count(*) from stg_landing__events") == expected.balance["landed"]
