"""Every boundary at its exact edge: the watermark, the correction range and mark, the version order, the lowest valid
values."""

from __future__ import annotations

from tests.pipeline.project import Pipeline, event


def test_row_exactly_at_the_watermark_is_on_time(pipeline: Pipeline) -> None:
    """A row exactly 72 h late counts on its day; one second more waits; a correction credits only the late row."""
    pipeline.land(
        "2026-11-04_001_main.csv",
        [
            event("E", 100, event_time="2026-11-01T10:00:00Z", ingested_at="2026-11-04T10:00:00Z"),
            event("L", 200, order_item_id="i2", event_time="2026-11-01T10:00:00Z", ingested_at="2026-11-04T10:00:01Z"),
        ],
    )
    pipeline.run_ok()
    assert pipeline.net_total() == 100
    assert pipeline.query("select event_id, status, lateness_seconds from late_events") == [
        ("L", "waiting", 72 * 3600 + 1),
    ]
    pipeline.run_ok(vars={"correct_from": "2026-11-01", "correct_to": "2026-11-01"})
    assert pipeline.net_total() == 300
    credit = (
        "select event_id, is_late, applied_by_correction_id is not null from int_event_copies_classified order by 1"
    )
    assert pipeline.query(credit) == [("E", False, False), ("L", True, True)]
    pipeline.build("--full-refresh")  # reclassifies every copy against the recorded correction
    assert pipeline.query(credit) == [("E", False, False), ("L", True, True)]
    assert pipeline.query("select event_id, status from late_events") == [("L", "applied")]


def test_correction_range_and_mark_are_inclusive(pipeline: Pipeline) -> None:
    """Late rows on the first and last day of a correction, ingested exactly at its mark, apply in that run; the days
    just outside wait."""
    late = {"ingested_at": "2026-11-10T12:00:00Z"}  # the greatest ingested_at: the correction's mark
    pipeline.land(
        "2026-11-10_001_main.csv",
        [
            event("D0", 1, order_item_id="i0", event_time="2026-11-01T23:59:59Z", **late),
            event("D1", 10, order_item_id="i1", event_time="2026-11-02T00:00:00Z", **late),
            event("D2", 100, order_item_id="i2", event_time="2026-11-03T23:59:59Z", **late),
            event("D3", 1000, order_item_id="i3", event_time="2026-11-04T00:00:00Z", **late),
        ],
    )
    pipeline.run_ok()
    assert pipeline.net_total() == 0
    pipeline.run_ok(vars={"correct_from": "2026-11-02", "correct_to": "2026-11-03"})
    assert pipeline.scalar("select mark from int_corrections_recorded") == pipeline.scalar(
        "select max(ingested_at) from stg_landing__events"
    )
    statuses = "select event_id, status from late_events order by event_id"
    expected_statuses = [("D0", "waiting"), ("D1", "applied"), ("D2", "applied"), ("D3", "waiting")]
    assert pipeline.query(statuses) == expected_statuses
    days = "select company_id, cast(revenue_date as varchar), net_cents from fct_daily_revenue order by 2"
    expected_days = [("co1", "2026-11-02", 10), ("co1", "2026-11-03", 100)]
    items = "select order_item_id, net_cents, event_count from fct_order_items order by 1"
    expected_items = [("i1", 10, 1), ("i2", 100, 1)]
    assert pipeline.query(days) == expected_days
    assert pipeline.query(items) == expected_items
    # rebuilt from scratch: the days and items that hold only waiting rows stay out
    pipeline.build("--full-refresh")
    assert pipeline.query(statuses) == expected_statuses
    assert pipeline.query(days) == expected_days
    assert pipeline.query(items) == expected_items


