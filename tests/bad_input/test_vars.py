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


# A valid value of every var the project reads (defaults, or harmless test values).
VALID_VALUES: dict[str, object] = {
    "landing_path": "landing", "allowed_lateness_hours": 72, "lookback_hours": 96, "source_window": "files",
    "correct_from": "2026-11-01", "correct_to": "2026-11-01", "max_amount_cents": 10**12,
    "max_event_time_ahead_hours": 24, "accept_missing_deliveries": False,
    "rerun_safe_fail_model": "no_such_model", "rerun_safe_lock_timeout_seconds": 0,
    "rerun_safe_lease_stale_seconds": 0,
}


@pytest.mark.parametrize("typo, nearest", [
    ("alowed_lateness_hours", "allowed_lateness_hours"),
    ("Landing_Path", "landing_path"),
    ("max_amount", "max_amount_cents"),
    ("rerun_safe_fail_modle", "rerun_safe_fail_model"),
])
def test_an_unknown_var_fails_naming_it_and_the_nearest_name(typo: str, nearest: str, pipeline: Pipeline) -> None:
    """A var the project does not read would silently leave the default in force: it stops the
    run before any write (no run registered, no table), naming the var and the nearest known name."""
    pipeline.land("2026-11-01_a.csv", [row("v1")])
    result = pipeline.dbt("build", vars={typo: 48})
    message = " ".join(result.messages.values())
    assert not result.success
    assert f"unknown var {typo} (did you mean {nearest}?)" in message, message
    tables = pipeline.query("select table_name from information_schema.tables") if pipeline.warehouse.exists() else []
    assert tables == [], tables


def test_every_var_the_project_reads_is_known(pipeline: Pipeline) -> None:
    """Each var the project reads (declared, or read by a macro: project_vars), at a valid
    value, in one build: none is refused as unknown, the build succeeds and registers the run."""
    assert set(project_vars()) == set(VALID_VALUES), "a var was added or removed: give VALID_VALUES a value for it"
    pipeline.land("2026-11-01_a.csv", [row("v1")])
    pipeline.build(vars=VALID_VALUES)
    assert pipeline.scalar("select count(*) from rerun_safe_runs where status = 'success'") == 1
    assert pipeline.scalar("select count(*) from fct_order_items") == 1
