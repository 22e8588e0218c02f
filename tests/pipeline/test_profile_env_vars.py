"""The profile's env vars are data (rerun_safe_duckdb/profile_check.py for DuckDB, profiles.yml
itself for Spark and Postgres).

A warehouse whose folder holds quotes, spaces and non-ASCII letters, and whose file name holds
spaces, non-ASCII letters (accents, CJK), a quote or starts with a digit, runs its models and
then builds again incrementally (its data tests on that state). A file name with a double
quote, which dbt cannot quote in a relation's name, a memory limit DuckDB cannot read, and
each Spark setting that cannot be used fail before anything is opened or started, naming the
env var, with no traceback; a bad Postgres port, host, user, database or schema stops dbt
before it connects, and the server is left as it was (the cases: tests/bad_input/catalogue.py,
ENV_CASES). A good Postgres setting is every other Postgres scenario: each build there reads
the same profile.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bad_input.catalogue import ENV_CASES, GOOD_WAREHOUSE_FILE_NAMES, EnvCase
from tests.pipeline.project import Pipeline, event
from tests.postgres.project import PostgresPipeline
from tests.postgres.server import PostgresServer

PAGE = Path(__file__).resolve().parents[2] / "docs" / "bad-input.md"


class PlacedPipeline(Pipeline):
    """A pipeline whose warehouse file is `path` (absolute: no shared parse), with extra env."""

    shares_parse = False

    def __init__(self, root: Path, warehouse: Path, env: dict[str, str] | None = None) -> None:
        super().__init__(root)
        self.warehouse = warehouse
        self.extra_env = env or {}

    def dbt_env(self) -> dict[str, str]:
        return {**super().dbt_env(), **self.extra_env}


@pytest.mark.parametrize("name", GOOD_WAREHOUSE_FILE_NAMES)
def test_a_warehouse_with_quotes_spaces_and_non_ascii_in_its_path_builds_and_builds_again(
    tmp_path: Path,
    name: str,
) -> None:
    folder = tmp_path / 'o\'brien "q" données 数据'
    folder.mkdir()
    pipeline = PlacedPipeline(tmp_path / "run", folder / name)
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    pipeline.run_ok()
    assert pipeline.net_total() == 100
    later = event(
        "B",
        250,
        order_id="o2",
        order_item_id="i2",
        event_time="2026-11-02T10:00:00Z",
        ingested_at="2026-11-02T11:00:00Z",
    )
    pipeline.land("2026-11-02_001_main.csv", [later])
    second = pipeline.build()
    assert second.status_of("fct_order_items") == "success"
    assert pipeline.net_total() == 350  # the incremental run added B, and kept A once
    assert (folder / name).exists()


def _cases(target: str) -> list[EnvCase]:
    return [case for case in ENV_CASES if case.target == target]


@pytest.mark.parametrize("case", _cases("duckdb"), ids=lambda case: case.id)
def test_a_duckdb_env_var_that_cannot_be_used_fails_before_the_file_exists(tmp_path: Path, case: EnvCase) -> None:
    warehouse = tmp_path / case.file_name
    pipeline = PlacedPipeline(tmp_path / "run", warehouse, case.env)
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    result = pipeline.dbt("build")
    assert not result.success
    message = " ".join(result.messages.values())
    assert f"rerun_safe: env var {case.named}" in message and case.says in message, message
    assert "Traceback" not in message and "Parser Error" not in message, message
    assert not warehouse.exists()


@pytest.mark.parametrize("case", _cases("spark"), ids=lambda case: case.id)
def test_a_spark_env_var_that_cannot_be_used_fails_before_spark_starts(tmp_path: Path, case: EnvCase) -> None:
    """profiles.yml checks each Spark setting as it renders it: dbt stops before it loads the
    adapter or starts a JVM (`dbt ls` would otherwise list the project)."""
    pipeline = PlacedPipeline(tmp_path / "run", tmp_path / "unused.duckdb", case.env)
    result = pipeline.dbt("ls", "--target", "spark")
    assert not result.success
    message = " ".join(result.messages.values())
    assert f"rerun_safe: env var {case.named}" in message and case.says in message, message
    assert case.env[case.named] in message, message  # the value it refused


class PostgresEnvPipeline(PostgresPipeline):
    """A Postgres pipeline with extra env."""

    def __init__(self, root: Path, server: PostgresServer, env: dict[str, str]) -> None:
        super().__init__(root, server)
        self.extra_env = env

    def dbt_env(self) -> dict[str, str]:
        return {**super().dbt_env(), **self.extra_env}


def _schemas(server: PostgresServer, *names: str) -> list[str]:
    con = server.connect()
    try:
        with con.cursor() as cur:
            cur.execute("select nspname from pg_namespace where nspname = any(%s)", (list(names),))
            return [name for (name,) in cur.fetchall()]
    finally:
        con.close()


@pytest.mark.parametrize("case", _cases("postgres"), ids=lambda case: case.id)
def test_a_postgres_env_var_that_cannot_be_used_fails_before_dbt_connects(
    tmp_path: Path,
    postgres_server: PostgresServer,
    case: EnvCase,
) -> None:
    pipeline = PostgresEnvPipeline(tmp_path / "run", postgres_server, case.env)
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    result = pipeline.dbt("build")
    assert not result.success
    message = " ".join(result.messages.values())
    assert f"rerun_safe: env var {case.named}" in message and case.says in message, message
    assert "Traceback" not in message, message
    # nothing was written: neither the pipeline's schema nor the one the env var named exists
    assert _schemas(postgres_server, pipeline.schema, case.env.get("RERUN_SAFE_PG_SCHEMA", pipeline.schema)) == []


def test_the_page_lists_every_env_case() -> None:
    text = PAGE.read_text(encoding="utf-8")
    missing = [case.id for case in ENV_CASES if f"`{case.id}`" not in text]
    assert not missing, f"docs/bad-input.md does not list: {missing}"
