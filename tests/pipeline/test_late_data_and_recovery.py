"""Lateness, corrections, the ledger, atomic progress and catch-up.

The scenarios that take `engine_pipeline` run on every engine (tests/pipeline/engines.py)."""

from __future__ import annotations

from tests.pipeline.project import Pipeline, event

LATE = dict(event_time="2026-10-20T10:00:00Z", ingested_at="2026-11-01T12:00:00Z")  # 290 h late


def test_late_row_within_watermark_lands_in_its_own_day(pipeline: Pipeline) -> None:
    """A row 71 h late is on time: it counts on the day it happened, not the day it arrived."""
    pipeline.land(
        "2026-11-04_001_main.csv",
        [
            event("A", 100, event_time="2026-11-01T10:00:00Z", ingested_at="2026-11-04T09:00:00Z"),
            event("B", 200, order_item_id="i2", event_time="2026-11-04T08:00:00Z", ingested_at="2026-11-04T09:00:00Z"),
        ],
    )
    pipeline.build()
    assert sorted(pipeline.query("select cast(revenue_date as varchar), net_cents from fct_daily_revenue")) == [
        ("2026-11-01", 100),
        ("2026-11-04", 200),
    ]
    assert pipeline.scalar("select count(*) from late_events") == 0


def test_row_beyond_watermark_waits_and_changes_nothing_published(pipeline: Pipeline) -> None:
    """A row 73 h late waits in late_events with its lateness; no business table or ledger entry moves."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    pipeline.run_ok()
    published = pipeline.business_state()
    ledger = pipeline.table("fct_revenue_ledger")
    pipeline.land(
        "2026-11-04_001_main.csv",
        [
            event("L", 999, order_item_id="i7", event_time="2026-11-01T10:00:00Z", ingested_at="2026-11-04T11:00:01Z"),
        ],
    )
    pipeline.build()
    assert pipeline.business_state() == published
    assert pipeline.table("fct_revenue_ledger") == ledger
    assert pipeline.query("select event_id, status, lateness_seconds from late_events") == [
        ("L", "waiting", 73 * 3600 + 1),
    ]


def test_watermark_follows_the_allowed_lateness_var(pipeline: Pipeline) -> None:
    """With allowed_lateness_hours = 400 the 290 h late row is on time."""
    pipeline.land("2026-11-01_001_main.csv", [event("L", 700, **LATE)])
    pipeline.build(vars={"allowed_lateness_hours": 400})
    assert pipeline.net_total() == 700
    assert pipeline.scalar("select count(*) from late_events") == 0


def test_correction_applies_late_rows_and_full_refresh_agrees(engine_pipeline: Pipeline) -> None:
    """A 290 h late row waits; a correction over 2026-10-19..21 applies it (same run); a later
    full refresh keeps it; a row landing after the mark waits."""
    pipeline = engine_pipeline
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100), event("L", 700, order_item_id="i7", **LATE)])
    pipeline.run_ok()
    assert pipeline.net_total() == 100
    waiting = pipeline.query("select event_id, status, lateness_seconds from late_events")
    assert waiting == [("L", "waiting", 290 * 3600)]
    pipeline.run_ok(vars={"correct_from": "2026-10-19", "correct_to": "2026-10-21"})
    assert pipeline.net_total() == 800
    assert pipeline.query("select status, applied_by_correction_id is not null from late_events") == [("applied", True)]
    assert pipeline.scalar("select sum(amount_cents) from fct_revenue_ledger") == 800
    corrected = pipeline.business_state()
    # the same correction again records nothing new and changes nothing
    pipeline.run_ok(vars={"correct_from": "2026-10-19", "correct_to": "2026-10-21"})
    assert pipeline.scalar("select count(*) from int_corrections_recorded") == 1
    assert pipeline.business_state() == corrected
    # the log survives --full-refresh, so the rebuilt tables still include the corrected row
    pipeline.run_ok("--full-refresh")
    assert pipeline.business_state() == corrected
    # a late row for the same day that lands after the mark waits for the next correction
    pipeline.land(
        "2026-11-02_001_main.csv",
        [
            event("M", 50, order_item_id="i8", event_time="2026-10-20T11:00:00Z", ingested_at="2026-11-02T12:00:00Z"),
        ],
    )
    pipeline.build()
    assert pipeline.business_state() == corrected
    assert pipeline.query("select event_id, status from late_events order by event_id") == [
        ("L", "applied"),
        ("M", "waiting"),
    ]


def test_malformed_correction_vars_fail_with_a_clear_message(pipeline: Pipeline) -> None:
    """correct_from without correct_to, or a range backwards, is refused before anything runs."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    result = pipeline.run(vars={"correct_from": "2026-10-19"})
    assert not result.success
    assert "var correct_from and var correct_to go together" in " ".join(result.messages.values())
    result = pipeline.run(vars={"correct_from": "2026-10-21", "correct_to": "2026-10-19"})
    assert not result.success
    assert "is after var correct_to" in " ".join(result.messages.values())


