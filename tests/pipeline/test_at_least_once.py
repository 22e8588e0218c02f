"""At-least-once deliveries converge to the same, correct tables.

The scenarios that take `engine_pipeline` run on every engine (tests/pipeline/engines.py)."""

from __future__ import annotations

import shutil

from tests.pipeline.project import HEADER, Pipeline, event


def test_retry_after_partial_load_leaves_150_not_250(engine_pipeline: Pipeline) -> None:
    """The first attempt loads A ($100) and fails before B ($50); the retry must leave $150, not $250."""
    pipeline = engine_pipeline
    pipeline.land("2026-11-01_001_attempt1.csv", [event("A", 10000)])
    pipeline.run_ok()
    assert pipeline.net_total() == 10000
    # the retry re-sends the whole day: A again, then B
    pipeline.land("2026-11-01_002_retry.csv", [event("A", 10000), event("B", 5000, order_item_id="i2")])
    pipeline.build()
    assert pipeline.net_total() == 15000
    assert pipeline.scalar("select sum(net_cents) from fct_order_items") == 15000
    assert pipeline.scalar("select sum(amount_cents) from fct_revenue_ledger") == 15000
    # the first run_ok loads the seeds first (dbt seed), then runs: each invocation is in the registry
    assert pipeline.query("select command, status from rerun_safe_runs order by run_seq") == [
        ("seed", "success"),
        ("run", "success"),
        ("build", "success"),
    ]


def test_redelivered_file_changes_nothing(pipeline: Pipeline) -> None:
    """The same file delivered again (same name, rewritten; and a byte copy under a new name) changes no table.

    A delivery is its name and content: the rewrite with the same bytes is the same delivery
    and is not read again; the copy under a new name is a second delivery of the same rows."""
    rows = [event("A", 10000), event("B", 5000, order_item_id="i2")]
    first = pipeline.land("2026-11-01_001_main.csv", rows)
    pipeline.run_ok()
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
    pipeline.run_ok()
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


def test_conflicting_version_is_quarantined_and_contributes_nothing(engine_pipeline: Pipeline) -> None:
    """Two copies of A v1 with different amounts: both rows quarantined, A contributes nothing until v2."""
    pipeline = engine_pipeline
    pipeline.land("2026-11-01_001_main.csv", [event("A", 10000), event("B", 5000, order_item_id="i2")])
    pipeline.land("2026-11-01_002_other.csv", [event("A", 12345)])
    pipeline.run_ok()
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


def test_version_that_moves_event_to_another_item_leaves_old_item_correct(engine_pipeline: Pipeline) -> None:
    """A v2 of A moves it from item i1 to i9 (and another day): i1 must lose it, not keep it (merge
    delete and partition replace), and the ledger reverses it; a v2 of C moves only its day."""
    pipeline = engine_pipeline
    pipeline.land(
        "2026-11-01_001_main.csv",
        [event("A", 10000), event("B", 3000, order_item_id="i1"), event("C", 700, order_item_id="i5")],
    )
    pipeline.run_ok()
    assert sorted(pipeline.query("select order_item_id, net_cents, event_count from fct_order_items")) == [
        ("i1", 13000, 2),
        ("i5", 700, 1),
    ]
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
            ),
            event(
                "C",
                700,
                order_item_id="i5",
                version=2,
                event_time="2026-11-03T09:00:00Z",
                ingested_at="2026-11-03T10:00:00Z",
            ),
        ],
    )
    pipeline.build()
    assert sorted(pipeline.query("select order_item_id, net_cents, event_count from fct_order_items")) == [
        ("i1", 3000, 1),
        ("i5", 700, 1),
        ("i9", 10000, 1),
    ]
    assert sorted(pipeline.query("select cast(revenue_date as varchar), net_cents from fct_daily_revenue")) == [
        ("2026-11-01", 3000),
        ("2026-11-02", 10000),
        ("2026-11-03", 700),
    ]
    assert sorted(
        pipeline.query(
            "select posting_type, cast(revenue_date as varchar), amount_cents"
            " from fct_revenue_ledger where event_id = 'A'"
        )
    ) == [("entry", "2026-11-01", 10000), ("entry", "2026-11-02", 10000), ("reversal", "2026-11-01", -10000)]


