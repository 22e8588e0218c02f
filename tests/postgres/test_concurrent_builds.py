"""Builds at once on a real server: one writer at a time, nothing doubled, never stuck.

On Postgres, unlike DuckDB's one-writer file, two `dbt build` processes really interleave.
The warehouse lease (macros/audit/begin_run.sql) must serialise them: every build
either waits for the lease and then builds, or is refused before it writes anything, and the
tables always equal a clean build. The repair test starts from the state the lease prevents
(the same deliveries staged twice) and shows that the documented repair command restores the
clean-build tables, keeping corrections and the ledger history.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pipeline_demo.generate import GeneratorConfig, generate
from tests.pipeline.project import PROJECT_DIR, Pipeline, assert_every_kind, deliveries_by_day, event
from tests.postgres.project import PostgresPipeline
from tests.postgres.server import PostgresServer

DBT = str(Path(sys.executable).with_name("dbt"))
DAYS = 3  # an empty warehouse, an incremental day, an incremental day with a correction
BUILDS = 3  # two that wait for the lease, one between them that refuses at once
BUILD_TIMEOUT_S = 900
REFUSED = "holds the warehouse"
REPAIR = ["--full-refresh", "--select", "stg_landing__deliveries+"]

# Everything a build publishes or keeps, without the run-number stamps (volatile by design).
STATE = {
    "items": "select company_id, order_item_id, order_id, currency, gross_cents, refunded_cents, net_cents,"
    " event_count, first_event_time, last_event_time from fct_order_items",
    "days": "select company_id, revenue_date, currency, gross_cents, refunded_cents, net_cents, event_count"
    " from fct_daily_revenue",
    "ledger": "select posting_id, posting_type, reverses_posting_id, event_id, revenue_date, currency, amount_cents"
    " from fct_revenue_ledger",
    "late": "select late_event_id, status, lateness_seconds from late_events",
    "quarantine": "select quarantine_id, reason, source_file, source_line from quarantined_events",
    "copies": "select copy_id, copy_status, row_count, applied_by_correction_id from int_event_copies_classified",
    "staged": "select _row_id, _file_id, invalid_reason, payload_hash from stg_landing__events",
    "corrections": "select correction_id, correct_from, correct_to, mark from int_corrections_recorded",
}


def state(pipeline: Pipeline) -> dict[str, list[tuple]]:
    return {name: sorted(pipeline.query(sql), key=repr) for name, sql in STATE.items()}


class Warehouse(PostgresPipeline):
    """A PostgresPipeline that can also start `dbt build` as separate processes."""

    def spawn(self, name: str, *args: str, vars: dict[str, Any] | None = None) -> subprocess.Popen:
        env = {
            **os.environ,
            "RERUN_SAFE_PG_HOST": self.server.host,
            "RERUN_SAFE_PG_PORT": str(self.server.port),
            "RERUN_SAFE_PG_USER": self.server.user,
            "RERUN_SAFE_PG_DBNAME": self.server.dbname,
            "RERUN_SAFE_PG_SCHEMA": self.schema,
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        }
        argv = [
            DBT,
            "build",
            "--project-dir",
            str(PROJECT_DIR),
            "--profiles-dir",
            str(PROJECT_DIR),
            "--target",
            "postgres",
            "--target-path",
            str(self.root / f"target_{name}"),
            "--log-path",
            str(self.root / f"logs_{name}"),
            "--vars",
            json.dumps({"landing_path": str(self.landing), **(vars or {})}),
            *args,
        ]
        return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def execute(self, sql: str) -> None:
        connection = self.connect()
        try:
            with connection.cursor() as cursor:
                cursor.execute(sql)
            connection.commit()
        finally:
            connection.close()

    def query_or_none(self, sql: str) -> list[tuple]:
        """`query`, or nothing while the table does not exist yet."""
        import psycopg2

        try:
            return self.query(sql)
        except psycopg2.errors.UndefinedTable:
            return []


@pytest.fixture(scope="module")
def deliveries(tmp_path_factory: pytest.TempPathFactory) -> list[list[Path]]:
    """DAYS days of generated deliveries, by day: redeliveries, resends, versions, moves, conflicts,
    late and malformed rows (seed 3 has them all in 3 days; seed 14 in 5 days had no conflict)."""
    folder = tmp_path_factory.mktemp("concurrent_deliveries")
    summary = generate(GeneratorConfig(days=DAYS, events_per_day=40, seed=3), folder)
    assert_every_kind(summary.pathologies)
    return deliveries_by_day(folder)


def day_vars(deliveries: list[list[Path]], index: int) -> dict[str, str]:
    """The last day also records a correction of the late rows before the first day."""
    if index < len(deliveries) - 1:
        return {}
    return {"correct_from": "2026-10-01", "correct_to": deliveries[0][0].name[:10]}


@dataclass
class CleanBuild:
    warehouse: Warehouse  # the last test to use it may damage it (the repair test)
    states: list[dict[str, list[tuple]]]  # the state after each day


@pytest.fixture(scope="module")
def clean_build(
    tmp_path_factory: pytest.TempPathFactory, postgres_server: PostgresServer, deliveries: list[list[Path]]
) -> CleanBuild:
    """The clean build: one run per day, alone; the last day a build, whose data tests check
    the state the days end with (the days before it `dbt run`: models only)."""
    pipeline = Warehouse(tmp_path_factory.mktemp("clean"), postgres_server)
    states = []
    for index, files in enumerate(deliveries):
        pipeline.deliver(*files)  # same names, sizes and mtimes: same file ids
        last = index == len(deliveries) - 1
        (pipeline.build if last else pipeline.run_ok)(vars=day_vars(deliveries, index))
        states.append(state(pipeline))
    # what the builds must agree on includes every kind of copy and late row (seed 3 has them in 3 days)
    assert {row[1] for row in states[-1]["copies"]} >= {"current", "superseded", "conflicting", "late_waiting"}
    assert {row[1] for row in states[-1]["late"]} == {"applied", "waiting"}
    return CleanBuild(pipeline, states)


@pytest.fixture(scope="module")
def clean(clean_build: CleanBuild) -> list[dict[str, list[tuple]]]:
    """The clean build's state after each day."""
    return clean_build.states