def test_replay_posts_nothing_and_changes_post_reversals(pipeline: Pipeline) -> None:
    """A replay posts no ledger entry; a new version posts one reversal and one entry; the ledger
    matches daily revenue."""
    rows = [event("A", 100), event("B", 200, order_item_id="i2")]
    pipeline.land("2026-11-01_001_main.csv", rows)
    pipeline.run_ok()
    assert pipeline.scalar("select count(*) from fct_revenue_ledger") == 2
    pipeline.land("2026-11-01_002_replay.csv", rows)
    pipeline.run_ok()
    assert pipeline.scalar("select count(*) from fct_revenue_ledger") == 2
    pipeline.land(
        "2026-11-02_001_main.csv",
        [event("A", 130, version=2, event_time="2026-11-02T10:00:00Z", ingested_at="2026-11-02T11:00:00Z")],
    )
    pipeline.build()
    assert sorted(
        pipeline.query(
            "select posting_type, cast(revenue_date as varchar), amount_cents"
            " from fct_revenue_ledger where event_id = 'A'"
        )
    ) == [("entry", "2026-11-01", 100), ("entry", "2026-11-02", 130), ("reversal", "2026-11-01", -100)]
    by_key = "select company_id, revenue_date, currency, sum({}) from {} group by all having sum({}) != 0 order by all"
    assert pipeline.query(by_key.format("amount_cents", "fct_revenue_ledger", "amount_cents")) == pipeline.query(
        by_key.format("net_cents", "fct_daily_revenue", "net_cents")
    )


def test_failure_before_commit_rolls_back_and_retry_converges(engine_pipeline: Pipeline) -> None:
    """fct_daily_revenue fails after writing, before COMMIT: its data and progress roll back, the
    run is marked failed, the retry converges."""
    pipeline = engine_pipeline
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    pipeline.run_ok()
    before = pipeline.table("fct_daily_revenue")
    progress_before = pipeline.scalar("select count(*) from rerun_safe_run_log where model = 'fct_daily_revenue'")
    pipeline.land(
        "2026-11-02_001_main.csv",
        [event("B", 200, order_item_id="i2", event_time="2026-11-02T10:00:00Z", ingested_at="2026-11-02T11:00:00Z")],
    )
    failed = pipeline.run(vars={"rerun_safe_fail_model": "fct_daily_revenue"})
    assert not failed.success
    assert failed.status_of("fct_daily_revenue") == "error"
    assert (
        "injected fault in fct_daily_revenue"
        in failed.messages[next(k for k in failed.messages if k.endswith(".fct_daily_revenue"))]
    )
    assert failed.status_of("fct_revenue_ledger") == "skipped"
    assert failed.status_of("fct_order_items") == "success"  # a sibling committed on its own
    assert pipeline.table("fct_daily_revenue") == before
    assert (
        pipeline.scalar("select count(*) from rerun_safe_run_log where model = 'fct_daily_revenue'") == progress_before
    )
    assert pipeline.query("select status from rerun_safe_runs order by run_seq desc limit 1") == [("failed",)]
    pipeline.run_ok()
    assert pipeline.query("select status from rerun_safe_runs order by run_seq desc limit 1") == [("success",)]
    retried = pipeline.business_state()
    pipeline.build("--full-refresh")
    assert pipeline.business_state() == retried
    assert pipeline.net_total() == 300
    assert pipeline.scalar("select sum(amount_cents) from fct_revenue_ledger") == 300