def test_item_emptied_by_a_move_disappears(pipeline: Pipeline) -> None:
    """When the only event of an item and of a day moves away, the item row and the day partition go."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 10000)])
    pipeline.run_ok()
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


def test_every_malformed_kind_is_quarantined_with_its_reason(engine_pipeline: Pipeline) -> None:
    """One row of each malformed kind plus one good row: each bad row is quarantined with its
    reason, file and line; an extra field is malformed_row, an amount beyond 64 bits, a 29 February
    of a common year and a 24:00 are invalid. Quoted commas and quotes, CRLF, a BOM, blank lines,
    empty and header-only files read alike on every engine. (A line break inside quotes rejects
    the file: tests/bad_input.)"""
    pipeline = engine_pipeline
    rows = [event("good", 500), *list(MALFORMED.values())]
    pipeline.land("2026-11-01_001_main.csv", rows)
    header = ",".join(HEADER)
    pipeline.land(
        "2026-11-01_002_broken.csv",
        raw=header + "\n"
        "x1,sale,co1,o1,i1,100,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1,EXTRA\n"
        "x2,sale,co1,o1,i1,99999999999999999999,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1\n"
        "x3,sale,co1,o1,i1,100,EUR,2026-02-29T10:00:00Z,2026-11-01T11:00:00Z,1\n"
        "x4,sale,co1,o1,i1,100,EUR,2026-11-01T24:00:00Z,2026-11-01T11:00:00Z,1\n",
    )
    pipeline.land(
        "2026-11-01_003_quoting.csv",
        raw="\ufeff" + header + "\r\n"
        '"q1",sale,"co,1","o""1",i1,100,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1\r\n'
        "\r\n"
        'q2,sale,co1,"o,2",i2,200,EUR,2026-11-01 10:00:00,2026-11-01 11:00:00,1\r\n'
        "q3,sale,co1,o1,i3,300,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1,\r\n",
    )
    pipeline.land("2026-11-01_004_empty.csv", raw="")
    pipeline.land("2026-11-01_005_headeronly.csv", [])
    pipeline.run_ok()
    quarantined = dict(
        pipeline.query("select reason, source_line from quarantined_events where source_file like '%main.csv'")
    )
    expected_lines = {reason: index + 3 for index, reason in enumerate(MALFORMED)}  # header=1, good row=2
    assert quarantined == expected_lines
    assert sorted(
        pipeline.query(
            "select source_line, reason, source_file from quarantined_events where source_file like '%broken.csv'"
        )
    ) == [
        (line, reason, "2026-11-01_002_broken.csv")
        for line, reason in (
            (2, "malformed_row"),
            (3, "invalid_amount"),
            (4, "invalid_event_time"),
            (5, "invalid_event_time"),
        )
    ]
    assert sorted(
        pipeline.query(
            "select event_id, company_id, order_id, source_line from stg_landing__events"
            " where source_file = '2026-11-01_003_quoting.csv'"
        )
    ) == [("q1", "co,1", 'o"1', 2), ("q2", "co1", "o,2", 3), ("q3", "co1", "o1", 4)]
    assert pipeline.net_total() == 500 + 100 + 200 + 300
    landed = len(rows) + 4 + 3  # main, broken, quoting; the empty and header-only files stage nothing
    assert pipeline.scalar("select count(*) from stg_landing__events") == landed
    pipeline.build()  # the empty and header-only files are listed again and load nothing
    assert pipeline.scalar("select count(*) from stg_landing__events") == landed


def test_empty_and_header_only_files_are_not_errors(pipeline: Pipeline) -> None:
    """A 0-byte file and a header-only file load nothing and fail nothing."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    pipeline.land("2026-11-01_002_empty.csv", raw="")
    pipeline.land("2026-11-01_003_headeronly.csv", [])
    pipeline.run_ok()
    assert pipeline.scalar("select count(*) from stg_landing__events") == 1
    pipeline.build()
    assert pipeline.net_total() == 100


def test_rerun_changes_nothing_and_full_refresh_agrees(engine_pipeline: Pipeline) -> None:
    """Incremental history, a re-run (nothing posted, no stamp moved) and a full refresh give the
    same business tables and ledger."""
    pipeline = engine_pipeline
    pipeline.land(
        "2026-11-01_001_main.csv",
        [event("A", 100), event("B", 200, order_item_id="i2"), event("C", 50, event_type="refund", order_item_id="i2")],
    )
    pipeline.run_ok()
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
    pipeline.run_ok()
    incremental = pipeline.business_state()
    ledger = pipeline.table("fct_revenue_ledger")
    copies = pipeline.table("int_event_copies_classified")
    pipeline.run_ok()
    assert pipeline.business_state() == incremental
    assert pipeline.table("fct_revenue_ledger") == ledger
    assert pipeline.table("int_event_copies_classified") == copies
    pipeline.build("--full-refresh")
    assert pipeline.business_state() == incremental
    assert pipeline.table("fct_revenue_ledger") == ledger
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
