"""At-least-once deliveries converge to the same, correct tables."""

from __future__ import annotations

import shutil

from tests.pipeline.project import Pipeline, event


def test_retry_after_partial_load_leaves_150_not_250(pipeline: Pipeline) -> None:
    """The first attempt loads A ($100) and fails before B ($50); the retry must leave $150, not $250."""
    pipeline.land("2026-11-01_001_attempt1.csv", [event("A", 10000)])
    pipeline.build()
    assert pipeline.net_total() == 10000
    # the retry re-sends the whole day: A again, then B
    pipeline.land("2026-11-01_002_retry.csv", [event("A", 10000), event("B", 5000, order_item_id="i2")])
    pipeline.build()
    assert pipeline.net_total() == 15000
    assert pipeline.scalar("select sum(net_cents) from fct_order_items") == 15000
    assert pipeline.scalar("select sum(amount_cents) from fct_revenue_ledger") == 15000


def test_redelivered_file_changes_nothing(pipeline: Pipeline) -> None:
    """The same file delivered again (same name, rewritten; and a byte copy under a new name) changes no table.

    A delivery is its name and content: the rewrite with the same bytes is the same delivery
    and is not read again; the copy under a new name is a second delivery of the same rows."""
    rows = [event("A", 10000), event("B", 5000, order_item_id="i2")]
    first = pipeline.land("2026-11-01_001_main.csv", rows)
    pipeline.build()
    before = pipeline.business_state()
    ledger_before = pipeline.scalar("select count(*) from fct_revenue_ledger")
    shutil.copy(first, pipeline.landing / "2026-11-02_001_redelivery.csv")
    pipeline.land("2026-11-01_001_main.csv", rows)  # rewritten in place: new mtime, same content
    pipeline.build()
    assert pipeline.business_state() == before
    assert pipeline.scalar("select count(*) from fct_revenue_ledger") == ledger_before
    assert pipeline.scalar("select sum(row_count) from int_event_copies_classified") == 4
    assert pipeline.scalar("select count(*) from int_event_copies_classified") == 2


def test_same_rows_under_new_name_with_later_ingestion_change_nothing(pipeline: Pipeline) -> None:
    """Rows re-sent inside another file with a later ingested_at are duplicates, not new events."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 10000), event("B", 5000, order_item_id="i2")])
    pipeline.build()
    before = pipeline.business_state()
    pipeline.land(
        "2026-11-02_001_resend.csv",
        [
            event("B", 5000, order_item_id="i2", ingested_at="2026-11-02 09:00:00"),
            event("C", 700, order_item_id="i3", event_time="2026-11-02T08:00:00Z", ingested_at="2026-11-02T09:00:00Z"),
        ],
    )
    pipeline.build()
    after = pipeline.business_state()
    assert [r for r in after["fct_order_items"] if r[1] != "i3"] == before["fct_order_items"]
    assert pipeline.net_total() == 15700


def test_conflicting_version_is_quarantined_and_contributes_nothing(pipeline: Pipeline) -> None:
    """Two copies of A v1 with different amounts: both rows quarantined, A contributes nothing until v2."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 10000), event("B", 5000, order_item_id="i2")])
    pipeline.land("2026-11-01_002_other.csv", [event("A", 12345)])
    pipeline.build()
    assert pipeline.net_total() == 5000
    assert pipeline.query("select reason, count(*) from quarantined_events group by reason") == [
        ("conflicting_version", 2)
    ]
    assert pipeline.query("select order_item_id from fct_order_items") == [("i2",)]
    pipeline.land("2026-11-02_001_fix.csv", [event("A", 11000, version=2, ingested_at="2026-11-01T20:00:00Z")])
    pipeline.build()
    assert pipeline.net_total() == 16000
    # the conflicting version stays quarantined: it was a bad version whatever came later
    assert pipeline.scalar("select count(*) from quarantined_events where reason = 'conflicting_version'") == 2


def test_version_that_moves_event_to_another_item_leaves_old_item_correct(pipeline: Pipeline) -> None:
    """A v2 of A moves it from item i1 to i9 (and another day): i1 must lose it, not keep it."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 10000), event("B", 3000, order_item_id="i1")])
    pipeline.build()
    assert pipeline.query("select order_item_id, net_cents, event_count from fct_order_items") == [("i1", 13000, 2)]
    pipeline.land(
        "2026-11-02_001_versions.csv",
        [
            event(
                "A",
                10000,
                order_item_id="i9",
                version=2,
                event_time="2026-11-02T09:00:00Z",
                ingested_at="2026-11-02T10:00:00Z",
            )
        ],
    )
    pipeline.build()
    assert sorted(pipeline.query("select order_item_id, net_cents, event_count from fct_order_items")) == [
        ("i1", 3000, 1),
        ("i9", 10000, 1),
    ]
    assert sorted(pipeline.query("select cast(revenue_date as varchar), net_cents from fct_daily_revenue")) == [
        ("2026-11-01", 3000),
        ("2026-11-02", 10000),
    ]


def test_item_emptied_by_a_move_disappears(pipeline: Pipeline) -> None:
    """When the only event of an item and of a day moves away, the item row and the day partition go."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 10000)])
    pipeline.build()
    pipeline.land(
        "2026-11-03_001_versions.csv",
        [
            event(
                "A",
                10000,
                order_item_id="i2",
                version=2,
                event_time="2026-11-03T09:00:00Z",
                ingested_at="2026-11-03T10:00:00Z",
            )
        ],
    )
    pipeline.build()
    assert pipeline.query("select order_item_id from fct_order_items") == [("i2",)]
    assert pipeline.query("select cast(revenue_date as varchar) from fct_daily_revenue") == [("2026-11-03",)]


