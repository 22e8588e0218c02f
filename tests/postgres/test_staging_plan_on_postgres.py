"""Staging on Postgres computes each value once per row, as the plan of its SELECT shows.

Postgres pulls a simple subquery up into the query above it and pastes the subquery's
expression at every reference to its column (it has no common-subexpression elimination). The
staging model ends its CTEs, and postgres__csv_records_of its records, with
rerun_safe.compute_once() (`offset 0` on Postgres), so a record is split into fields once and
each key is checked once. Without it the plan of a 9-file batch split each record 66 times
(594 string_to_array calls for 9 files) and checked each key 7 times (28 checks of the
invisible-character class for 4 keys): the staging build of a 20k-event day took 58 s instead
of 3.7 s (docs/decisions/2026-12-06-bench-postgres.md). And a full build reads each header's files by one lateral
scan (memory freed between files), with the same rows as the per-file scan.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pipeline.project import event
from tests.postgres.project import PostgresPipeline
from tests.postgres.server import PostgresServer

HEADER = "event_id,event_type,company_id,order_id,order_item_id,amount_cents,currency,event_time,ingested_at,version"
# the last range of has_blank_or_control's class, as Postgres writes it: once per key checked
KEY_CHECK = r"\U000e0020-\U000e007f"


@pytest.fixture
def pg(tmp_path: Path, postgres_server: PostgresServer) -> PostgresPipeline:
    return PostgresPipeline(tmp_path / "pg", postgres_server)


def test_incremental_staging_splits_each_record_once_and_checks_each_key_once(pg: PostgresPipeline) -> None:
    pg.land("2026-11-01_001_main.csv", [event("A", 100), event("B", 200, order_item_id="i2")])
    pg.run_ok()
    pg.land("2026-11-02_001_plain.csv", [event("C", 300, order_item_id="i3")])
    pg.land(
        "2026-11-02_002_quoted.csv",
        raw=HEADER + '\n"D",sale,"co,1","o""1",i4,400,EUR,2026-11-02T10:00:00Z,2026-11-02T11:00:00Z,1\n',
    )
    pg.run_ok()
    compiled = pg.target_path / "compiled" / "rerun_safe" / "models" / "staging" / "stg_landing__events.sql"
    sql = compiled.read_text()
    assert sql.count("pg_read_binary_file(") == 2, "this run reads the two new deliveries"
    plan = "\n".join(row[0] for row in pg.query("explain (verbose) " + sql))
    assert plan.count("string_to_array(") == 2, "each delivery's records split into fields once"
    assert plan.count(KEY_CHECK) == 4, "each of the four keys checked once"
    # and the rows are read as DuckDB reads them (tests/bad_input compares the odd files)
    assert sorted(
        pg.query(
            "select event_id, company_id, order_id, source_line from stg_landing__events"
            " where source_file like '2026-11-02_%'"
        )
    ) == [("C", "co1", "o1", 2), ("D", "co,1", 'o"1', 2)]


def test_full_build_reads_each_header_group_in_one_lateral_scan(pg: PostgresPipeline) -> None:
    """A full build reads the files of each distinct header by one lateral scan over their list
    (postgres__scan_landing_files_at_once: memory freed between files), and reads them as the
    per-file scan does: the reordered file's columns by name, quoted fields, record numbers."""
    pg.land("2026-11-01_001_main.csv", [event("A", 100), event("B", 200, order_item_id="i2")])
    pg.land(
        "2026-11-01_002_quoted.csv",
        raw=HEADER + '\n\n"C",sale,"co,1","o""1",i3,300,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1\n',
    )
    reordered = ",".join(reversed(HEADER.split(",")))
    pg.land(
        "2026-11-01_003_reordered.csv",
        raw=reordered + "\n1,2026-11-01T11:00:00Z,2026-11-01T10:00:00Z,EUR,400,i4,o4,co4,sale,D\n",
    )
    pg.run_ok()
    compiled = pg.target_path / "compiled" / "rerun_safe" / "models" / "staging" / "stg_landing__events.sql"
    assert compiled.read_text().count("pg_read_binary_file(listed.path)") == 2, "one scan per distinct header"
    assert sorted(
        pg.query(
            "select event_id, company_id, order_id, order_item_id, amount_cents, source_file, source_line"
            " from stg_landing__events"
        )
    ) == [
        ("A", "co1", "o1", "i1", 100, "2026-11-01_001_main.csv", 2),
        ("B", "co1", "o1", "i2", 200, "2026-11-01_001_main.csv", 3),
        ("C", "co,1", 'o"1', "i3", 300, "2026-11-01_002_quoted.csv", 2),
        ("D", "co4", "o4", "i4", 400, "2026-11-01_003_reordered.csv", 2),
    ]
