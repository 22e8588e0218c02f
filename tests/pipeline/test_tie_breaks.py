"""Every tie-break of every ROW_NUMBER, on the SQL: ties on each ordering term, with the expected winner."""

from __future__ import annotations

from tests.pipeline.project import Pipeline, event

AT = "2026-11-01T12:00:00Z"


def test_latest_event_of_an_item_is_greatest_event_time_then_greatest_event_id(pipeline: Pipeline) -> None:
    """Items whose two events share an event_time take order_id and currency from the greater event_id; otherwise the
    later event wins."""
    rows = []
    for n in range(8):
        rows.append(event(f"a{n}", 10, order_item_id=f"tie{n}", order_id="from_a", currency="EUR", event_time=AT))
        rows.append(event(f"b{n}", 20, order_item_id=f"tie{n}", order_id="from_b", currency="USD", event_time=AT))
    # later event, smaller id: event_time decides before event_id
    rows.append(
        event("y", 1, order_item_id="time", order_id="later", currency="GBP", event_time="2026-11-01T13:00:00Z")
    )
    rows.append(
        event("z", 2, order_item_id="time", order_id="earlier", currency="CHF", event_time="2026-11-01T09:00:00Z")
    )
    pipeline.land("2026-11-01_001_main.csv", rows)
    pipeline.run_ok()
    expected = [(f"tie{n}", "from_b", "USD") for n in range(8)] + [("time", "later", "GBP")]
    latest = "select order_item_id, order_id, currency from fct_order_items order by 1"
    assert pipeline.query(latest) == expected
    # incremental: a new event on every item, tied with the old ones, loses to b
    pipeline.land(
        "2026-11-02_001_main.csv",
        [
            event(
                f"a{n}x",
                1,
                order_item_id=f"tie{n}",
                order_id="from_ax",
                currency="JPY",
                event_time=AT,
                ingested_at="2026-11-02T10:00:00Z",
            )
            for n in range(8)
        ],
    )
    pipeline.run_ok()
    assert pipeline.query(latest) == expected
    pipeline.build("--full-refresh")
    assert pipeline.query(latest) == expected


def test_copy_is_represented_by_its_earliest_row_then_first_file_then_first_line(pipeline: Pipeline) -> None:
    """Duplicates across files and inside one file: a copy keeps the earliest ingested_at, then the first file name,
    then the first line."""
    pipeline.land(
        "2026-11-01_a.csv",
        [
            event("X", 1, ingested_at="2026-11-01T11:00:00Z"),  # line 2: later than in b
            event("Y", 2, order_item_id="i2"),  # line 3: ties with b, a wins
            event("Z", 3, order_item_id="i3"),
            event("Z", 3, order_item_id="i3"),  # lines 4, 5: in-file duplicate
        ],
    )
    pipeline.land(
        "2026-11-01_b.csv",
        [
            event("Y", 2, order_item_id="i2"),  # line 2
            event("X", 1, ingested_at="2026-11-01T10:30:00Z"),  # line 3: the earliest X
        ],
    )
    pipeline.run_ok()
    copies = (
        "select event_id, source_file, source_line, cast(ingested_at as varchar), row_count "
        "from int_event_copies_classified order by 1"
    )
    expected = [
        ("X", "2026-11-01_b.csv", 3, "2026-11-01 10:30:00", 2),
        ("Y", "2026-11-01_a.csv", 3, "2026-11-01 11:00:00", 2),
        ("Z", "2026-11-01_a.csv", 4, "2026-11-01 11:00:00", 2),
    ]
    assert pipeline.query(copies) == expected
    pipeline.build("--full-refresh")
    assert pipeline.query(copies) == expected


def test_in_file_duplicates_folded_across_runs_keep_the_first_line(pipeline: Pipeline) -> None:
    """A file rewritten under its name moves each W one line down, same ingested_at: the folded copies keep the first
    line."""
    names = [f"W{n}" for n in range(6)]
    pipeline.land("2026-11-01_c.csv", [event(name, 1, order_item_id=name) for name in names])
    pipeline.run_ok()
    # the rewrite has a new first row: every W is one line further down, same ingested_at
    pipeline.land(
        "2026-11-01_c.csv",
        [event("first", 5, order_item_id="f")] + [event(name, 1, order_item_id=name) for name in names],
    )
    pipeline.build()
    lines = (
        "select event_id, source_line, row_count from int_event_copies_classified where event_id like 'W%' order by 1"
    )
    expected = [(name, n + 2, 2) for n, name in enumerate(names)]
    assert pipeline.query(lines) == expected
    # (no full refresh here: the rewrite replaced the first content on disk, so a rebuild sees
    # only the second one)


def test_the_first_correction_covering_a_copy_gets_the_credit(pipeline: Pipeline) -> None:
    """Two corrections cover one late copy: the first recorded keeps the credit, after a repeat, a refold and a full
    refresh."""
    late = event("L", 700, event_time="2026-11-01T10:00:00Z", ingested_at="2026-11-05T10:00:00Z")
    pipeline.land("2026-11-05_001_main.csv", [late])
    pipeline.run_ok()
    first_command = {"correct_from": "2026-10-31", "correct_to": "2026-11-02"}
    pipeline.run_ok(vars=first_command)
    pipeline.run_ok(vars={"correct_from": "2026-11-01", "correct_to": "2026-11-01"})
    first, second = [
        cid for (cid,) in pipeline.query("select correction_id from int_corrections_recorded order by recorded_run_seq")
    ]
    assert second < first  # so the id alone would pick the wrong one: the order must be by run first
    credit = "select applied_by_correction_id from late_events where event_id = 'L'"
    assert pipeline.scalar(credit) == first
    # the first command again, on the same data, records nothing: the first stays first
    pipeline.run_ok(vars=first_command)
    assert pipeline.query("select correction_id from int_corrections_recorded order by recorded_run_seq") == [
        (first,),
        (second,),
    ]
    # a later duplicate of L makes the copies model refold L against both corrections
    pipeline.land("2026-11-07_001_redelivery.csv", [dict(late, ingested_at="2026-11-07T10:00:00Z")])
    pipeline.run_ok()
    assert pipeline.scalar(credit) == first
    pipeline.build("--full-refresh")
    assert pipeline.scalar(credit) == first
    assert pipeline.net_total() == 700
