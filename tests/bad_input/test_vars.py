"""Bad configuration fails before any write, with a message that names the var and what it
accepts; a value crafted as SQL never runs. One dbt invocation per case, on DuckDB."""

from __future__ import annotations

import pytest

from tests.bad_input.catalogue import CLOCK_CASES, VAR_CASES, VarCase, project_vars, row
from tests.bad_input.judge import check_sql_in_var
from tests.pipeline.project import Pipeline
from tests.reference.oracle import parse_timestamp, read_landing, run_oracle


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
    """Every var the project reads, set to a statement that would create a table: it is refused, or read as plain
    data."""
    check_sql_in_var(pipeline, name)
    tables = pipeline.query("select table_name from information_schema.tables") if pipeline.warehouse.exists() else []
    assert not [t for (t,) in tables if t.startswith("pwned")]


# A valid value of every var the project reads (defaults, or harmless test values).
VALID_VALUES: dict[str, object] = {
    "landing_path": "landing",
    "allowed_lateness_hours": 72,
    "lookback_hours": 96,
    "source_window": "files",
    "correct_from": "2026-11-01",
    "correct_to": "2026-11-01",
    "max_amount_cents": 10**12,
    "max_event_time_ahead_hours": 24,
    "accept_missing_deliveries": False,
    "rerun_safe_fail_model": "no_such_model",
    "rerun_safe_lock_timeout_seconds": 0,
    "rerun_safe_lease_stale_seconds": 0,
    "max_ingested_ahead_hours": 24,
    "rerun_safe_now": "2026-11-01T12:00:00Z",
}


@pytest.mark.parametrize(
    "typo, nearest",
    [
        ("alowed_lateness_hours", "allowed_lateness_hours"),
        ("Landing_Path", "landing_path"),
        ("max_amount", "max_amount_cents"),
        ("rerun_safe_fail_modle", "rerun_safe_fail_model"),
    ],
)
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


def test_the_amount_bound_cannot_be_raised_beyond_what_64_bit_sums_hold(pipeline: Pipeline) -> None:
    """max_amount_cents is capped at 10^12: 9,223,372 rows of it (the most one item's or one
    company-day's sum is assumed to hold) fit in a signed 64-bit integer; one more cent, or the
    10^15 once accepted, is refused naming the var."""
    assert 9_223_372 * 10**12 <= 2**63 - 1 < 9_223_372 * 10**13
    pipeline.land("2026-11-01_a.csv", [row("v1")])
    for too_large in (10**12 + 1, 10**15):
        result = pipeline.dbt("build", vars={"max_amount_cents": too_large})
        message = " ".join(result.messages.values())
        assert (
            not result.success and "var max_amount_cents must be a whole number from 1 to 1000000000000" in message
        ), message
    pipeline.build(vars={"max_amount_cents": 10**12})


def test_rows_accepted_above_the_bound_are_named_and_a_full_refresh_repairs(pipeline: Pipeline) -> None:
    """A warehouse holding published rows above max_amount_cents (accepted under the 10^15 once
    allowed, whose sums overflow 64 bits, or a bound lowered since) is refused before any write,
    with the command that repairs it; that full refresh quarantines them, as a fresh build would."""
    pipeline.land("2026-11-01_a.csv", [row("big1", str(10**15)), row("ok1", "5000")])
    # models only (dbt run) until the last build, which runs the data tests on the final state
    pipeline.run_ok()
    assert pipeline.scalar("select reason from quarantined_events where event_id = 'big1'") == "amount_out_of_range"
    # what a build under the old range left: a published row of 10^15 cents
    pipeline.query(f"update stg_landing__events set amount_cents = {10**15} where event_id = 'ok1'")
    runs = pipeline.scalar("select count(*) from rerun_safe_runs")
    result = pipeline.dbt("build")
    message = " ".join(result.messages.values())
    assert not result.success
    assert "var max_amount_cents is 1000000000000, but stg_landing__events holds 1 published row(s)" in message, message
    assert "dbt build --full-refresh" in message, message
    assert pipeline.scalar("select count(*) from rerun_safe_runs") == runs, "the refused run wrote nothing"
    pipeline.run_ok("--full-refresh")
    assert pipeline.scalar("select sum(net_cents) from fct_daily_revenue") == 5000
    pipeline.run_ok()
    # a bound lowered below a published row: the same refusal; the rebuild quarantines the row
    result = pipeline.dbt("build", vars={"max_amount_cents": 1000})
    assert not result.success and "dbt build --full-refresh" in " ".join(result.messages.values())
    pipeline.run_ok("--full-refresh", vars={"max_amount_cents": 1000})
    assert pipeline.scalar("select reason from quarantined_events where event_id = 'ok1'") == "amount_out_of_range"
    assert pipeline.scalar("select count(*) from fct_order_items") == 0
    pipeline.build(vars={"max_amount_cents": 1000})


