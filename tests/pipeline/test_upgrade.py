"""A warehouse built by the code before schema versions, upgraded, then built on: the same
tables as a clean build of this code (README, "Upgrading a warehouse").

The old code is the real one: the commit just before schema versions, checked out by the test
into a git worktree (`git worktree add --detach`) and run with this venv. It builds the first
days; this code must then refuse to build, writing nothing and naming the upgrade command;
`dbt run-operation rerun_safe_upgrade` migrates it keeping the ledger, the correction log, the
deliveries and the run log, and a second upgrade changes nothing; the next day's build then
gives the business tables, ledger, late queue, quarantine and correction log of a clean build of
this code on the same deliveries, day by day. Every engine (tests/pipeline/engines.py) runs the
same scenario; on Postgres the upgrade also runs in one transaction under the registry lock and
the lease row: while a live run holds the lease it refuses, naming the holder.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import duckdb
import pytest

from pipeline_demo.generate import GeneratorConfig, generate
from tests.pipeline import project
from tests.pipeline.engines import Engine, pipeline_on
from tests.pipeline.project import Pipeline, assert_every_kind, deliveries_by_day, engine_state
from tests.postgres.project import PostgresPipeline
from tests.postgres.server import PostgresServer

P = TypeVar("P", bound=Pipeline)

# The last commit before the warehouse recorded its schema version (version 0: no
# rerun_safe_schema_version table). Pinned: the test needs the code of that commit, not of a
# moving branch.
PRE_VERSION_COMMIT = "4c6ce1b3f033f015d4ae2b4253b652e6a50a4343"
CODE_VERSION = 1  # macros/upgrade/code_schema_version.sql
UPGRADE = "rerun_safe_upgrade"
DAYS = 3  # two days built by the old code, the next one after the upgrade


def day_vars(deliveries: list[list[Path]], index: int) -> dict[str, str]:
    """Day 1 (old code) and day 2 (this code) each record a correction of the late rows so far,
    so the correction log and the late queue hold rows of both codes."""
    if index == 0:
        return {}
    return {"correct_from": "2026-10-01", "correct_to": deliveries[index - 1][0].name[:10]}


@pytest.fixture(scope="module")
def deliveries(tmp_path_factory: pytest.TempPathFactory) -> list[list[Path]]:
    """Seed 3 holds every pathology in 3 days (tests/postgres/test_concurrent_builds.py)."""
    folder = tmp_path_factory.mktemp("upgrade_deliveries")
    summary = generate(GeneratorConfig(days=DAYS, events_per_day=40, seed=3), folder)
    assert_every_kind(summary.pathologies)
    return deliveries_by_day(folder)


@pytest.fixture(scope="module")
def old_code(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A checkout of PRE_VERSION_COMMIT, removed at the end. The commit must exist: CI's fresh
    full clone of main has it; a shallow or partial clone fails here, saying so (never skipped)."""
    repo = project.PROJECT_DIR
    found = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "-e", PRE_VERSION_COMMIT + "^{commit}"], capture_output=True, text=True
    )
    if found.returncode != 0:
        pytest.fail(
            f"the upgrade test needs commit {PRE_VERSION_COMMIT} (the code before schema versions) and this "
            f"clone does not have it ({found.stderr.strip() or 'git cat-file failed'}): the test runs in a full "
            "clone of main (git fetch --unshallow)",
            pytrace=False,
        )
    worktree = tmp_path_factory.mktemp("pre_version") / "checkout"
    added = subprocess.run(
        ["git", "-C", str(repo), "worktree", "add", "--detach", str(worktree), PRE_VERSION_COMMIT],
        capture_output=True,
        text=True,
    )
    assert added.returncode == 0, f"git worktree add failed: {added.stderr}"
    try:
        yield worktree
    finally:
        subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(worktree)], capture_output=True)
        subprocess.run(["git", "-C", str(repo), "worktree", "prune"], capture_output=True)


# This code with its one migration step failing after it wrote (a table, then a row): the whole
# upgrade must roll back.
STEP = "    {%- do run_query(rerun_safe.create_schema_version_table_sql()) -%}\n{% endmacro %}"
FAILING_STEP = (
    "    {%- do run_query(rerun_safe.create_schema_version_table_sql()) -%}\n"
    "    {%- do run_query(rerun_safe.schema_version_row_sql(rerun_safe.code_schema_version(), 0)) -%}\n"
    "    {%- do run_query(\"select cast('boom' as integer)\") -%}\n{% endmacro %}"
)


