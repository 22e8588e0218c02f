"""Every documented safety check is sent to Postgres by a normal build, with its SQL, in the node
that owns it (tests/pipeline/checks_ran.py), plus the unique index on staged rows that Postgres
adds, and the lease guard's row lock that keeps a take-over waiting for the model's COMMIT."""
from __future__ import annotations

from pathlib import Path

from tests.pipeline.checks_ran import Check, missing_checks, two_logged_builds
from tests.postgres.conftest import PostgresServer
from tests.postgres.project import PostgresPipeline

POSTGRES_ONLY = (
    Check("staged rows unique (index)", "stg_landing__events", r"create unique index \S+ on \S+ \(_row_id\)"),
    Check("lease guard holds the row", "fct_revenue_ledger", r"holder_invocation_id = '[0-9a-f-]+' for share"),
)


def test_every_check_runs_on_postgres(tmp_path: Path, postgres_server: PostgresServer) -> None:
    pg = PostgresPipeline(tmp_path / "pg", postgres_server)
    first, second = two_logged_builds(pg, tmp_path / "logs")
    assert missing_checks(first, incremental=False, extra=POSTGRES_ONLY) == []
    assert missing_checks(second, incremental=True, extra=POSTGRES_ONLY[1:]) == []
