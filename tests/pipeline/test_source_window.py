"""Source windows: file tracking never misses an out-of-order delivery; a lookback overlap only within its width."""

from __future__ import annotations

import pytest

from tests.pipeline.project import Pipeline, event

RECENT = event("A", 100, event_time="2026-11-05T10:00:00Z", ingested_at="2026-11-05T11:00:00Z")
# delivered after RECENT, but its rows were ingested upstream 4 days earlier
OUT_OF_ORDER = event(
    "B", 200, order_item_id="i2", event_time="2026-11-01T10:00:00Z", ingested_at="2026-11-01T11:00:00Z"
)


@pytest.mark.parametrize(
    ("window", "expected_net"),
    [
        ({"source_window": "files"}, 300),
        ({"source_window": "lookback", "lookback_hours": 48}, 100),  # the classic miss
        ({"source_window": "lookback", "lookback_hours": 120}, 300),
    ],
)
def test_out_of_order_file(pipeline: Pipeline, window: dict, expected_net: int) -> None:
    """A file whose rows are 4 days older than the staged high-water mark lands after it: files mode loads it, a 48 h
    overlap misses it."""
    pipeline.land("2026-11-05_001_main.csv", [RECENT])
    pipeline.run(vars=window)
    pipeline.land("2026-11-06_001_outoforder.csv", [OUT_OF_ORDER])
    assert pipeline.run(vars=window).success
    assert pipeline.net_total() == expected_net
    # whatever the window, a second run reads nothing twice
    assert pipeline.run(vars=window).success
    assert pipeline.scalar("select count(*) from stg_landing__events") == (2 if expected_net == 300 else 1)
