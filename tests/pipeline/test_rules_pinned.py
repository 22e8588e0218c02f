"""Rules that a held-out mutation round broke without any test noticing, one test
each, on DuckDB. Each docstring states the case; the rule numbers are the issue's."""

from __future__ import annotations

import os
import re
import time

import pytest

from tests.pipeline.project import Pipeline, event

LEDGER = "select posting_id, posting_type, currency, amount_cents, posted_run_seq from fct_revenue_ledger"
RUNS = "select status from rerun_safe_runs order by run_seq desc limit 1"


def test_ledger_history_survives_a_full_refresh(pipeline: Pipeline) -> None:
    """Rule 1: v1 100 then v2 130 post an entry, a reversal and an entry; --full-refresh keeps all three, ids and
    runs."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    pipeline.run_ok()
    pipeline.land("2026-11-02_001_main.csv", [event("A", 130, version=2, ingested_at="2026-11-02T11:00:00Z")])
    pipeline.run_ok()
    history = sorted(pipeline.query(LEDGER))
    assert [(kind, amount) for _, kind, _, amount, _ in sorted(history, key=lambda p: (p[4], p[3]))] == [
        ("entry", 100),
        ("reversal", -100),
        ("entry", 130),
    ]
    pipeline.build("--full-refresh")
    assert sorted(pipeline.query(LEDGER)) == history
    assert pipeline.scalar("select sum(amount_cents) from fct_revenue_ledger") == pipeline.net_total() == 130


def test_a_currency_change_alone_posts_a_reversal_and_a_new_entry(pipeline: Pipeline) -> None:
    """Rule 2: v2 changes only the currency (EUR 100 -> USD 100): -100 EUR and +100 USD are posted."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100, currency="EUR")])
    pipeline.run_ok()
    pipeline.land(
        "2026-11-02_001_main.csv",
        [
            event("A", 100, currency="USD", version=2, ingested_at="2026-11-02T11:00:00Z"),
        ],
    )
    pipeline.build()
    postings = pipeline.query(
        "select posting_type, currency, amount_cents from fct_revenue_ledger order by posted_run_seq, 3"
    )
    assert postings == [("entry", "EUR", 100), ("reversal", "EUR", -100), ("entry", "USD", 100)]
    by_currency = "select currency, sum(amount_cents) from fct_revenue_ledger group by 1 order by 1"
    assert pipeline.query(by_currency) == [("EUR", 0), ("USD", 100)]
    days = "select currency, net_cents from fct_daily_revenue where net_cents != 0 order by 1"
    assert pipeline.query(days) == [("USD", 100)]
    assert pipeline.query("select currency, net_cents from fct_order_items") == [("USD", 100)]


def test_a_run_with_a_failing_model_is_recorded_failed(pipeline: Pipeline) -> None:
    """Rule 3a: a model that fails (injected fault) makes the run `failed` in rerun_safe_runs."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    result = pipeline.dbt("build", vars={"rerun_safe_fail_model": "fct_daily_revenue"})
    assert not result.success and result.status_of("fct_daily_revenue") == "error"
    assert pipeline.scalar(RUNS) == "failed"
    pipeline.build()
    assert pipeline.scalar(RUNS) == "success"


def test_a_run_with_a_failing_data_test_is_recorded_failed(pipeline: Pipeline) -> None:
    """Rule 3b: every model succeeds but a data test fails (a null written into a mart by hand): the run is `failed`."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    pipeline.run_ok()
    pipeline.query("update fct_order_items set event_count = null")
    result = pipeline.dbt("build")
    models = {k: v for k, v in result.statuses.items() if k.startswith("model.")}
    assert set(models.values()) == {"success"}
    assert "fail" in {v for k, v in result.statuses.items() if k.startswith("test.")}
    assert pipeline.scalar(RUNS) == "failed"


def _hand_lease_to(pipeline: Pipeline, holder: str, heartbeat_hours_ago: float) -> None:
    ago = f"cast(timezone('UTC', now()) as timestamp) - interval '{int(heartbeat_hours_ago * 3600)} seconds'"
    pipeline.query(
        f"update rerun_safe_lease set holder_invocation_id = '{holder}', released_at = null,"
        f" holder_started_at = {ago}, heartbeat_at = {ago}"
    )


