"""The same models on a real PostgreSQL server (`--target postgres`).

A subset of tests/pipeline's scenarios, run against a throw-away cluster (conftest.py), plus
a check that DuckDB and Postgres build identical business tables from the same generated
deliveries. Adapter-specific SQL lives in dispatched macros (macros/cross_db, macros/pipeline/landing,
macros/incremental); these tests are what proves the `postgres__` side of them.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from pipeline_demo.generate import GeneratorConfig, generate
from tests.pipeline.project import Pipeline, deliveries_by_day, engine_state, event
from tests.pipeline.test_at_least_once import MALFORMED
from tests.postgres.conftest import PostgresServer
from tests.postgres.project import PostgresPipeline

LATE = dict(event_time="2026-10-20T10:00:00Z", ingested_at="2026-11-01T12:00:00Z")  # 290 h late


@pytest.fixture
def pg(tmp_path: Path, postgres_server: PostgresServer) -> PostgresPipeline:
    return PostgresPipeline(tmp_path / "pg", postgres_server)


def test_retry_after_partial_load_leaves_150_not_250(pg: PostgresPipeline) -> None:
    """The first attempt loads A ($100); the retry re-sends A and B ($50): $150, not $250."""
    pg.land("2026-11-01_001_attempt1.csv", [event("A", 10000)])
    pg.run_ok()
    assert pg.net_total() == 10000
    pg.land("2026-11-01_002_retry.csv", [event("A", 10000), event("B", 5000, order_item_id="i2")])
    pg.build()
    assert pg.net_total() == 15000
    assert pg.scalar("select sum(net_cents) from fct_order_items") == 15000
    assert pg.scalar("select sum(amount_cents) from fct_revenue_ledger") == 15000
    # the first run_ok loads the seeds first (dbt seed), then runs
    assert pg.query("select command, status from rerun_safe_runs order by run_seq") == [
        ("seed", "success"), ("run", "success"), ("build", "success"),
    ]
    pg.unit_tests()  # once on this adapter: builds leave them out (tests/pipeline/test_unit_tests.py)


def test_version_moves_event_to_another_item_and_day(pg: PostgresPipeline) -> None:
    """A v2 of A moves it to item i9 and day 2: i1 and day 1 lose it (merge delete + partition replace), the ledger reverses."""
    pg.land("2026-11-01_001_main.csv", [event("A", 10000), event("B", 3000, order_item_id="i1"),
                                       event("C", 700, order_item_id="i5")])
    pg.run_ok()
    assert sorted(pg.query("select order_item_id, net_cents, event_count from fct_order_items")) == [
        ("i1", 13000, 2), ("i5", 700, 1),
    ]
    pg.land("2026-11-02_001_versions.csv", [
        event("A", 10000, order_item_id="i9", version=2, event_time="2026-11-02T09:00:00Z",
              ingested_at="2026-11-02T10:00:00Z"),
        event("C", 700, order_item_id="i5", version=2, event_time="2026-11-03T09:00:00Z",
              ingested_at="2026-11-03T10:00:00Z"),
    ])
    pg.build()
    assert sorted(pg.query("select order_item_id, net_cents, event_count from fct_order_items")) == [
        ("i1", 3000, 1), ("i5", 700, 1), ("i9", 10000, 1),
    ]
    assert sorted(pg.query("select cast(revenue_date as varchar), net_cents from fct_daily_revenue")) == [
        ("2026-11-01", 3000), ("2026-11-02", 10000), ("2026-11-03", 700),
    ]
    assert sorted(pg.query(
        "select posting_type, cast(revenue_date as varchar), amount_cents from fct_revenue_ledger where event_id = 'A'"
    )) == [("entry", "2026-11-01", 10000), ("entry", "2026-11-02", 10000), ("reversal", "2026-11-01", -10000)]


def test_conflicting_version_is_quarantined_until_a_higher_version(pg: PostgresPipeline) -> None:
    """Two copies of A v1 with different amounts: both rows quarantined, A contributes nothing until v2."""
    pg.land("2026-11-01_001_main.csv", [event("A", 10000), event("B", 5000, order_item_id="i2")])
    pg.land("2026-11-01_002_other.csv", [event("A", 12345)])
    pg.run_ok()
    assert pg.net_total() == 5000
    assert pg.query("select reason, count(*) from quarantined_events group by reason") == [("conflicting_version", 2)]
    assert pg.query("select order_item_id from fct_order_items") == [("i2",)]
    pg.land("2026-11-02_001_fix.csv", [event("A", 11000, version=2, ingested_at="2026-11-01T20:00:00Z")])
    pg.build()
    assert pg.net_total() == 16000
    assert pg.scalar("select count(*) from quarantined_events where reason = 'conflicting_version'") == 2


def test_malformed_rows_get_their_reason_and_odd_files_load(pg: PostgresPipeline) -> None:
    """Every reason code with its line; an extra field is malformed_row; quoted commas and quotes,
    CRLF, a BOM, blank lines, empty and header-only files read as DuckDB reads them. (A line
    break inside quotes rejects the file: tests/bad_input.)"""
    rows = [event("good", 500)] + list(MALFORMED.values())
    pg.land("2026-11-01_001_main.csv", rows)
    header = ",".join(["event_id", "event_type", "company_id", "order_id", "order_item_id",
                       "amount_cents", "currency", "event_time", "ingested_at", "version"])
    pg.land("2026-11-01_002_broken.csv", raw=header + "\n"
            "x1,sale,co1,o1,i1,100,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1,EXTRA\n"
            "x2,sale,co1,o1,i1,99999999999999999999,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1\n"
            "x3,sale,co1,o1,i1,100,EUR,2026-02-29T10:00:00Z,2026-11-01T11:00:00Z,1\n"
            "x4,sale,co1,o1,i1,100,EUR,2026-11-01T24:00:00Z,2026-11-01T11:00:00Z,1\n")
    pg.land("2026-11-01_003_quoting.csv", raw="\ufeff" + header + "\r\n"
            '"q1",sale,"co,1","o""1",i1,100,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1\r\n'
            "\r\n"
            'q2,sale,co1,"o,2",i2,200,EUR,2026-11-01 10:00:00,2026-11-01 11:00:00,1\r\n'
            "q3,sale,co1,o1,i3,300,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1,\r\n")
    pg.land("2026-11-01_004_empty.csv", raw="")
    pg.land("2026-11-01_005_headeronly.csv", [])
    pg.run_ok()
    quarantined = dict(pg.query("select reason, source_line from quarantined_events where source_file like '%main.csv'"))
    assert quarantined == {reason: index + 3 for index, reason in enumerate(MALFORMED)}
    assert sorted(pg.query(
        "select source_line, reason from quarantined_events where source_file = '2026-11-01_002_broken.csv'"
    )) == [(2, "malformed_row"), (3, "invalid_amount"), (4, "invalid_event_time"), (5, "invalid_event_time")]
    assert sorted(pg.query(
        "select event_id, company_id, order_id, source_line from stg_landing__events"
        " where source_file = '2026-11-01_003_quoting.csv'"
    )) == [("q1", "co,1", 'o"1', 2), ("q2", "co1", "o,2", 3), ("q3", "co1", "o1", 4)]
    assert pg.net_total() == 500 + 100 + 200 + 300
    assert pg.scalar("select count(*) from stg_landing__events") == len(rows) + 4 + 3
    pg.build()  # the empty and header-only files are listed again and load nothing
    assert pg.scalar("select count(*) from stg_landing__events") == len(rows) + 4 + 3


def test_late_row_waits_then_a_correction_applies_it(pg: PostgresPipeline) -> None:
    """A 290 h late row waits; a correction applies it (same run), a full refresh keeps it, a later late row waits."""
    pg.land("2026-11-01_001_main.csv", [event("A", 100), event("L", 700, order_item_id="i7", **LATE)])
    pg.run_ok()
    assert pg.net_total() == 100
    assert pg.query("select event_id, status, lateness_seconds from late_events") == [("L", "waiting", 290 * 3600)]
    pg.run_ok(vars={"correct_from": "2026-10-19", "correct_to": "2026-10-21"})
    assert pg.net_total() == 800
    assert pg.query("select status, applied_by_correction_id is not null from late_events") == [("applied", True)]
    assert pg.scalar("select sum(amount_cents) from fct_revenue_ledger") == 800
    corrected = pg.business_state()
    pg.run_ok(vars={"correct_from": "2026-10-19", "correct_to": "2026-10-21"})
    assert pg.scalar("select count(*) from int_corrections_recorded") == 1
    pg.run_ok("--full-refresh")
    assert pg.business_state() == corrected
    pg.land("2026-11-02_001_main.csv", [
        event("M", 50, order_item_id="i8", event_time="2026-10-20T11:00:00Z", ingested_at="2026-11-02T12:00:00Z"),
    ])
    pg.build()
    assert pg.business_state() == corrected
    assert pg.query("select event_id, status from late_events order by event_id") == [("L", "applied"), ("M", "waiting")]


def test_rerun_changes_nothing_and_full_refresh_agrees(pg: PostgresPipeline) -> None:
    """Incremental history, a re-run (nothing posted, no stamp moved) and a full refresh give the same tables."""
    pg.land("2026-11-01_001_main.csv", [event("A", 100), event("B", 200, order_item_id="i2"),
                                       event("C", 50, event_type="refund", order_item_id="i2")])
    pg.run_ok()
    pg.land("2026-11-02_001_main.csv", [
        event("A", 150, version=2, ingested_at="2026-11-01T12:00:00Z"),
        event("D", 400, company_id="co2", currency="USD", event_time="2026-11-02T01:00:00Z",
              ingested_at="2026-11-02T02:00:00Z"),
    ])
    pg.run_ok()
    incremental = pg.business_state()
    ledger = pg.table("fct_revenue_ledger")
    copies = pg.table("int_event_copies_classified")
    pg.run_ok()
    assert pg.business_state() == incremental
    assert pg.table("fct_revenue_ledger") == ledger
    assert pg.table("int_event_copies_classified") == copies
    pg.build("--full-refresh")
    assert pg.business_state() == incremental
    assert pg.table("fct_revenue_ledger") == ledger
    assert pg.net_total() == 150 + 200 - 50 + 400


def test_failure_before_commit_rolls_back_on_postgres(pg: PostgresPipeline) -> None:
    """An injected fault after fct_daily_revenue's write rolls back its data and progress; the retry converges."""
    pg.land("2026-11-01_001_main.csv", [event("A", 100)])
    pg.run_ok()
    before = pg.table("fct_daily_revenue")
    pg.land("2026-11-02_001_main.csv", [event("B", 200, order_item_id="i2", event_time="2026-11-02T10:00:00Z",
                                               ingested_at="2026-11-02T11:00:00Z")])
    failed = pg.run(vars={"rerun_safe_fail_model": "fct_daily_revenue"})
    assert not failed.success
    assert failed.status_of("fct_daily_revenue") == "error"
    assert "injected fault in fct_daily_revenue" in failed.messages[
        next(k for k in failed.messages if k.endswith(".fct_daily_revenue"))]
    assert pg.table("fct_daily_revenue") == before
    assert pg.query("select status from rerun_safe_runs order by run_seq desc limit 1") == [("failed",)]
    pg.build()
    assert pg.net_total() == 300
    assert pg.scalar("select sum(amount_cents) from fct_revenue_ledger") == 300


