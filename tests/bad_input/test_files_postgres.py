"""The file catalogue on the Postgres target: the same hostile folder, one build, the same
verdicts, for every case that applies to a server-side reader (the others say why not)."""

from __future__ import annotations

import pytest

from tests.bad_input.catalogue import FILE_CASES, HOSTILE_FOLDER_NAME, VAR_CASES, FileCase, VarCase, project_vars
from tests.bad_input.judge import FileVerdicts, check_file_case, check_sql_in_var, land_catalogue
from tests.postgres.project import PostgresPipeline

POSTGRES_CASES = [c for c in FILE_CASES if c.postgres]


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory, postgres_server) -> FileVerdicts:
    root = tmp_path_factory.mktemp("catalogue_pg")
    pg = PostgresPipeline(root, postgres_server)
    pg.landing = pg.landing / HOSTILE_FOLDER_NAME
    land_catalogue(pg.landing, pg.landing.parent / "outside.csv", POSTGRES_CASES)
    pg.run_ok()  # models only: the second run, a build, runs the data tests on the same state
    first = FileVerdicts.read(pg)
    pg.build()
    assert FileVerdicts.read(pg) == first
    return first


@pytest.mark.parametrize("case", POSTGRES_CASES, ids=[c.id for c in POSTGRES_CASES])
def test_file_case(case: FileCase, verdicts: FileVerdicts) -> None:
    check_file_case(case, verdicts)


def test_cases_left_out_on_postgres_say_why() -> None:
    left_out = [c for c in FILE_CASES if not c.postgres]
    assert left_out and all(c.why_not_postgres for c in left_out)


@pytest.mark.parametrize("case", VAR_CASES, ids=[c.id for c in VAR_CASES])
def test_bad_var_fails_before_any_write_on_postgres(case: VarCase, pg: PostgresPipeline) -> None:
    """The same var cases against the server: refused, the var named, not even the schema created."""
    pg.land("2026-11-01_a.csv", [])
    result = pg.dbt("build", vars=case.vars)
    message = " ".join(result.messages.values())
    assert not result.success
    assert f"var {case.names}" in message, message
    assert case.says in message, message
    assert pg.query(
        f"select count(*) from information_schema.tables where table_name like 'pwned%' or table_schema = '{pg.schema}'"
    ) == [(0,)]


@pytest.mark.parametrize("name", project_vars())
def test_sql_in_any_var_never_runs_on_postgres(name: str, pg: PostgresPipeline) -> None:
    """Every var set to a statement that would create a table, against the server: refused, or read as plain data."""
    check_sql_in_var(pg, name)
    assert pg.query("select count(*) from information_schema.tables where table_name like 'pwned%'") == [(0,)]
