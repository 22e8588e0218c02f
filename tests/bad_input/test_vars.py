"""Bad configuration fails before any write, with a message that names the var and what it
accepts; a value crafted as SQL never runs. One dbt invocation per case, on DuckDB."""
from __future__ import annotations

import pytest

from tests.bad_input.catalogue import VAR_CASES, VarCase, project_vars, row
from tests.bad_input.judge import check_sql_in_var
from tests.pipeline.project import Pipeline


@pytest.mark.parametrize("case", VAR_CASES, ids=[c.id for c in VAR_CASES])
def test_bad_var_fails_before_any_write(case: VarCase, pipeline: Pipeline) -> None:
    pipeline.land("2026-11-01_a.csv", [row("v1")])
    result = pipeline.dbt("build", vars=case.vars)
    message = " ".join(result.messages.values())
    assert not result.success
    assert f"var {case.names}" in message, message
    assert case.says in message, message
    # nothing was written: no audit table, no model, no table a crafted value tried to create
    tables = pipeline.query("select table_name from information_schema.tables") if pipeline.warehouse.exists() else []
    assert tables == [], tables


def test_an_existing_but_empty_landing_folder_is_fine(pipeline: Pipeline) -> None:
    """An empty landing folder is a quiet day, not an error: the build succeeds and publishes nothing."""
    pipeline.build()
    assert pipeline.scalar("select count(*) from stg_landing__events") == 0
    assert pipeline.scalar("select count(*) from fct_daily_revenue") == 0


@pytest.mark.parametrize("name", project_vars())
def test_sql_in_any_var_never_runs(name: str, pipeline: Pipeline) -> None:
    """Every var the project reads, set to a statement that would create a table: it is refused, or read as plain data."""
    check_sql_in_var(pipeline, name)
    tables = pipeline.query("select table_name from information_schema.tables") if pipeline.warehouse.exists() else []
    assert not [t for (t,) in tables if t.startswith("pwned")]