def test_skipped_day_is_caught_up_by_the_next_run(pipeline: Pipeline, tmp_path) -> None:
    """No run on day 2: the day-3 run loads days 2 and 3 and equals a day-by-day history."""
    days = {
        "2026-11-01_001_main.csv": [event("A", 100)],
        "2026-11-02_001_main.csv": [
            event("B", 200, order_item_id="i2", event_time="2026-11-02T10:00:00Z", ingested_at="2026-11-02T11:00:00Z"),
            event("A", 150, version=2, ingested_at="2026-11-02T11:00:00Z"),
        ],
        "2026-11-03_001_main.csv": [
            event("C", 300, order_item_id="i3", event_time="2026-11-03T10:00:00Z", ingested_at="2026-11-03T11:00:00Z")
        ],
    }
    daily = Pipeline(tmp_path / "daily")
    for name, rows in days.items():
        daily.land(name, rows)
        pipeline.land(name, rows)
        daily.run()
        if name.startswith("2026-11-01") or name.startswith("2026-11-03"):
            pipeline.run()
    assert pipeline.business_state() == daily.business_state()
    assert pipeline.net_total() == 150 + 200 + 300


def test_balance_check_fails_the_model_before_commit(pipeline: Pipeline) -> None:
    """A published table that no longer balances with the copies (tampered by hand) fails its
    next run and keeps its old rows."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100), event("B", 200, order_item_id="i2")])
    pipeline.build()
    pipeline.query("update fct_order_items set net_cents = net_cents + 1 where order_item_id = 'i2'")
    tampered = pipeline.table("fct_order_items")
    pipeline.land(
        "2026-11-02_001_main.csv",
        [event("C", 300, order_item_id="i3", event_time="2026-11-02T10:00:00Z", ingested_at="2026-11-02T11:00:00Z")],
    )
    result = pipeline.run()
    assert result.status_of("fct_order_items") == "error"
    assert "balance check failed: fct_order_items net_cents" in " ".join(result.messages.values())
    assert pipeline.table("fct_order_items") == tampered  # rolled back: C is not in it
    assert result.status_of("fct_daily_revenue") == "success"


def test_copy_stops_being_late_when_an_earlier_duplicate_lands(pipeline: Pipeline) -> None:
    """A late row leaves the queue once the same row, ingested on time, lands out of order; the event then counts."""
    late = event("L", 999, order_item_id="i7", event_time="2026-11-01T10:00:00Z", ingested_at="2026-11-04T11:00:01Z")
    on_time = event("L", 999, order_item_id="i7", event_time="2026-11-01T10:00:00Z", ingested_at="2026-11-01T11:00:00Z")
    pipeline.land("2026-11-04_001_main.csv", [late])
    pipeline.run_ok()
    assert pipeline.query("select event_id, status from late_events") == [("L", "waiting")]
    assert pipeline.net_total() == 0
    pipeline.land("2026-11-05_001_redelivery.csv", [on_time])
    pipeline.run_ok()
    assert pipeline.scalar("select count(*) from late_events") == 0
    assert pipeline.net_total() == 999
    incremental = pipeline.table("late_events"), pipeline.table("fct_daily_revenue")
    pipeline.build("--full-refresh")
    assert (pipeline.table("late_events"), pipeline.table("fct_daily_revenue")) == incremental