@pytest.fixture(scope="module")
def failing_upgrade_code(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of this dbt project whose migration step 1 fails after its writes."""
    root = tmp_path_factory.mktemp("failing_upgrade") / "project"
    root.mkdir()
    for name in ("dbt_project.yml", "profiles.yml"):
        shutil.copy2(project.PROJECT_DIR / name, root / name)
    for folder in ("macros", "models", "seeds", "tests/dbt"):
        shutil.copytree(project.PROJECT_DIR / folder, root / folder)
    step = root / "macros/upgrade/_apply_schema_migration.sql"
    text = step.read_text()
    assert text.count(STEP) == 1, "migration step 1 changed: update STEP"
    step.write_text(text.replace(STEP, FAILING_STEP))
    return root


@contextlib.contextmanager
def code_of(pipeline: Pipeline, checkout: Path) -> Iterator[None]:
    """Run the pipeline's dbt commands with the project (and profiles.yml) of `checkout`, with a
    target folder of their own (no parse of this code is reused for that code)."""
    target = pipeline.target_path
    pipeline.target_path = pipeline.root / f"target_of_{checkout.parent.name}"
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(project, "PROJECT_DIR", checkout)
            yield
    finally:
        pipeline.target_path = target


def own_parse(pipeline: P) -> P:
    """A pipeline that never shares this process's saved parses (it runs two codes)."""
    pipeline.shares_parse = False
    return pipeline


def every_table(pipeline: Pipeline) -> dict[str, list[tuple]]:
    """Every row of every table of the warehouse's schema: what "wrote nothing" compares."""
    names = [
        name
        for (name,) in pipeline.query(
            "select table_name from information_schema.tables where table_schema = current_schema()"
            " and table_type = 'BASE TABLE'"
        )
    ]
    return {name: pipeline.table(name) for name in sorted(names)}


def kept_state(pipeline: Pipeline) -> dict[str, list[tuple]]:
    """What the upgrade must keep: the ledger, the correction log, the deliveries, the run log
    and the run registry, every column."""
    return {
        name: pipeline.table(name)
        for name in (
            "fct_revenue_ledger",
            "int_corrections_recorded",
            "stg_landing__deliveries",
            "rerun_safe_loaded_files",
            "rerun_safe_run_log",
            "rerun_safe_runs",
            "stg_landing__events",
        )
    }


def compared_state(pipeline: Pipeline) -> dict[str, list[tuple]]:
    """The business tables, ledger (posting ids), late queue and quarantine (engine_state), and
    the correction log without its run stamps."""
    return {
        **engine_state(pipeline),
        "corrections": sorted(
            pipeline.query("select correction_id, correct_from, correct_to, mark from int_corrections_recorded"),
            key=repr,
        ),
    }


def message_of(result: project.BuildResult) -> str:
    return " ".join(result.messages.values())


def upgrade(pipeline: Pipeline, capsys: pytest.CaptureFixture[str]) -> tuple[bool, str]:
    """`dbt run-operation rerun_safe_upgrade`: whether it succeeded, and its error as dbt prints
    it (an operation's result carries no message)."""
    capsys.readouterr()
    result = pipeline.dbt("run-operation", UPGRADE)
    return result.success, capsys.readouterr().out


def check_upgrade_path(
    upgraded: Pipeline,
    clean: Pipeline,
    old_code: Path,
    deliveries: list[list[Path]],
    capsys: pytest.CaptureFixture[str],
    on_old_warehouse: Callable[[Pipeline], None] | None = None,
) -> None:
    """The whole scenario on two fresh pipelines of one adapter. `on_old_warehouse` runs on the
    warehouse the old code built, before anything else touches it."""
    for pipeline in (upgraded, clean):
        own_parse(pipeline)
    for index, files in enumerate(deliveries):
        clean.deliver(*files)  # same names, sizes and mtimes: same file ids
        # models only on the days before the last; the last day's build runs the data tests
        (clean.build if index == len(deliveries) - 1 else clean.run_ok)(vars=day_vars(deliveries, index))
    assert clean.query("select schema_version, from_version from rerun_safe_schema_version") == [(CODE_VERSION, None)]

    for index, files in enumerate(deliveries[:-1]):
        upgraded.deliver(*files)
        with code_of(upgraded, old_code):
            upgraded.build(vars=day_vars(deliveries, index))
    if on_old_warehouse is not None:
        on_old_warehouse(upgraded)
    before = every_table(upgraded)
    assert "rerun_safe_schema_version" not in before, (
        "the old code already records a schema version: pin an older commit"
    )
    assert before["int_corrections_recorded"] and before["fct_revenue_ledger"] and before["late_events"]

    # this code on the old warehouse: refused before any write, naming the command
    upgraded.deliver(*deliveries[-1])
    refused = upgraded.dbt("build", vars=day_vars(deliveries, len(deliveries) - 1))
    assert not refused.success
    assert "has schema version 0" in message_of(refused), refused.messages
    assert f"dbt run-operation {UPGRADE}" in message_of(refused), refused.messages
    assert every_table(upgraded) == before, "a build refused for its schema version wrote to the warehouse"

    kept = kept_state(upgraded)
    ok, output = upgrade(upgraded, capsys)
    assert ok, output
    assert kept_state(upgraded) == kept, (
        "the upgrade changed the ledger, the corrections, the deliveries or the run log"
    )
    versions = upgraded.table("rerun_safe_schema_version")
    assert [row[:2] for row in versions] == [(CODE_VERSION, 0)]
    upgraded_tables = every_table(upgraded)
    assert set(upgraded_tables) == set(before) | {"rerun_safe_schema_version"}
    assert {name: rows for name, rows in upgraded_tables.items() if name in before} == before

    # a second upgrade is a no-op
    ok, output = upgrade(upgraded, capsys)
    assert ok, output
    assert every_table(upgraded) == upgraded_tables, "a second upgrade changed the warehouse"

    # the next batch, with this code
    upgraded.build(vars=day_vars(deliveries, len(deliveries) - 1))
    assert compared_state(upgraded) == compared_state(clean), "the upgraded warehouse differs from a clean build"
    assert upgraded.table("rerun_safe_schema_version") == versions
    # the old code's runs are still in the registry, before this code's build
    assert [status for (status,) in upgraded.query("select status from rerun_safe_runs order by run_seq")] == [
        "success"
    ] * len(deliveries)


def execute(pipeline: Pipeline, sql: str) -> None:
    """One committed statement (Pipeline.query commits on DuckDB; a server's query rolls back)."""
    if not hasattr(pipeline, "connect"):
        pipeline.query(sql)
        return
    connection = pipeline.connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
        connection.commit()
    finally:
        connection.close()


def check_newer_warehouse_is_refused(pipeline: Pipeline, capsys: pytest.CaptureFixture[str]) -> None:
    """A warehouse of a later version (as a later release would leave it): the build and the
    upgrade both refuse, writing nothing."""
    execute(
        pipeline,
        f"insert into rerun_safe_schema_version select {CODE_VERSION + 1}, {CODE_VERSION},"
        " recorded_at, invocation_id, command from rerun_safe_schema_version",
    )
    before = every_table(pipeline)
    build = pipeline.dbt("build")
    assert not build.success and f"has schema version {CODE_VERSION + 1}, newer than this code" in message_of(build)
    ok, output = upgrade(pipeline, capsys)
    assert not ok and f"has schema version {CODE_VERSION + 1}, newer than this code" in output, output
    assert every_table(pipeline) == before


def check_a_failed_upgrade_commits_nothing(
    pipeline: Pipeline,
    old_code: Path,
    failing_code: Path,
    deliveries: list[list[Path]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A step that fails after it wrote: the upgrade fails and the warehouse is as the old code
    left it (one transaction); the real upgrade then succeeds."""
    own_parse(pipeline)
    pipeline.deliver(*deliveries[0])
    with code_of(pipeline, old_code):
        pipeline.build()
    before = every_table(pipeline)
    with code_of(pipeline, failing_code):
        ok, output = upgrade(pipeline, capsys)
    assert not ok and "boom" in output, output
    assert every_table(pipeline) == before, "a failed upgrade left part of its work in the warehouse"
    ok, output = upgrade(pipeline, capsys)
    assert ok, output
    assert [row[:2] for row in pipeline.table("rerun_safe_schema_version")] == [(CODE_VERSION, 0)]


def test_a_failed_upgrade_commits_nothing(
    engine: Engine,
    tmp_path: Path,
    old_code: Path,
    failing_upgrade_code: Path,
    deliveries: list[list[Path]],
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    check_a_failed_upgrade_commits_nothing(
        pipeline_on(engine, tmp_path / "failed", request), old_code, failing_upgrade_code, deliveries, capsys
    )


LIVE_HOLDER = "00000000-0000-4000-8000-000000000001"  # a run that holds the lease and is alive


def while_a_run_holds_it(pipeline: Pipeline, capsys: pytest.CaptureFixture[str]) -> None:
    """A live run holds the lease (a fresh heartbeat, Postgres): the upgrade refuses, naming it
    and the release command, and writes nothing; once released, the scenario goes on."""
    execute(
        pipeline,
        f"update rerun_safe_lease set holder_invocation_id = '{LIVE_HOLDER}', heartbeat_at = now() at time zone 'utc'",
    )
    before = every_table(pipeline)
    ok, output = upgrade(pipeline, capsys)
    assert not ok and f"another run ({LIVE_HOLDER}) holds the warehouse; the upgrade wrote nothing" in output, output
    assert f"release_warehouse_lease --args '{{invocation_id: {LIVE_HOLDER}}}'" in output, output
    assert every_table(pipeline) == before
    released = pipeline.dbt("run-operation", "release_warehouse_lease", "--args", f"{{invocation_id: {LIVE_HOLDER}}}")
    assert released.success


def test_a_warehouse_of_the_previous_code_upgrades_and_equals_a_clean_build(
    engine: Engine,
    tmp_path: Path,
    old_code: Path,
    deliveries: list[list[Path]],
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    upgraded = pipeline_on(engine, tmp_path / "upgraded", request)
    on_old = (lambda pipeline: while_a_run_holds_it(pipeline, capsys)) if engine is Engine.POSTGRES else None
    check_upgrade_path(
        upgraded,
        pipeline_on(engine, tmp_path / "clean", request),
        old_code,
        deliveries,
        capsys,
        on_old_warehouse=on_old,
    )
    check_newer_warehouse_is_refused(upgraded, capsys)


def test_the_upgrade_refuses_a_schema_without_a_warehouse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A wrong target (an empty file): nothing to upgrade, and nothing created. (A path with no
    file at all is refused before DuckDB would create one: tests/bad_input/test_periphery_lock.py.)"""
    pipeline = own_parse(Pipeline(tmp_path / "empty"))
    duckdb.connect(str(pipeline.warehouse)).close()
    ok, output = upgrade(pipeline, capsys)
    assert not ok and "no warehouse in schema main (no rerun_safe_runs table): nothing to upgrade" in output, output
    assert every_table(pipeline) == {}


def test_the_upgrade_refuses_a_schema_without_a_warehouse_on_postgres(
    tmp_path: Path,
    postgres_server: PostgresServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A schema that does not exist: nothing to upgrade, and no schema created."""
    pipeline = own_parse(PostgresPipeline(tmp_path / "empty", postgres_server))
    ok, output = upgrade(pipeline, capsys)
    refused = f"no warehouse in schema {pipeline.schema} (no rerun_safe_runs table): nothing to upgrade"
    assert not ok and refused in output, output
    assert every_table(pipeline) == {}
    assert postgres_server.query(f"select count(*) from pg_namespace where nspname = '{pipeline.schema}'") == [(0,)]


def test_a_first_build_stopped_before_its_version_row_is_no_older_warehouse(tmp_path: Path) -> None:
    """A first build killed between creating the version table and writing its row (hooks commit
    statement by statement) left an empty version table and no registry: the next build is a
    first build, not one on a warehouse of version 0."""
    pipeline = Pipeline(tmp_path / "stopped")
    pipeline.query(
        "create table rerun_safe_schema_version (schema_version bigint not null, from_version bigint,"
        " recorded_at timestamp not null, invocation_id varchar not null, command varchar not null)"
    )
    pipeline.land("2026-11-01_001_main.csv", [project.event("A", 10000)])
    pipeline.build()
    assert pipeline.query("select schema_version, from_version, command from rerun_safe_schema_version") == [
        (CODE_VERSION, None, "build")
    ]
    assert pipeline.net_total() == 10000