def finish(processes: list[subprocess.Popen]) -> list[tuple[int, str]]:
    return [(p.wait(timeout=BUILD_TIMEOUT_S), p.stdout.read() if p.stdout else "") for p in processes]


def test_concurrent_builds_equal_a_clean_build(
    tmp_path: Path,
    postgres_server: PostgresServer,
    deliveries: list[list[Path]],
    clean: list[dict[str, list[tuple]]],
) -> None:
    """Each delivery day, BUILDS builds start together on an empty or incremental warehouse
    (the second refuses at once instead of waiting): the two that wait meet each other, and
    each meets the one that refuses. Every day the tables equal the clean build's; a refused
    build wrote nothing; the builds holding the lease never overlapped. (A fourth build, a
    second refuser, cost CI about 25 s and exercised nothing these 3 do not.)"""
    warehouse = Warehouse(tmp_path / "wh", postgres_server)
    for index, files in enumerate(deliveries):
        warehouse.deliver(*files)  # same names, sizes and mtimes: same file ids
        processes = [
            warehouse.spawn(
                f"day{index}_build{k}",
                vars={
                    **day_vars(deliveries, index),
                    **({"rerun_safe_lock_timeout_seconds": 0} if k % 2 else {}),
                },
            )
            for k in range(BUILDS)
        ]
        outcomes = finish(processes)
        for k, (code, output) in enumerate(outcomes):
            waits = k % 2 == 0
            assert code == 0 or (not waits and REFUSED in output), f"day {index} build {k} failed:\n{output[-3000:]}"
        assert state(warehouse) == clean[index], f"day {index}: the tables differ from the clean build"

    runs = warehouse.query(
        "select invocation_id, status, started_at, finished_at, waited_seconds from rerun_safe_runs order by run_seq"
    )
    assert len(runs) == DAYS * BUILDS
    refused = {invocation for invocation, status, *_ in runs if status == "refused"}
    assert {status for _, status, *_ in runs} <= {"success", "refused"}
    # The run log records every build that lost the race: refused, or waited.
    assert refused or any(waited and waited > 0 for *_, waited in runs), "no build ever waited: they did not overlap"
    # A refused build wrote nothing: no model progress, no staged row carries its number.
    writers = {invocation for (invocation,) in warehouse.query("select distinct invocation_id from rerun_safe_run_log")}
    assert not writers & refused
    assert (
        warehouse.scalar(
            "select count(*) from stg_landing__events where _loaded_run_seq in"
            " (select run_seq from rerun_safe_runs where status = 'refused')"
        )
        == 0
    )
    # One writer at a time: the builds that held the lease ran one after the other.
    held = sorted((started, finished) for _, status, started, finished, _ in runs if status != "refused")
    for (_, finished), (started, _) in itertools.pairwise(held):
        assert finished <= started, "two builds held the warehouse at the same time"


