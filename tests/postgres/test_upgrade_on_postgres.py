"""tests/pipeline/test_upgrade.py on a real PostgreSQL server: a warehouse built by the code
before schema versions (a git worktree of that commit) is refused by this code before any write,
upgraded by `dbt run-operation rerun_safe_upgrade` (in one transaction, under the registry lock
and the lease row), built on, and equals a clean build of this code; a second upgrade changes
nothing; a newer warehouse and a schema without a warehouse are refused."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.pipeline.test_upgrade import (  # noqa: F401  (old_code, deliveries, failing_upgrade_code: fixtures)
    check_a_failed_upgrade_commits_nothing,
    check_newer_warehouse_is_refused,
    check_upgrade_path,
    deliveries,
    every_table,
    execute,
    failing_upgrade_code,
    old_code,
    upgrade,
)
from tests.postgres.conftest import PostgresServer
from tests.pipeline.project import Pipeline
from tests.postgres.project import PostgresPipeline

LIVE_HOLDER = "00000000-0000-4000-8000-000000000001"  # a run that holds the lease and is alive


def test_a_warehouse_of_the_previous_code_upgrades_and_equals_a_clean_build_on_postgres(
    tmp_path: Path, postgres_server: PostgresServer, old_code: Path, deliveries: list[list[Path]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    def while_a_run_holds_it(pipeline: Pipeline) -> None:
        """A live run holds the lease (a fresh heartbeat): the upgrade refuses, naming it and the
        release command, and writes nothing; once released, the scenario goes on."""
        execute(pipeline, f"update rerun_safe_lease set holder_invocation_id = '{LIVE_HOLDER}',"
                          " heartbeat_at = now() at time zone 'utc'")
        before = every_table(pipeline)
        ok, output = upgrade(pipeline, capsys)
        assert not ok and f"another run ({LIVE_HOLDER}) holds the warehouse; the upgrade wrote nothing" in output, output
        assert f"release_warehouse_lease --args '{{invocation_id: {LIVE_HOLDER}}}'" in output, output
        assert every_table(pipeline) == before
        released = pipeline.dbt("run-operation", "release_warehouse_lease", "--args", f"{{invocation_id: {LIVE_HOLDER}}}")
        assert released.success

    upgraded = PostgresPipeline(tmp_path / "upgraded", postgres_server)
    check_upgrade_path(upgraded, PostgresPipeline(tmp_path / "clean", postgres_server), old_code, deliveries, capsys,
                       on_old_warehouse=while_a_run_holds_it)
    check_newer_warehouse_is_refused(upgraded, capsys)


def test_the_upgrade_refuses_a_schema_without_a_warehouse_on_postgres(
    tmp_path: Path, postgres_server: PostgresServer, capsys: pytest.CaptureFixture[str],
) -> None:
    pipeline = PostgresPipeline(tmp_path / "empty", postgres_server)
    pipeline.shares_parse = False
    ok, output = upgrade(pipeline, capsys)
    assert not ok and f"no warehouse in schema {pipeline.schema} (no rerun_safe_runs table): nothing to upgrade" in output, output
    assert every_table(pipeline) == {}
    assert postgres_server.query(f"select count(*) from pg_namespace where nspname = '{pipeline.schema}'") == [(0,)]


def test_a_failed_upgrade_commits_nothing_on_postgres(
    tmp_path: Path, postgres_server: PostgresServer, old_code: Path, failing_upgrade_code: Path,
    deliveries: list[list[Path]], capsys: pytest.CaptureFixture[str],
) -> None:
    check_a_failed_upgrade_commits_nothing(PostgresPipeline(tmp_path / "failed", postgres_server), old_code,
                                           failing_upgrade_code, deliveries, capsys)
