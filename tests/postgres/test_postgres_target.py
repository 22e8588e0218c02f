"""Postgres against DuckDB, and what only Postgres has (`--target postgres`, a throw-away
cluster: conftest.py): DuckDB and Postgres build identical tables from the same generated
deliveries (the Spark lanes' scenario), and the history lookups' indexes exist and come back.

The pipeline scenarios themselves run on Postgres from tests/pipeline (`engine_pipeline`,
tests/pipeline/engines.py: each scenario once per engine). Adapter-specific SQL lives in
dispatched macros (macros/cross_db, macros/pipeline/landing, macros/incremental); those scenarios
and these tests are what proves the `postgres__` side of them.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.pipeline.project import Pipeline, event
from tests.postgres.project import PostgresPipeline
from tests.postgres.server import PostgresServer
from tests.spark.scenarios import engine_equality


@pytest.fixture
def pg(tmp_path: Path, postgres_server: PostgresServer) -> PostgresPipeline:
    return PostgresPipeline(tmp_path / "pg", postgres_server)


def test_duckdb_and_postgres_build_identical_tables(tmp_path: Path, pg: PostgresPipeline) -> None:
    """The engine comparison the Spark lanes run (tests/spark/scenarios/engine_equality.py), on
    Postgres: generated deliveries with every pathology, day by day, then a correction; staged
    rows and delivery verdicts equal DuckDB's after every day (row ids, file ids, payload hashes,
    reason codes included), and at the end the business tables, quarantine, late queue and
    ledger (posting ids included)."""
    engine_equality.generated_deliveries_build_identically(tmp_path, pg)


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
    sql = (
        "select relname, analyze_count from pg_stat_user_tables"
        " where schemaname = current_schema() and analyze_count > 0"
    )
    deadline = time.monotonic() + 15
    while True:
        counts = dict(pg.query(sql))
        if expect in counts.values() or time.monotonic() > deadline:
            return counts
        time.sleep(0.5)


def test_history_lookups_have_their_indexes_and_a_table_without_them_gets_them(
    tmp_path: Path, pg: PostgresPipeline
) -> None:
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
    assert not [
        row for row in pg.query(INDEXED_COLUMNS) if row[0] in ("fct_revenue_ledger", "int_event_copies_classified")
    ]
    pg.land(
        "2026-11-02_001_main.csv",
        [
            event("A", 150, version=2, ingested_at="2026-11-02T11:00:00Z"),
            event("C", 50, order_item_id="i3", event_time="2026-11-02T10:00:00Z", ingested_at="2026-11-02T11:00:00Z"),
        ],
    )
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
