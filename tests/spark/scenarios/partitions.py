"""The two keyed marts that Spark rewrites by partition (docs/engines.md, "Spark"), in either
lane (`spark`: a SparkPipeline or a ClusterPipeline; the test lists the partition folders of the
warehouse, which the executors write on the cluster): fct_order_items by the item's first event
day, quarantined_events by the run that staged the row.

A run rewrites only the partitions its rows touch, plus those a touched key's old row lies on:
an item whose first event day moves (an earlier event arrives) or that loses its last event
(its event moves to another item) leaves its old day, and no day it does not touch is written
(the second run leaves the first run's quarantine partition and item i8's day as they were).
The tables equal DuckDB's, where the same models carry no partition column.
"""

from __future__ import annotations

from pathlib import Path

from tests.pipeline.project import Pipeline, event
from tests.spark.project import LanePipeline

ITEMS = (
    "select company_id, order_item_id, order_id, currency, first_event_time, last_event_time, gross_cents,"
    " refunded_cents, net_cents, event_count from fct_order_items"
)  # item_key: the engine's type
QUARANTINE = (
    "select quarantine_id, reason, source_file, source_line, event_id, amount_cents, ingested_at"
    " from quarantined_events"
)


def partition_files(spark: LanePipeline, table: str) -> dict[str, list[str]]:
    """partition folder name -> its data files (a rewrite writes new file names)."""
    folders = sorted(spark.spark_dir.glob(f"warehouse/{spark.schema}.db/{table}/*=*"))
    assert folders, f"{table} has no partition folder: not partitioned on Spark"
    return {folder.name: sorted(p.name for p in folder.glob("part-*")) for folder in folders}


def moved_keys_leave_their_old_partition(tmp_path: Path, spark: LanePipeline) -> None:
    duck = Pipeline(tmp_path / "duck")
    day1 = [
        event("A", 1000, order_item_id="i1", event_time="2026-11-02T10:00:00Z", ingested_at="2026-11-02T11:00:00Z"),
        event("B", 2000, order_item_id="i2", event_time="2026-11-01T10:00:00Z", ingested_at="2026-11-02T11:00:00Z"),
        event("D", 3000, order_item_id="i5", event_time="2026-10-31T09:00:00Z", ingested_at="2026-11-02T11:00:00Z"),
        event("E", 700, order_item_id="i8", event_time="2026-10-30T15:00:00Z", ingested_at="2026-11-02T11:00:00Z"),
        event("X", "abc", order_item_id="i6"),
    ]
    day2 = [
        # i1's first event day moves from 11-02 to 10-31 (an earlier event, 48 h late: on time)
        event("C", 500, order_item_id="i1", event_time="2026-10-31T12:00:00Z", ingested_at="2026-11-02T12:00:00Z"),
        # B v2 moves to item i4: i2 has no event left, its row goes (day 11-01 now holds i4)
        event(
            "B",
            2000,
            order_item_id="i4",
            version=2,
            event_time="2026-11-01T10:00:00Z",
            ingested_at="2026-11-02T12:00:00Z",
        ),
        event("Y", "-5", order_item_id="i7"),
    ]
    for pipeline in (spark, duck):
        pipeline.land("2026-11-02_001_first.csv", day1)
    assert duck.run().success
    spark.run_ok()
    items_before = partition_files(spark, "fct_order_items")
    assert sorted(items_before) == [
        "first_event_date=2026-10-30",
        "first_event_date=2026-10-31",
        "first_event_date=2026-11-01",
        "first_event_date=2026-11-02",
    ]
    quarantine_before = partition_files(spark, "quarantined_events")
    assert len(quarantine_before) == 1

    for pipeline in (spark, duck):
        pipeline.land("2026-11-02_002_second.csv", day2)
    assert duck.run().success
    spark.run_ok()

    assert sorted(spark.query(ITEMS), key=repr) == sorted(duck.query(ITEMS), key=repr)
    assert sorted(spark.query(QUARANTINE), key=repr) == sorted(duck.query(QUARANTINE), key=repr)
    assert sorted(spark.query("select order_item_id, cast(first_event_date as string) from fct_order_items")) == [
        ("i1", "2026-10-31"),
        ("i4", "2026-11-01"),
        ("i5", "2026-10-31"),
        ("i8", "2026-10-30"),
    ]
    items_after = partition_files(spark, "fct_order_items")
    # 11-02 lost its only item (i1 moved to 10-31): the folder is gone, not left with a stale row
    assert sorted(items_after) == [
        "first_event_date=2026-10-30",
        "first_event_date=2026-10-31",
        "first_event_date=2026-11-01",
    ]
    # 10-31 (i1 arrived) and 11-01 (i2 left, i4 came) were rewritten ...
    assert items_after["first_event_date=2026-10-31"] != items_before["first_event_date=2026-10-31"]
    assert items_after["first_event_date=2026-11-01"] != items_before["first_event_date=2026-11-01"]
    # ... while i8's day and the first run's quarantine partition, untouched, kept their files
    assert items_after["first_event_date=2026-10-30"] == items_before["first_event_date=2026-10-30"]
    quarantine_after = partition_files(spark, "quarantined_events")
    (first_run,) = quarantine_before
    assert quarantine_after[first_run] == quarantine_before[first_run]
    assert len(quarantine_after) == 2