MALFORMED = {
    "missing_event_id": event("", 100),
    "missing_company_id": event("m2", company_id=" "),
    "missing_order_item_id": event("m3", order_item_id=""),
    "unknown_event_type": event("m4", event_type="chargeback"),
    "invalid_amount": event("m5", amount_cents="12.5"),
    "negative_amount": event("m6", amount_cents="-300"),
    "invalid_currency": event("m7", currency="usd"),
    "invalid_event_time": event("m8", event_time="2026-13-01T10:00:00Z"),
    "invalid_ingested_at": event("m9", ingested_at="yesterday"),
    "invalid_version": event("m10", version="0"),
}


def test_every_malformed_kind_is_quarantined_with_its_reason(pipeline: Pipeline) -> None:
    """One row of each malformed kind plus one good row: each bad row is quarantined with its reason, file and line."""
    rows = [event("good", 500), *list(MALFORMED.values())]
    pipeline.land("2026-11-01_001_main.csv", rows)
    pipeline.land(
        "2026-11-01_002_broken.csv",
        raw="event_id,event_type,company_id,order_id,order_item_id,amount_cents,currency,event_time,ingested_at,version\n"
        "x1,sale,co1,o1,i1,100,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1,EXTRA\n",
    )
    pipeline.build()
    quarantined = dict(
        pipeline.query("select reason, source_line from quarantined_events where source_file like '%main.csv'")
    )
    expected_lines = {reason: index + 3 for index, reason in enumerate(MALFORMED)}  # header=1, good row=2
    assert quarantined == expected_lines
    assert pipeline.query(
        "select reason, source_file, source_line from quarantined_events where source_file like '%broken.csv'"
    ) == [("malformed_row", "2026-11-01_002_broken.csv", 2)]
    assert pipeline.net_total() == 500
    landed = pipeline.scalar("select count(*) from stg_landing__events")
    assert landed == len(rows) + 1


def test_empty_and_header_only_files_are_not_errors(pipeline: Pipeline) -> None:
    """A 0-byte file and a header-only file load nothing and fail nothing."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    pipeline.land("2026-11-01_002_empty.csv", raw="")
    pipeline.land("2026-11-01_003_headeronly.csv", [])
    pipeline.build()
    assert pipeline.scalar("select count(*) from stg_landing__events") == 1
    pipeline.build()
    assert pipeline.net_total() == 100


def test_rerun_changes_nothing_and_full_refresh_agrees(pipeline: Pipeline) -> None:
    """Incremental history, a re-run and a full refresh give the same business tables."""
    pipeline.land(
        "2026-11-01_001_main.csv",
        [event("A", 100), event("B", 200, order_item_id="i2"), event("C", 50, event_type="refund", order_item_id="i2")],
    )
    pipeline.build()
    pipeline.land(
        "2026-11-02_001_main.csv",
        [
            event("A", 150, version=2, ingested_at="2026-11-01T12:00:00Z"),
            event(
                "D",
                400,
                company_id="co2",
                currency="USD",
                event_time="2026-11-02T01:00:00Z",
                ingested_at="2026-11-02T02:00:00Z",
            ),
        ],
    )
    pipeline.build()
    incremental = pipeline.business_state()
    pipeline.build()
    assert pipeline.business_state() == incremental
    pipeline.build("--full-refresh")
    assert pipeline.business_state() == incremental
    assert pipeline.net_total() == 150 + 200 - 50 + 400


def test_version_beyond_32_bits_is_valid_and_beyond_64_bits_is_quarantined(pipeline: Pipeline) -> None:
    """Version 3000000000 is a valid (high) version; a version that does not fit 64 bits is invalid_version."""
    pipeline.land(
        "2026-11-01_001_main.csv",
        [
            event("A", 100),
            event("A", 250, version=3_000_000_000),
            event("B", 100, order_item_id="i2", version="99999999999999999999"),
        ],
    )
    pipeline.build()
    assert pipeline.net_total() == 250
    assert pipeline.query("select reason from quarantined_events") == [("invalid_version",)]