def test_highest_applicable_version_wins_and_a_waiting_copy_makes_no_conflict(pipeline: Pipeline) -> None:
    """v1, v3 and v2 on time: v3 counts; a late v3 with another payload waits without a conflict until a correction
    applies it."""
    pipeline.land(
        "2026-11-01_001_main.csv",
        [
            event("A", 100, version=1),
            event("A", 300, version=3, ingested_at="2026-11-01T11:30:00Z"),
            event("A", 200, version=2, ingested_at="2026-11-01T12:00:00Z"),
            event("B", 5, order_item_id="i2"),
        ],
    )
    pipeline.run_ok()
    assert pipeline.net_total() == 305
    assert pipeline.query(
        "select version, copy_status from int_event_copies_classified where event_id = 'A' order by version"
    ) == [(1, "superseded"), (2, "superseded"), (3, "current")]
    pipeline.land(
        "2026-11-06_001_late.csv",
        [
            event("A", 333, version=3, ingested_at="2026-11-06T12:00:00Z"),  # 122 h late
        ],
    )
    pipeline.run_ok()
    assert pipeline.net_total() == 305
    assert pipeline.scalar("select count(*) from quarantined_events") == 0
    assert pipeline.query("select event_id, version, status from late_events") == [("A", 3, "waiting")]
    pipeline.build(vars={"correct_from": "2026-11-01", "correct_to": "2026-11-01"})
    assert pipeline.net_total() == 5  # two applicable copies of v3: A contributes nothing
    assert pipeline.query("select reason, count(*) from quarantined_events group by reason") == [
        ("conflicting_version", 2),
    ]


def test_lowest_valid_amount_and_version_are_valid(pipeline: Pipeline) -> None:
    """amount 0 and version 1 are valid; amount -1 and version 0 are quarantined."""
    pipeline.land(
        "2026-11-01_001_main.csv",
        [
            event("Z", 0),
            event("V", 7, order_item_id="i2", version=1),
            event("N", -1, order_item_id="i3"),
            event("W", 9, order_item_id="i4", version=0),
        ],
    )
    pipeline.build()
    assert pipeline.query("select order_item_id, net_cents, event_count from fct_order_items order by 1") == [
        ("i1", 0, 1),
        ("i2", 7, 1),
    ]
    assert pipeline.query("select event_id, reason from quarantined_events order by 1") == [
        ("N", "negative_amount"),
        ("W", "invalid_version"),
    ]


def test_a_redelivery_never_makes_an_on_time_copy_late(pipeline: Pipeline) -> None:
    """A copy's ingested_at is the earliest of its rows: the same event, version and payload
    delivered on time and again a week later (past the watermark) is one on-time copy, in a full
    build of both files and in an incremental run that sees the redelivery."""
    on_time = event("R", 100, event_time="2026-11-01T10:00:00Z", ingested_at="2026-11-01T11:00:00Z")
    again = {**on_time, "ingested_at": "2026-11-08T11:00:00Z"}
    pipeline.land("2026-11-01_001_main.csv", [on_time])
    pipeline.run_ok()
    pipeline.land("2026-11-08_001_main.csv", [again])
    pipeline.run_ok()
    copies = "select event_id, is_late, cast(ingested_at as varchar) from int_event_copies_classified"
    assert pipeline.query(copies) == [("R", False, "2026-11-01 11:00:00")]
    assert pipeline.net_total() == 100
    assert pipeline.scalar("select count(*) from late_events") == 0
    pipeline.build("--full-refresh")
    assert pipeline.query(copies) == [("R", False, "2026-11-01 11:00:00")]
    assert pipeline.scalar("select count(*) from late_events") == 0


def test_a_conflicting_version_is_conflicting_though_a_higher_version_supersedes_it(pipeline: Pipeline) -> None:
    """Two copies of A v1 with different amounts and an A v2, all in one build (and again in a
    full refresh): v2 counts, and both v1 rows are quarantined as conflicting, not just superseded."""
    pipeline.land(
        "2026-11-01_001_main.csv",
        [
            event("A", 10000),
            event("A", 12345, order_item_id="i1"),
            event("A", 11000, version=2, ingested_at="2026-11-01T12:00:00Z"),
        ],
    )
    # the first pass runs the models only; the full refresh runs the data tests on the end state
    for step, args in ((pipeline.run_ok, ()), (pipeline.build, ("--full-refresh",))):
        step(*args)
        assert pipeline.net_total() == 11000
        assert pipeline.query("select reason, count(*) from quarantined_events group by reason") == [
            ("conflicting_version", 2)
        ]
