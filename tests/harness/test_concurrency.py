"""The concurrency check: two builds of the same deliveries at once on one DuckDB file.

DuckDB has one writer per file and dbt-duckdb holds it for a whole build: the second build
fails before writing (the correct twin) or, with connect retries (buggy `--target wait`),
waits and builds again, which duplicates a blind append.
"""

from __future__ import annotations

from pathlib import Path

from harness.results import Status
from tests.harness.helpers import run_fixture_check

LOCK_ERROR = "Could not set lock on file"


def test_the_losing_build_fails_with_the_lock_error_and_leaves_nothing(workdir: Path) -> None:
    result = run_fixture_check("concurrency", "correct", workdir)
    assert result.status is Status.PASS, result.failure_message()
    labels = [trial.label for trial in result.trials]
    assert labels == ["A started first, B 0 s later", "B started first, A 0 s later"]
    for trial in result.trials:
        assert trial.survived
        assert LOCK_ERROR in trial.outcome or trial.outcome.startswith("both completed")
    # The two children start together and parse for seconds: they overlap, one gets the lock.
    assert any(LOCK_ERROR in trial.outcome for trial in result.trials)


def test_a_waiting_second_build_duplicates_a_blind_append(workdir: Path) -> None:
    # `--target wait` retries the connect: the second build runs after the first, both complete,
    # and blind_append holds every landed row twice.
    result = run_fixture_check("concurrency", "buggy", workdir, select=("blind_append",), target="wait")
    assert result.status is Status.FAIL
    for trial in result.trials:
        assert trial.outcome.startswith("both completed")
        assert trial.tables == ["blind_append (duplicated rows, rows added; after both builds)"]
    assert set(result.failing_tables()) == {"blind_append"}