WAIT_NOT = {"rerun_safe_lock_timeout_seconds": 0, "rerun_safe_lease_stale_seconds": 3600}
OTHER = "0000aaaa-0000-0000-0000-000000000001"


def test_a_run_that_lost_its_lease_does_not_release_it(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rule 4a: another run takes the lease over while this one runs (right before its on-run-end): this run's
    on-run-end must leave the new holder's lease alone. A run refused at on-run-start leaves it alone too, and
    registers nothing: neither run rewrites a row of the run registry in on-run-start."""
    from dbt.adapters.sql.connections import SQLConnectionManager

    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    pipeline.run_ok()
    original = SQLConnectionManager.add_query
    taken: list[str] = []
    sent: list[str] = []

    def add_query(self, sql, *args, **kwargs):
        sent.append(re.sub(r"^/\*.*?\*/", "", " ".join(sql.split()).lower()).strip())
        if not taken and "rerun_safe_lease" in sql and "set holder_invocation_id = cast(null" in sql:
            taken.append(sql)
            original(self, f"update rerun_safe_lease set holder_invocation_id = '{OTHER}'", *args, **kwargs)
        return original(self, sql, *args, **kwargs)

    def registry_writes() -> tuple[list[str], list[str]]:
        """The inserts into the run registry, and its updates other than finish_run's (which
        touches only a row still `started`)."""
        writes = [s for s in sent if "rerun_safe_runs" in s]
        return (
            [s for s in writes if s.startswith("insert")],
            [s for s in writes if s.startswith("update") and "status = 'started'" not in s],
        )

    monkeypatch.setattr(SQLConnectionManager, "add_query", add_query)
    pipeline.build()
    monkeypatch.undo()
    assert taken, "on-run-end sent no release"
    assert pipeline.query("select holder_invocation_id, released_at is null from rerun_safe_lease") == [(OTHER, False)]
    # The holder's on-run-start writes its run's row whole, in one insert; it rewrites no row of
    # the registry, which other runs' models may be reading.
    inserts, updates = registry_writes()
    assert len(inserts) == 1 and "'started'" in inserts[0] and updates == [], (inserts, updates)
    assert pipeline.scalar("select waited_seconds from rerun_safe_runs order by run_seq desc limit 1") is not None

    _hand_lease_to(pipeline, OTHER, heartbeat_hours_ago=0)
    sent.clear()
    monkeypatch.setattr(SQLConnectionManager, "add_query", add_query)
    refused = pipeline.dbt("build", vars=WAIT_NOT)
    monkeypatch.undo()
    assert not refused.success
    assert "holds the warehouse" in " ".join(refused.messages.values())
    assert pipeline.query("select holder_invocation_id, released_at from rerun_safe_lease") == [(OTHER, None)]
    assert pipeline.scalar(RUNS) == "refused"
    # A refused run registers nothing and rewrites no row: its one write there is its whole
    # `refused` row.
    inserts, updates = registry_writes()
    assert len(inserts) == 1 and "'refused'" in inserts[0] and updates == [], (inserts, updates)
    assert pipeline.query(
        "select status, refused_by, waited_seconds is not null from rerun_safe_runs"
        " where invocation_id = (select invocation_id from rerun_safe_runs order by run_seq desc limit 1)"
    ) == [("refused", OTHER, True)]


def test_a_holder_still_committing_models_is_alive_though_its_heartbeat_is_old(pipeline: Pipeline) -> None:
    """Rule 4b: the holder's heartbeat is 2 h old (stale after 1 h) but it committed a model just now: not taken over.
    The same holder with no recent commit is taken over (so the commit is what kept it)."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    pipeline.run_ok()
    twin = pipeline.copy(pipeline.root.parent / "twin")
    for warehouse, committed_now in ((pipeline, True), (twin, False)):
        _hand_lease_to(warehouse, OTHER, heartbeat_hours_ago=2)
        if committed_now:
            warehouse.query(
                f"insert into rerun_safe_run_log select * replace ('{OTHER}' as invocation_id,"
                " cast(timezone('UTC', now()) as timestamp) as logged_at) from rerun_safe_run_log"
                " where model = 'fct_order_items'"
            )
    refused = pipeline.dbt("build", vars=WAIT_NOT)
    assert not refused.success, "a holder that committed a model a moment ago was taken over"
    assert pipeline.scalar("select holder_invocation_id from rerun_safe_lease") == OTHER
    twin.build(vars=WAIT_NOT)
    assert twin.scalar("select taken_over_from from rerun_safe_lease") == OTHER


