"""The crash check: stopped builds, rebuilt, must equal a clean build.

Fixture: buggy `claimed_files` commits a claim on the new files before `claimed_events` loads
the files its own run claimed; correct `file_events` keeps its progress in its data.
"""

from __future__ import annotations

from pathlib import Path

from harness.checks.crash import kill_moments, spread
from harness.report import render_markdown, render_terminal
from harness.results import Interruption, Status
from tests.harness.helpers import run_fixture_check

CLAIMS = ("claimed_files", "claimed_events")


def test_a_stop_between_claim_and_load_loses_the_batch(workdir: Path) -> None:
    # Batch 2 stops after claimed_files: the rebuild claims nothing, so batch 2's three rows
    # are missing after the rebuild and still missing after batch 3.
    result = run_fixture_check("crash", "buggy", workdir, select=CLAIMS, crash_batches=[2], kill_points=0)
    assert result.status is Status.FAIL
    stopped, whole = result.trials
    assert stopped.label == ("batch 2/3 (2026-11-02): stopped after 1 of 2 nodes (last built: claimed_files)")
    assert not stopped.survived
    assert stopped.tables == [
        "claimed_events (rows removed; after the rebuild)",
        "claimed_events (rows removed; after batch 3)",
    ]
    assert whole.survived and "stopped after 2 of 2 nodes" in whole.label
    rebuilt, continued = result.comparisons
    for comparison in (rebuilt, continued):
        lost = comparison.diff_for("claimed_events")
        assert (lost.surplus_left, lost.surplus_right) == (3, 0)
        assert "e6" in lost.sample and "e7" in lost.sample
        assert comparison.diff_for("claimed_files").excluded_columns == ("claimed_by",)
    assert result.metrics["points tried"] == 2 and result.metrics["failed"] == 1
    assert result.headline() == "1 of 2 point(s) failed; 1 table(s) differ: claimed_events"
    report = render_terminal([result])
    assert "FAIL batch 2/3 (2026-11-02): stopped after 1 of 2 nodes" in report
    assert "| batch 2/3 (2026-11-02): stopped after 2 of 2 nodes" in render_markdown([result])


def test_a_fault_var_fails_each_model_before_commit(workdir: Path) -> None:
    # --fault-var: the project fails the named model after its write, before COMMIT. Failing
    # claimed_files rolls the claim back (survives); failing claimed_events loses batch 3.
    result = run_fixture_check(
        "crash",
        "buggy",
        workdir,
        select=CLAIMS,
        crash_batches=[3],
        kill_points=0,
        fault_var="fixture_fail_model",
    )
    assert result.status is Status.FAIL
    assert [(t.label, t.survived) for t in result.trials] == [
        ("batch 3/3 (2026-11-03): claimed_files failed before COMMIT (fixture_fail_model=claimed_files)", True),
        ("batch 3/3 (2026-11-03): claimed_events failed before COMMIT (fixture_fail_model=claimed_events)", False),
    ]
    assert result.trials[1].tables == ["claimed_events (rows removed; after the rebuild)"]
    assert result.trials[0].outcome == "claimed_files failed; 1 node(s) skipped"


def test_the_correct_twin_survives_stops_and_kills(workdir: Path) -> None:
    result = run_fixture_check("crash", "correct", workdir, crash_batches=[3], crash_points=2, kill_points=2, seed=7)
    assert result.status is Status.PASS, result.failure_message()
    assert len(result.trials) == 4 and all(t.survived for t in result.trials)
    kills = [t for t in result.trials if t.interruption is Interruption.SIGKILL]
    assert len(kills) == 2
    for trial in kills:
        assert "SIGKILL" in trial.label
        assert trial.outcome.startswith("killed " if trial.reached else "not interrupted")
    build_order = result.metrics["build order"]
    assert isinstance(build_order, str) and build_order.startswith("file_events > landed_events > current_events")
    assert "not judged: main.run_log: not a model of the project" in " ".join(result.notes)
    assert result.headline() == "4 of 4 crash point(s) survived"


def test_points_spread_over_the_build_order_and_kill_moments_are_seeded() -> None:
    assert spread(7, None) == [1, 2, 3, 4, 5, 6, 7]
    assert spread(7, 3) == [1, 4, 7]
    assert spread(7, 1) == [4]
    assert spread(7, 0) == []
    moments = kill_moments(10.0, 4, seed=1, batch=2)
    assert moments == kill_moments(10.0, 4, seed=1, batch=2)
    assert moments != kill_moments(10.0, 4, seed=2, batch=2)
    assert [int(m // 2.5) for m in moments] == [0, 1, 2, 3]  # one moment per quarter


def test_crash_batches_outside_the_deliveries_are_an_error(workdir: Path) -> None:
    result = run_fixture_check("crash", "correct", workdir, crash_batches=[4])
    assert result.status is Status.ERROR
    assert "batches 1..3" in result.errors[0]