def test_duckdb_and_postgres_build_identical_tables(tmp_path: Path, pg: PostgresPipeline) -> None:
    """The same generated deliveries, day by day, then a correction: identical business tables,
    quarantine, late queue and ledger on both engines (`engine_state`, the queries the Spark
    target is held to as well), and identical staged row ids (same file ids)."""
    deliveries = tmp_path / "deliveries"
    generate(GeneratorConfig(days=3, events_per_day=100), deliveries)
    duck = Pipeline(tmp_path / "duck")
    days = deliveries_by_day(deliveries)
    for files in days:
        duck.deliver(*files)
        pg.deliver(*files)
        assert duck.run().success
        pg.run_ok()
    correction = {"correct_from": "2026-10-01", "correct_to": days[0][0].name[:10]}
    assert duck.run(vars=correction).success
    pg.build(vars=correction)

    def state(pipeline: Pipeline) -> dict[str, list[tuple]]:
        staged = "select _row_id, _file_id, invalid_reason, payload_hash from stg_landing__events"
        return {**engine_state(pipeline), "staged": sorted(pipeline.query(staged), key=repr)}

    duck_state, pg_state = state(duck), state(pg)
    assert len(duck_state["items"]) > 100 and duck_state["quarantine"] and duck_state["late"] and duck_state["ledger"]
    assert any(status == "applied" for _id, status, *_ in duck_state["late"]), "the correction applied nothing"
    for name in duck_state:
        assert pg_state[name] == duck_state[name], f"{name} differs between DuckDB and Postgres"


