"""The Postgres settings of profiles.yml are data: each env var is checked as the profile renders
it, so a bad port, host, user, database or schema stops dbt before it connects, naming the env
var, and the server is left as it was (the cases: tests/bad_input/catalogue.py, ENV_CASES).
A good setting is the rest of tests/postgres: every build there reads the same profile."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.bad_input.catalogue import ENV_CASES, EnvCase
from tests.pipeline.project import event
from tests.postgres.conftest import PostgresServer
from tests.postgres.project import PostgresPipeline

CASES = [case for case in ENV_CASES if case.target == "postgres"]


class EnvPipeline(PostgresPipeline):
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


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_a_postgres_env_var_that_cannot_be_used_fails_before_dbt_connects(
    tmp_path: Path, postgres_server: PostgresServer, case: EnvCase,
) -> None:
    pipeline = EnvPipeline(tmp_path / "run", postgres_server, case.env)
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    result = pipeline.dbt("build")
    assert not result.success
    message = " ".join(result.messages.values())
    assert f"rerun_safe: env var {case.named}" in message and case.says in message, message
    assert "Traceback" not in message, message
    # nothing was written: neither the pipeline's schema nor the one the env var named exists
    assert _schemas(postgres_server, pipeline.schema, case.env.get("RERUN_SAFE_PG_SCHEMA", pipeline.schema)) == []