def test_a_held_lease_refuses_waits_is_taken_over_and_released(tmp_path: Path, postgres_server: PostgresServer) -> None:
    """A live holder: the run waits the timeout, is refused with the holder's id and start, and
    writes nothing. A stale holder is taken over. A dead holder is released by hand."""
    pg = Warehouse(tmp_path / "wh", postgres_server)
    pg.land("2026-11-01_001_main.csv", [event("A", 100)])
    pg.run_ok()  # models only until the last build, which runs the data tests
    before = state(pg)
    pg.land("2026-11-02_001_main.csv", [event("B", 200, order_item_id="i2")])
    live = (
        "update rerun_safe_lease set holder_invocation_id = 'a1b2c3d4-0000', holder_started_at = '2026-11-30 06:00:00',"
        " heartbeat_at = now() at time zone 'utc'"
    )
    pg.execute(live)
    started = time.monotonic()
    refused = pg.dbt("build", vars={"rerun_safe_lock_timeout_seconds": 2})
    assert time.monotonic() - started >= 2
    assert not refused.success
    message = refused.messages.get("dbt", "") + " ".join(refused.messages.values())
    assert "another run (a1b2c3d4-0000, started at 2026-11-30 06:00:00 UTC) holds the warehouse" in message
    assert "dbt run-operation release_warehouse_lease --args '{invocation_id: a1b2c3d4-0000}'" in message
    assert pg.query(
        "select status, waited_seconds >= 2, refused_by from rerun_safe_runs order by run_seq desc limit 1"
    ) == [("refused", True, "a1b2c3d4-0000")]
    assert state(pg) == before
    assert (
        pg.scalar(
            "select count(*) from rerun_safe_run_log where invocation_id ="
            " (select invocation_id from rerun_safe_runs where status = 'refused')"
        )
        == 0
    )

    # The holder stops showing signs of life: after the stale period its lease is taken over.
    pg.execute("update rerun_safe_lease set heartbeat_at = heartbeat_at - interval '10 seconds'")
    pg.run_ok(vars={"rerun_safe_lease_stale_seconds": 5})
    assert pg.query("select holder_invocation_id, taken_over_from from rerun_safe_lease") == [(None, "a1b2c3d4-0000")]
    assert pg.net_total() == 300

    # By hand: release a dead holder's lease; a live one is never released by mistake.
    pg.execute(live)
    assert pg.dbt("run-operation", "release_warehouse_lease", "--args", "{invocation_id: b0b0cafe-0000}").success
    assert pg.scalar("select holder_invocation_id from rerun_safe_lease") == "a1b2c3d4-0000"
    assert pg.dbt("run-operation", "release_warehouse_lease", "--args", "{invocation_id: a1b2c3d4-0000}").success
    assert pg.scalar("select holder_invocation_id from rerun_safe_lease") is None
    pg.build(vars={"rerun_safe_lock_timeout_seconds": 0})

    # the var's own bound, and a fraction as text (whole_number_var's other refusals, on DuckDB:
    # tests/bad_input/catalogue.py VAR_CASES)
    for bad in ("1.5", "90000"):
        result = pg.dbt("build", vars={"rerun_safe_lock_timeout_seconds": bad})
        assert not result.success
        assert "var rerun_safe_lock_timeout_seconds must be" in " ".join(result.messages.values())


def test_a_run_that_lost_its_lease_writes_nothing_more(tmp_path: Path, postgres_server: PostgresServer) -> None:
    """Another run takes the lease while a build is running (as after a stale period): the
    take-over waits for the model in flight to commit, and from then on the build's models fail
    in their first statement, before writing."""
    pg = Warehouse(tmp_path / "wh", postgres_server)
    pg.land("2026-11-01_001_main.csv", [event(f"E{i}", 100 + i, order_item_id=f"i{i}") for i in range(50)])
    process = pg.spawn("victim")
    deadline = time.monotonic() + BUILD_TIMEOUT_S
    while not pg.query_or_none("select 1 from rerun_safe_run_log where model = 'stg_landing__events'"):
        assert process.poll() is None, "the build ended before staging committed"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    pg.execute("update rerun_safe_lease set holder_invocation_id = 'thief-0000'")  # waits for models in flight
    stolen_at = pg.scalar("select now() at time zone 'utc'")
    ((code, output),) = finish([process])
    assert code != 0
    assert "does not hold the warehouse lease" in output
    victim = pg.scalar("select invocation_id from rerun_safe_runs where run_seq = 1")
    assert (
        pg.scalar(
            f"select count(*) from rerun_safe_run_log where invocation_id = '{victim}' and logged_at > '{stolen_at}'"
        )
        == 0
    )
    assert pg.scalar("select count(*) from rerun_safe_run_log") < 8, "every model committed: nothing was tested"