INDEXED_COLUMNS = """
    select table_row.relname, string_agg(attribute.attname, ',' order by key.position)
    from pg_index as index_row
    inner join pg_class as table_row on index_row.indrelid = table_row.oid
    cross join lateral unnest(index_row.indkey) with ordinality as key (attnum, position)
    inner join pg_attribute as attribute on attribute.attrelid = table_row.oid and attribute.attnum = key.attnum
    where table_row.relnamespace = current_schema()::regnamespace
    group by table_row.relname, index_row.indexrelid
"""


def manual_analyzes(pg: PostgresPipeline, expect: int) -> dict[str, int]:
    """Tables of the pipeline's schema with a manual ANALYZE, and how many. The statistics views
    lag a finished transaction by up to a second: read again until a table shows `expect`."""
    sql = "select relname, analyze_count from pg_stat_user_tables where schemaname = current_schema() and analyze_count > 0"
    deadline = time.monotonic() + 15
    while True:
        counts = dict(pg.query(sql))
        if expect in counts.values() or time.monotonic() > deadline:
            return counts
        time.sleep(0.5)


def test_history_lookups_have_their_indexes_and_a_table_without_them_gets_them(tmp_path: Path,
                                                                               pg: PostgresPipeline) -> None:
    """The models' Postgres-only `indexes` exist after a first build; dropped (a warehouse built
    before the models listed them; the ledger is never rebuilt), the next run creates them again
    (ensure_postgres_indexes) with the same tables. DuckDB builds none of them."""
    pg.land("2026-11-01_001_main.csv", [event("A", 100), event("B", 200, order_item_id="i2")])
    pg.run_ok()
    built = sorted(pg.query(INDEXED_COLUMNS))
    assert ("int_event_copies_classified", "event_key") in built
    assert ("int_event_copies_classified", "_written_run_seq") in built
    assert ("fct_revenue_ledger", "event_key") in built
    assert ("stg_landing__events", "_file_id") in built
    assert ("stg_landing__events", "_row_id") in built  # ensure_unique_staged_rows
    connection = pg.connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "select indexrelid::regclass::text from pg_index where not indisunique"
                " and indrelid::regclass::text in ('fct_revenue_ledger', 'int_event_copies_classified')"
            )
            for (index,) in cursor.fetchall():
                cursor.execute(f"drop index {index}")
        connection.commit()
    finally:
        connection.close()
    assert not [row for row in pg.query(INDEXED_COLUMNS) if row[0] in ("fct_revenue_ledger", "int_event_copies_classified")]
    pg.land("2026-11-02_001_main.csv", [event("A", 150, version=2, ingested_at="2026-11-02T11:00:00Z"),
                                       event("C", 50, order_item_id="i3", event_time="2026-11-02T10:00:00Z",
                                             ingested_at="2026-11-02T11:00:00Z")])
    pg.run_ok()
    assert sorted(pg.query(INDEXED_COLUMNS)) == built
    assert pg.net_total() == 400
    # analyze_on_postgres: staging and the copies are analyzed by the run itself (each run's stamps
    # lie above what the last ANALYZE saw), the others only by autovacuum (counted apart)
    assert manual_analyzes(pg, expect=2) == {"stg_landing__events": 2, "int_event_copies_classified": 2}
    duck = Pipeline(tmp_path / "duck")
    duck.land("2026-11-01_001_main.csv", [event("A", 100)])
    assert duck.run().success
    assert duck.query("select count(*) from duckdb_indexes()") == [(0,)]