def test_a_delivery_staged_by_another_run_meanwhile_is_refused_before_commit(
    pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule 5, with the lease bypassed: while this run stages B, another run commits B (its loaded-files entry appears
    before this run's check). The check fails staging, nothing of the run is committed, and the next run stages B
    once."""
    from dbt.adapters.sql.connections import SQLConnectionManager

    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    pipeline.run_ok()
    pipeline.land("2026-11-02_001_main.csv", [event("B", 50, order_item_id="i2", ingested_at="2026-11-02T11:00:00Z")])
    staged_before = pipeline.scalar("select count(*) from stg_landing__events")
    original = SQLConnectionManager.add_query
    raced: list[str] = []

    def add_query(self, sql, *args, **kwargs):
        if "would be staged twice" in sql and not raced:
            raced.append(sql)
            # the other run's committed entry for B (same run number: it raced this one)
            original(
                self,
                "insert into rerun_safe_loaded_files (file_id, run_seq) select distinct staged._file_id,"
                " staged._loaded_run_seq from stg_landing__events as staged"
                " where staged._loaded_run_seq = (select max(_loaded_run_seq) from stg_landing__events)",
                *args,
                **kwargs,
            )
        return original(self, sql, *args, **kwargs)

    monkeypatch.setattr(SQLConnectionManager, "add_query", add_query)
    result = pipeline.dbt("build")
    monkeypatch.undo()
    assert raced, "the loaded-once check never ran"
    assert result.status_of("stg_landing__events") == "error"
    assert "would be staged twice" in result.messages["model.rerun_safe.stg_landing__events"]
    assert pipeline.scalar("select count(*) from stg_landing__events") == staged_before
    pipeline.build()
    assert pipeline.scalar("select count(*) from stg_landing__events where event_id = 'B'") == 1
    assert pipeline.net_total() == 150


def test_a_delivery_is_identified_by_its_whole_content(pipeline: Pipeline) -> None:
    """Rule 6a: a 2.4 MB delivery rewritten with the same size and mtime, only its last byte changed: a new delivery."""
    rows = [event(f"E{n:06d}", 100, order_item_id=f"i{n}") for n in range(30_000)]
    path = pipeline.land("2026-11-01_001_big.csv", rows)
    pipeline.run_ok()
    assert pipeline.net_total() == 3_000_000
    time.sleep(2.1)  # past the window in which a same-tick rewrite is not trusted
    data = path.read_bytes()
    assert len(data) > 2_000_000 and data.endswith(b",1\n")
    before = path.stat()
    path.write_bytes(data[:-2] + b"2\n")  # the last event's version 1 -> 2, same payload
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    pipeline.build()
    assert pipeline.scalar("select count(*) from stg_landing__deliveries") == 2
    assert pipeline.scalar("select max(version) from stg_landing__events") == 2


PAYLOAD_CHANGES = {
    "event_type": "refund",
    "company_id": "co2",
    "order_id": "o2",
    "order_item_id": "i9",
    "amount_cents": "101",
    "currency": "USD",
    "event_time": "2026-11-01T10:00:01Z",
}


def test_every_payload_column_makes_a_conflict_and_ingested_at_does_not(pipeline: Pipeline) -> None:
    """Rule 11: two copies of one event and version that differ in one contract column (each column in turn, currency
    included) are conflicting_version; copies that differ only in ingested_at are one redelivered event."""
    rows = []
    for column, value in PAYLOAD_CHANGES.items():
        first = event(f"P_{column}", 100, order_item_id=f"i_{column}")
        rows += [first, {**first, column: value}]
    same = event("R", 70, order_item_id="i_r")
    rows += [same, {**same, "ingested_at": "2026-11-01T12:00:00Z"}]
    pipeline.land("2026-11-01_001_main.csv", rows)
    pipeline.build()
    conflicting = pipeline.query(
        "select event_id, count(*) from quarantined_events where reason = 'conflicting_version' group by 1 order by 1"
    )
    assert conflicting == sorted((f"P_{column}", 2) for column in PAYLOAD_CHANGES)
    assert pipeline.net_total() == 70
    assert pipeline.query(
        "select event_id, row_count, copy_status from int_event_copies_classified where event_id = 'R'"
    ) == [
        ("R", 2, "current"),
    ]


LATE = {"event_time": "2026-11-01T10:00:00Z", "ingested_at": "2026-11-05T11:00:00Z"}  # 97 h late


def test_a_correction_covers_late_rows_staged_in_its_own_run(pipeline: Pipeline) -> None:
    """Rule 12: a late row lands in the same run that records the correction: its mark includes that row, so it
    applies."""
    pipeline.land(
        "2026-11-05_001_main.csv",
        [
            event("ON", 10, order_item_id="i1", event_time="2026-11-05T10:00:00Z", ingested_at="2026-11-05T10:30:00Z"),
            event("L", 100, order_item_id="i2", **LATE),
        ],
    )
    pipeline.build(vars={"correct_from": "2026-11-01", "correct_to": "2026-11-01"})
    assert pipeline.scalar("select cast(mark as varchar) from int_corrections_recorded") == "2026-11-05 11:00:00"
    assert pipeline.query("select event_id, status from late_events") == [("L", "applied")]
    assert pipeline.net_total() == 110


def test_a_waiting_late_higher_version_supersedes_nothing(pipeline: Pipeline) -> None:
    """Rule 13: v1 100 on time, v2 250 beyond the watermark: v1 stays current (100 published), v2 waits; a correction
    then makes v2 current (250), and a full refresh agrees."""
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    pipeline.run_ok()
    pipeline.land("2026-11-05_001_main.csv", [event("A", 250, version=2, **LATE)])
    pipeline.run_ok()
    status = "select version, copy_status from int_event_copies_classified order by 1"
    assert pipeline.query(status) == [(1, "current"), (2, "late_waiting")]
    assert pipeline.net_total() == 100
    assert pipeline.scalar("select sum(amount_cents) from fct_revenue_ledger") == 100
    assert pipeline.query("select event_id, status from late_events") == [("A", "waiting")]
    pipeline.run_ok(vars={"correct_from": "2026-11-01", "correct_to": "2026-11-01"})
    assert pipeline.query(status) == [(1, "superseded"), (2, "current")]
    assert pipeline.net_total() == 250
    pipeline.build("--full-refresh")
    assert pipeline.query(status) == [(1, "superseded"), (2, "current")]
    assert pipeline.net_total() == 250


def test_an_items_order_and_currency_come_from_its_latest_contributing_copy(pipeline: Pipeline) -> None:
    """Rule 14: item i1's latest *contributing* copy is A (10:00, o1, EUR). Later copies that do not contribute (E v1
    superseded at 13:00, B waiting late at 11:00, C conflicting at 12:00) name other orders and currencies."""
    pipeline.land(
        "2026-11-01_001_main.csv",
        [
            event("A", 100, order_id="o1", currency="EUR", event_time="2026-11-01T10:00:00Z"),
            event("E", 5, order_id="o5", currency="USD", event_time="2026-11-01T13:00:00Z"),
            event("C", 7, order_id="o3", currency="GBP", event_time="2026-11-01T12:00:00Z"),
            event("C", 8, order_id="o3", currency="GBP", event_time="2026-11-01T12:00:00Z"),
        ],
    )
    pipeline.run_ok()
    pipeline.land(
        "2026-11-02_001_main.csv",
        [
            event(
                "E",
                5,
                order_id="o1",
                currency="EUR",
                event_time="2026-11-01T09:00:00Z",
                version=2,
                ingested_at="2026-11-02T11:00:00Z",
            ),
            event(
                "B",
                9,
                order_id="o2",
                currency="CHF",
                event_time="2026-11-01T11:00:00Z",
                ingested_at="2026-11-05T11:00:00Z",
            ),  # 96 h late: waits
        ],
    )
    pipeline.run_ok()
    item = "select order_id, currency, net_cents, event_count from fct_order_items where order_item_id = 'i1'"
    assert pipeline.query(item) == [("o1", "EUR", 105, 2)]
    pipeline.build("--full-refresh")
    assert pipeline.query(item) == [("o1", "EUR", 105, 2)]