def test_repair_of_duplicated_staging_gives_the_clean_build(
    deliveries: list[list[Path]],
    clean_build: CleanBuild,
) -> None:
    """The state two unguarded builds left: one day's deliveries staged twice (in the clean
    build's warehouse, the module's last use of it). The next build fails, naming the
    inconsistency and the repair command; that command restores the clean build's tables, and
    keeps the corrections and the ledger history as they were."""
    pg, clean = clean_build.warehouse, clean_build.states
    assert state(pg) == clean[-1]
    ledger = pg.table("fct_revenue_ledger")
    corrections = pg.table("int_corrections_recorded")
    # the unique index on _row_id (the table has the lookups' indexes too); regclass quotes its name
    (index_name,) = pg.query(
        "select index_row.indexrelid::regclass::text from pg_index as index_row"
        " join pg_class as indexed on indexed.oid = index_row.indrelid"
        " join pg_namespace as ns on ns.oid = indexed.relnamespace"
        " where index_row.indisunique and indexed.relname = 'stg_landing__events'"
        f" and ns.nspname = '{pg.schema}'"
    )[0]
    pg.execute(f"drop index {index_name}")  # a warehouse from before the constraint
    pg.execute(
        "insert into stg_landing__events select * from stg_landing__events"
        " where source_file like '" + deliveries[DAYS // 2][0].name[:10] + "%'"
    )
    assert pg.scalar("select count(*) - count(distinct _row_id) from stg_landing__events") > 0

    stuck = pg.dbt("build")
    assert not stuck.success
    message = " ".join(stuck.messages.values())
    assert "the warehouse is inconsistent" in message
    assert "Repair: dbt build --full-refresh --select stg_landing__deliveries+" in message

    pg.build(*REPAIR)
    assert state(pg) == clean[-1]
    assert pg.table("fct_revenue_ledger") == ledger, "the repair changed the ledger history"
    assert pg.table("int_corrections_recorded") == corrections, "the repair changed the correction log"
    assert (
        pg.scalar(
            "select count(*) from pg_indexes where tablename = 'stg_landing__events'"
            f" and schemaname = '{pg.schema}' and indexdef like 'CREATE UNIQUE INDEX%'"
        )
        == 1
    )
    pg.build()
    assert state(pg) == clean[-1]


def test_repair_of_duplicated_staging_on_duckdb(tmp_path: Path, deliveries: list[list[Path]]) -> None:
    """The same on DuckDB, which has no unique index: the staged-rows test names the
    inconsistency and the repair; the repair gives the clean build (the state the day-by-day
    builds left before the damage), ledger and corrections kept."""
    pipeline = Pipeline(tmp_path / "repaired")
    for index, files in enumerate(deliveries):
        pipeline.deliver(*files)
        # models only: the repair, the test's last build, runs the data tests on this state
        pipeline.run_ok(vars=day_vars(deliveries, index))
    clean = state(pipeline)
    ledger = pipeline.table("fct_revenue_ledger")
    corrections = pipeline.table("int_corrections_recorded")
    pipeline.query(
        "insert into stg_landing__events select * from stg_landing__events"
        " where source_file like '" + deliveries[DAYS // 2][0].name[:10] + "%'"
    )

    stuck = pipeline.dbt("build")
    assert not stuck.success
    message = " ".join(stuck.messages.values())
    assert "the warehouse is inconsistent: stg_landing__events holds a _row_id more than once" in message
    assert "Repair: dbt build --full-refresh --select stg_landing__deliveries+" in message
    stuck = pipeline.run()  # without the data tests, the copies' balance check stops the run
    assert stuck.status_of("int_event_copies_classified") == "error"
    message = " ".join(stuck.messages.values())
    assert "the warehouse is inconsistent: valid staged rows != rows in copies" in message
    assert "Repair: dbt build --full-refresh --select stg_landing__deliveries+" in message

    pipeline.build(*REPAIR)
    assert state(pipeline) == clean
    assert pipeline.table("fct_revenue_ledger") == ledger
    assert pipeline.table("int_corrections_recorded") == corrections
