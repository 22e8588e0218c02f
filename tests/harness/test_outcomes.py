"""What happened to each model: a model dbt skipped is reported with dbt's reason
and the node that caused it, never as a difference; a build error every build has is ERROR in
every check, and the models x checks table agrees with the check's verdict."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.report import _cell, matrix, render_terminal
from harness.results import Status
from tests.harness.helpers import PROJECTS, run_fixture_check


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The correct twin plus a data test that fails once batch 3 (e8) has landed, and a model
    that never builds."""
    root = tmp_path_factory.mktemp("outcomes") / "project"
    shutil.copytree(PROJECTS / "correct", root, ignore=shutil.ignore_patterns("target", "logs", "*.duckdb"))
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "no_e8_landed.sql").write_text("select * from {{ ref('landed_events') }} where event_id = 'e8'\n")
    (root / "dbt_project.yml").write_text(
        (root / "dbt_project.yml")
        .read_text()
        .replace('seed-paths: ["seeds"]', 'seed-paths: ["seeds"]\ntest-paths: ["tests"]')
    )
    (root / "models" / "broken.sql").write_text("select * from no_such_table_anywhere\n")
    return root


def test_a_model_dbt_skipped_is_reported_with_the_failing_upstream_node(project: Path, tmp_path: Path) -> None:
    # full refresh: the test on landed_events fails, dbt skips current_events (never built);
    # batch by batch it was built by batches 1 and 2: it exists on one side only
    result = run_fixture_check("convergence", "correct", tmp_path, project_dir=project, select=("current_events",))
    (comparison,) = result.comparisons
    assert "current_events" not in {d.table.split(".")[-1] for d in comparison.diffs}
    reason = {nj.table.split(".")[-1]: nj.reason for nj in comparison.not_judged}["current_events"]
    assert "skipped by dbt: upstream test.fixture_correct.no_e8_landed failed" in reason
    assert result.dbt_skipped["current_events"] == reason
    _, rows = matrix([result, result])
    assert dict((row[0], row[1]) for row in rows)["current_events"] == "dbt skipped"
    out = render_terminal([result])
    assert "exists only on the" not in out and "no_e8_landed" in out


def test_a_build_error_of_every_build_is_error_in_every_check(project: Path, tmp_path: Path) -> None:
    results = [
        run_fixture_check(check, "correct", tmp_path / check, project_dir=project, select=("broken",))
        for check in ("keys", "convergence")
    ]
    assert [r.status for r in results] == [Status.ERROR, Status.ERROR], [r.failure_message() for r in results]
    assert all("no_such_table_anywhere" in " ".join(r.errors) for r in results)
    _header, _rows = matrix(results)  # renders the cells without an error
    assert [_cell(r, "main.broken") for r in results] == ["ERROR", "ERROR"]


def test_a_failed_check_whose_build_error_names_a_model_says_error_in_its_cell() -> None:
    # concurrency: both builds failed on a build error of x; nothing differs, yet the column
    # said ok while the check said "both failed"
    from harness.results import CheckResult, Comparison, TableDiff, Trial

    result = CheckResult(
        name="concurrency",
        status=Status.FAIL,
        comparisons=[Comparison("c", "l", "r", diffs=[TableDiff(table="main.x"), TableDiff(table="main.y")])],
        trials=[
            Trial(
                "a first",
                survived=False,
                outcome="both failed: a: model.p.x: error: boom",
                errors=["neither build completed"],
            )
        ],
    )
    assert [_cell(result, "main.x"), _cell(result, "main.y")] == ["ERROR", "ok"]
