"""Flags: --per-model --select X builds X's parents first; --skip / --only; --exclude;
--threads; --select state:modified+ --state DIR --defer (the pull-request path)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from harness.cli import main
from harness.results import Status
from tests.harness.helpers import DELIVERIES, PROJECTS, run_fixture_check


def test_per_model_with_a_selection_builds_the_parents_first(workdir: Path) -> None:
    # current_events reads landed_events: the first build must build it too (the README's own
    # example failed when the first build honoured the selection).
    result = run_fixture_check("idempotency", "correct", workdir, select=("current_events",), per_model=True)
    assert result.status is Status.PASS, result.failure_message()
    assert [c.label for c in result.comparisons] == ["dbt run -s current_events twice"]
    assert result.comparisons[0].diff_for("current_events").left_rows > 0
    assert result.exercised["models run twice on their own"] == 1


def test_skip_and_only_list_the_checks_left_out(tmp_path: Path, capsys) -> None:
    code = main(
        [
            "all",
            "--project-dir",
            str(PROJECTS / "correct"),
            "--deliveries",
            str(DELIVERIES),
            "--only",
            "keys",
            "idempotency",
            "--skip",
            "idempotency",
            "--exclude",
            "daily_revenue",
            "--threads",
            "2",
            "--work-dir",
            str(tmp_path),
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "== keys: PASS" in out
    assert "== idempotency: SKIPPED (0.0 s): skipped by --skip" in out
    assert "== crash: SKIPPED (0.0 s): left out by --only" in out
    assert "1 passed, 0 failed, 0 not exercised, 8 skipped" in out


def test_exclude_leaves_a_model_out_of_every_build(workdir: Path) -> None:
    ctx_result = run_fixture_check("keys", "correct", workdir)
    assert ctx_result.status is Status.PASS
    from harness.dbt_invoke import DbtSettings
    from harness.session import open_session

    project = PROJECTS / "correct"
    ctx = open_session(
        DbtSettings(project, project, exclude=("daily_revenue",), threads=2),
        workdir / "excluded",
        deliveries=DELIVERIES,
    )
    assert ctx.selected is not None and "model.fixture_correct.daily_revenue" not in ctx.selected
    assert "model.fixture_correct.current_events" in ctx.selected
    assert ctx.settings.scratch is not None
    profile = (ctx.settings.scratch.profiles_dir / "profiles.yml").read_text()
    assert "threads: 2" in profile


def _copy_project(tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    shutil.copytree(PROJECTS / "correct", copy, ignore=shutil.ignore_patterns("target", "logs"))
    return copy


def _state_of(project: Path, state: Path) -> None:
    """What main's CI keeps: the manifest of the unchanged project (`dbt parse`)."""
    from dbt.cli.main import dbtRunner

    previous = os.environ.get("DBT_DUCKDB_PATH")
    os.environ["DBT_DUCKDB_PATH"] = str(state / "unused.duckdb")
    try:
        outcome = dbtRunner().invoke(
            [
                "parse",
                "--project-dir",
                str(project),
                "--profiles-dir",
                str(project),
                "--target-path",
                str(state),
                "--log-path",
                str(state / "logs"),
                "--log-level",
                "none",
            ]
        )
    finally:
        if previous is None:
            os.environ.pop("DBT_DUCKDB_PATH", None)
        else:
            os.environ["DBT_DUCKDB_PATH"] = previous
    assert outcome.success, outcome.exception
    assert not (state / "unused.duckdb").exists()


