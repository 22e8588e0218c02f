"""`dbt run-operation rerun_safe_maintain` (macros/maintenance): on a DuckDB warehouse whose
merges and replace_keys left deleted rows in storage, it rewrites every incremental table past
the threshold without them, keeping every row, in the order its model declares
(meta.rerun_safe.layout_order); the next build goes on as if nothing happened. A bad argument
stops it before any write, naming the argument; a dry run only reports."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from tests.pipeline.project import Pipeline, event

MAINTAIN = "rerun_safe_maintain"
STORED = (
    "select coalesce(sum(stored), 0) from (select max(start + count) - min(start) as stored"
    " from pragma_storage_info('{table}') where column_id = 0 and column_path = '[0]' group by row_group_id)"
)


def deleted_rows(pipeline: Pipeline, table: str) -> int:
    """Rows still stored in the table's row groups but deleted."""
    stored = pipeline.scalar(STORED.format(table=table))
    return int(stored) - int(pipeline.scalar(f"select count(*) from {table}"))


def every_table(pipeline: Pipeline) -> dict[str, tuple[int, int]]:
    """Each table's row count and the sum of its rows' hashes (a multiset fingerprint)."""
    names = pipeline.query(
        "select table_name from information_schema.tables where table_schema = current_schema()"
        " and table_type = 'BASE TABLE' order by 1"
    )
    return {
        name: pipeline.query(f"select count(*), coalesce(sum(hash(t)::hugeint), 0) from {name} as t")[0]
        for (name,) in names
    }


def operation(pipeline: Pipeline, log_dir: Path, args: str | None = None) -> tuple[bool, list[str]]:
    """The operation's success and the lines it logged (dbt's JSON file log)."""
    extra = ["--args", args] if args is not None else []
    result = pipeline.dbt("run-operation", MAINTAIN, *extra, "--log-path", str(log_dir), "--log-format-file", "json")
    records = [json.loads(line) for line in (log_dir / "dbt.log").read_text().splitlines()]
    return result.success, [r["info"]["msg"] for r in records if r["info"]["level"] in ("info", "error")]


@pytest.fixture(scope="module")
def grown(tmp_path_factory: pytest.TempPathFactory) -> Pipeline:
    """Two runs, then deleted rows as a grown warehouse keeps them. DuckDB rewrites a small
    table's row group whenever a run appends to it (deleted rows dropped): deletes stay only in
    full row groups of 122,880 rows, as in a large history. Here each of two tables gets its rows
    stored a second time (the copies in reverse day order), and the first ones deleted, in a
    checkpoint of its own: the same rows, a third of the stored ones deleted."""
    pipeline = Pipeline(tmp_path_factory.mktemp("maintain"))
    pipeline.land("2026-11-01_001_main.csv", [event(f"e{k}", 100 + k, order_item_id=f"i{k}") for k in range(30)])
    pipeline.run_ok()
    revised = [
        event(
            f"e{k}",
            200 + k,
            order_item_id=f"i{k}",
            event_time="2026-11-02T10:00:00Z",
            ingested_at="2026-11-02T11:00:00Z",
            version=2,
        )
        for k in range(10)
    ]
    pipeline.land("2026-11-02_001_main.csv", revised)
    pipeline.run_ok()
    con = duckdb.connect(str(pipeline.warehouse))
    try:
        for table, order in [
            ("fct_order_items", ""),
            ("int_event_copies_classified", " order by revenue_date desc, event_key desc"),
        ]:
            rows = con.execute(f"select count(*) from {table}").fetchall()[0][0]
            con.execute(f"insert into {table} select * from {table}{order}")
            con.execute("checkpoint")
            con.execute(f"delete from {table} where rowid < {rows}")
            con.execute("checkpoint")
    finally:
        con.close()
    return pipeline


def test_a_bad_argument_stops_before_any_write_naming_it(grown: Pipeline, tmp_path: Path) -> None:
    before = deleted_rows(grown, "fct_order_items")
    assert before > 0
    for n, (args, named) in enumerate(
        [
            ("{min_deleted_percent: 101}", "min_deleted_percent must be a whole number from 0 to 100; got 101"),
            ("{min_deleted_percent: '5; drop table x'}", "min_deleted_percent must be a whole number"),
            ("{min_deleted_percent: true}", "min_deleted_percent must be a whole number from 0 to 100; got True"),
            ("{dry_run: 'yes'}", "dry_run must be true or false; got yes"),
        ]
    ):
        ok, logged = operation(grown, tmp_path / str(n), args)
        assert not ok and any(named in line for line in logged), logged
        assert not any("rewritten in" in line for line in logged), logged
    assert deleted_rows(grown, "fct_order_items") == before


def test_a_dry_run_reports_what_is_due_and_writes_nothing(grown: Pipeline, tmp_path: Path) -> None:
    before = deleted_rows(grown, "fct_order_items")
    ok, logged = operation(grown, tmp_path, "{min_deleted_percent: 0, dry_run: true}")
    assert ok, logged
    assert any(line.startswith(f"{MAINTAIN}: main.fct_order_items: ") and "due (dry run" in line for line in logged)
    assert any(line.startswith(f"{MAINTAIN}: 0 of ") for line in logged), logged
    assert deleted_rows(grown, "fct_order_items") == before


def test_maintenance_removes_deleted_rows_keeps_every_row_and_the_next_build_goes_on(
    grown: Pipeline, tmp_path: Path
) -> None:
    tables = every_table(grown)
    due = [name for name in tables if deleted_rows(grown, name) > 0]
    assert set(due) == {"fct_order_items", "int_event_copies_classified"}, due
    in_storage_order = grown.query("select item_key from fct_order_items")
    # a threshold above every table's share keeps them all
    ok, logged = operation(grown, tmp_path / "high", "{min_deleted_percent: 100}")
    assert ok and not any("rewritten in" in line for line in logged), logged
    assert all(deleted_rows(grown, name) > 0 for name in due)

    ok, logged = operation(grown, tmp_path / "zero", "{min_deleted_percent: 0}")
    assert ok, logged
    rewritten = {line.split(": ")[1].split(".")[1] for line in logged if line.endswith(" s") and "rewritten in" in line}
    assert rewritten == set(due), logged
    assert {name: deleted_rows(grown, name) for name in due} == dict.fromkeys(due, 0)
    assert every_table(grown) == tables  # every row kept, no other
    # no meta.rerun_safe.layout_order: the rows keep the order they were stored in
    assert grown.query("select item_key from fct_order_items") == in_storage_order
    # the copies' layout_order: by day and key again (they were stored in reverse)
    stored = grown.query("select revenue_date, event_key from int_event_copies_classified")
    assert stored == sorted(stored) and stored != sorted(stored, reverse=True)

    ok, logged = operation(grown, tmp_path / "again")
    assert ok and any(f"{MAINTAIN}: 0 of " in line for line in logged), logged  # nothing left to do

    grown.land(
        "2026-11-03_001_main.csv",
        [event("n1", 700, order_item_id="n1", event_time="2026-11-03T10:00:00Z", ingested_at="2026-11-03T11:00:00Z")],
    )
    grown.run_ok()
    clean = Pipeline(tmp_path / "clean")  # the same deliveries, built in one run
    clean.deliver(*sorted(grown.landing.iterdir()))
    clean.run_ok()
    assert grown.business_state() == clean.business_state()