def _clock_verdicts(pipeline: Pipeline) -> dict[str, tuple]:
    """event_id -> (staged reason, quarantined reason, quarantined file and line, staged file and
    line, the revenue day it is published on or None)."""
    staged = {
        r[0]: r[1:]
        for r in pipeline.query("select event_id, invalid_reason, source_file, source_line from stg_landing__events")
    }
    quarantined = {
        r[0]: r[1:] for r in pipeline.query("select event_id, reason, source_file, source_line from quarantined_events")
    }
    published_days = {str(d) for (d,) in pipeline.query("select revenue_date from fct_daily_revenue")}
    days = {
        item: day
        for item, day in pipeline.query(
            "select order_item_id, cast(cast(first_event_time as date) as varchar) from fct_order_items"
        )
        if day in published_days
    }
    return {
        event_id: (reason, *quarantined.get(event_id, (None, None, None)), file, line, days.get("i-" + event_id))
        for event_id, (reason, file, line) in staged.items()
    }


@pytest.mark.parametrize("engine", ["duckdb", "postgres"])
def test_ingested_in_future_is_judged_by_the_clock_of_the_deliverys_first_run(engine: str, request) -> None:
    """Each delivery of CLOCK_CASES is first seen by a run whose clock is its var rerun_safe_now:
    a row ingested more than max_ingested_ahead_hours after that clock is quarantined as
    ingested_in_future with its file and line (one second beyond the bound, 2036, year 9999),
    never published; at the bound it publishes, and so does a 2036 row first seen by a run told
    it is 2036. A later run and a --full-refresh under the machine's clock judge every row alike
    (the registry keeps each run's clock as its started_at), and the oracle agrees."""
    pipeline = request.getfixturevalue("pipeline" if engine == "duckdb" else "pg")
    nows = list(dict.fromkeys(case.now for case in CLOCK_CASES))
    for index, now in enumerate(nows):
        for case in CLOCK_CASES:
            if case.now == now:
                pipeline.land(case.name, [case.row])
        # the first run is a build, which loads the seeds in the same run (run_ok's `dbt seed`
        # would register a run of its own, and the registry's clocks are asserted below); the
        # next runs are models only, until the last build runs the data tests on the final state
        (pipeline.build if index == 0 else pipeline.run_ok)(vars={"rerun_safe_now": now})
    assert [str(t) for (t,) in pipeline.query("select started_at from rerun_safe_runs order by run_seq")] == [
        str(parse_timestamp(now)) for now in nows
    ]
    first = _clock_verdicts(pipeline)
    for case in CLOCK_CASES:
        event_id = case.row["event_id"]
        reason, quarantined, q_file, q_line, _file, _line, day = first[event_id]
        assert (reason, quarantined) == (case.reason, case.reason), (case.id, first[event_id])
        if case.reason is None:
            assert day == case.row["event_time"][:10], (case.id, first[event_id])
        else:
            assert (q_file, q_line, day) == (case.name, 2, None), (case.id, first[event_id])
    first_clocks = {case.name: parse_timestamp(case.now) for case in CLOCK_CASES}
    expected = run_oracle(read_landing(pipeline.landing), now=first_clocks)
    oracle_rows = [
        (q["source_file"], int(q["source_line"]), q["reason"]) for q in expected.quarantined_events.to_dict("records")
    ]
    assert sorted(oracle_rows) == sorted((v[4], v[5], v[0]) for v in first.values() if v[0] is not None)
    pipeline.run_ok()
    assert _clock_verdicts(pipeline) == first
    pipeline.build("--full-refresh")
    assert _clock_verdicts(pipeline) == first, "a rebuild under the machine's clock judged a row differently"