def test_state_modified_defer_judges_only_the_changed_model_and_its_children(tmp_path: Path, capsys) -> None:
    project = _copy_project(tmp_path)
    state = tmp_path / "state"
    _state_of(project, state)
    # The pull request: order_item_totals gets a column stamped with the build time.
    model = project / "models" / "order_item_totals.sql"
    model.write_text(
        model.read_text().replace(
            "    count(*) as event_count\n", "    count(*) as event_count,\n    now() as refreshed_at\n"
        )
    )
    junit = tmp_path / "junit.xml"
    code = main(
        [
            "all",
            "--project-dir",
            str(project),
            "--deliveries",
            str(DELIVERIES),
            "--select",
            "state:modified+",
            "--state",
            str(state),
            "--defer",
            "--only",
            "keys",
            "idempotency",
            "--junit",
            str(junit),
            "--work-dir",
            str(tmp_path / "work"),
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1, out
    assert "== idempotency: FAIL" in out and "1 table(s) differ: order_item_totals" in out
    assert "hint: volatile column(s) refreshed_at" in out
    # Only the changed model is judged; its parents were built (from the deliveries) but not judged.
    assert "main.current_events: not judged: not selected" in out
    assert "DIFF main.order_item_totals" in out
    assert junit.exists()


def test_state_modified_with_nothing_changed_skips_every_check(tmp_path: Path, capsys) -> None:
    # A pull request that changes no model: every check is skipped, saying why; exit 0.
    project = _copy_project(tmp_path)
    state = tmp_path / "state"
    _state_of(project, state)
    code = main(
        [
            "all",
            "--project-dir",
            str(project),
            "--deliveries",
            str(DELIVERIES),
            "--select",
            "state:modified+",
            "--state",
            str(state),
            "--work-dir",
            str(tmp_path / "work"),
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "== idempotency: SKIPPED (0.0 s): no node changed: --select state:modified+" in out
    assert "0 passed, 0 failed, 0 not exercised, 9 skipped" in out


def test_unit_tests_run_only_with_the_flag(tmp_path: Path, capsys) -> None:
    # A unit test that fails: the checks' builds leave it out unless --unit-tests asks for it.
    project = _copy_project(tmp_path)
    (project / "models" / "unit_tests.yml").write_text(
        "unit_tests:\n"
        "  - name: revenue_of_one_sale_is_wrong_on_purpose\n"
        "    model: daily_revenue\n"
        "    given:\n"
        "      - input: ref('current_events')\n"
        "        rows:\n"
        "          - {company_id: c1, event_time: '2026-11-01 10:00:00', currency: EUR,"
        " event_type: sale, amount_cents: 5}\n"
        "    expect:\n"
        "      rows:\n"
        "        - {company_id: c1, revenue_date: '2026-11-01', currency: EUR, net_cents: 6}\n"
    )
    outputs: list[str] = []
    for flags in ([], ["--unit-tests"]):
        code = main(
            [
                "keys",
                "--project-dir",
                str(project),
                "--deliveries",
                str(DELIVERIES),
                *flags,
                "--work-dir",
                str(tmp_path / f"work{len(outputs)}"),
                "--quiet",
            ]
        )
        outputs.append(capsys.readouterr().out)
        assert code == 0, outputs[-1]  # a failing test is the project's finding, not the check's
    assert "revenue_of_one_sale_is_wrong_on_purpose" not in outputs[0], outputs[0]
    assert "unit tests run" not in outputs[0] and "unit tests run 1" in outputs[1], outputs
    assert "dbt tests that failed" in outputs[1], outputs[1]
    assert "revenue_of_one_sale_is_wrong_on_purpose" in outputs[1], outputs[1]


def test_only_the_checks_builds_leave_unit_tests_out(tmp_path: Path) -> None:
    from harness.dbt_invoke import DbtSettings, build_args
    from harness.target import ScratchProfile

    scratch = ScratchProfile(tmp_path, "profile", "dev", "duckdb", str(tmp_path / "user.duckdb"))

    def leaves_out(settings: DbtSettings, command: str = "build") -> bool:
        return "resource_type:unit_test" in build_args(settings, command, target_path=tmp_path, landing=None)

    assert leaves_out(DbtSettings(tmp_path, scratch=scratch))
    assert leaves_out(DbtSettings(tmp_path, scratch=scratch), "test")
    assert not leaves_out(DbtSettings(tmp_path, scratch=scratch), "run")
    assert not leaves_out(DbtSettings(tmp_path, scratch=scratch, unit_tests=True))
    assert not leaves_out(DbtSettings(tmp_path))  # the demo builds the user's warehouse as dbt does
