"""The command line: exit status, JUnit XML and Markdown files, --help everywhere."""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harness import checks
from harness.cli import build_parser, main
from tests.harness.helpers import DELIVERIES, PROJECTS

REPO = Path(__file__).resolve().parents[2]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_idempotency_on_the_twin_exits_0_and_writes_reports(tmp_path: Path) -> None:
    junit, summary = tmp_path / "junit.xml", tmp_path / "summary.md"
    done = run_cli(
        "idempotency",
        "--project-dir",
        str(PROJECTS / "correct"),
        "--deliveries",
        str(DELIVERIES),
        "--work-dir",
        str(tmp_path / "work"),
        "--junit",
        str(junit),
        "--summary",
        str(summary),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "== idempotency: PASS" in done.stdout
    assert "[idempotency] rerun: dbt build" in done.stderr  # progress lines
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "0", "0")
    (case,) = suite.findall("testcase")
    assert case.get("name") == "idempotency" and case.find("failure") is None
    text = summary.read_text()
    assert "| idempotency | ✅ pass |" in text
    assert "`main.current_events` | identical" in text
    assert "`main.run_log` | not judged" in text
    assert "| `main.event_computed_at` | identical | computed_at |" in text
    assert not list((tmp_path / "work").iterdir())  # temp folders removed


def test_idempotency_on_a_buggy_model_exits_1_with_the_failure_in_junit(tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    done = run_cli(
        "idempotency",
        "--project-dir",
        str(PROJECTS / "buggy"),
        "--deliveries",
        str(DELIVERIES),
        "--select",
        "current_time",
        "--junit",
        str(junit),
        "--quiet",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "== idempotency: FAIL" in done.stdout and "differ: current_time" in done.stdout
    assert done.stderr == ""
    failure = ET.parse(junit).getroot().find("testsuite/testcase/failure")
    assert failure is not None
    assert failure.get("message") == "1 table(s) differ: current_time"
    assert "changed columns: computed_at" in (failure.text or "")


def test_a_selection_that_matches_nothing_is_an_error(tmp_path: Path, capsys) -> None:
    code = main(
        [
            "idempotency",
            "--project-dir",
            str(PROJECTS / "correct"),
            "--deliveries",
            str(DELIVERIES),
            "--select",
            "no_such_model",
            "--work-dir",
            str(tmp_path),
            "--quiet",
        ]
    )
    assert code == 2
    assert "matched nothing" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command", ["idempotency", "convergence", "replay", "batches", "crash", "concurrency", "lateness", "all"]
)
def test_every_command_has_help(command: str, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args([command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for flag in ("--project-dir", "--profiles-dir", "--target", "--select", "--vars", "--junit", "--summary"):
        assert flag in out


def test_vars_are_read_like_dbt(capsys) -> None:
    args = build_parser().parse_args(["lateness", "--vars", "{allowed_lateness_hours: 48, x: 'a'}"])
    assert args.vars == {"allowed_lateness_hours": 48, "x": "a"}
    with pytest.raises(SystemExit):
        build_parser().parse_args(["lateness", "--vars", "[1, 2]"])
    assert "mapping" in capsys.readouterr().err


def test_missing_project_or_deliveries_is_an_error(tmp_path: Path, capsys) -> None:
    assert main(["idempotency", "--project-dir", str(tmp_path)]) == 2
    assert "no dbt_project.yml" in capsys.readouterr().err
    assert main(["replay", "--project-dir", str(PROJECTS / "correct")]) == 2
    assert "replay needs --deliveries DIR" in capsys.readouterr().err


def test_all_without_deliveries_skips_what_needs_them_and_shows_dbts_error(tmp_path: Path, capsys) -> None:
    # The fixture reads landing/*.csv: without deliveries its first build builds no model. keys
    # could not run (exit 2) and says why in dbt's own words; the build cannot start, so
    # idempotency is not tried again; the rest does not apply.
    code = main(["all", "--project-dir", str(PROJECTS / "correct"), "--work-dir", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    assert code == 2, out
    assert "== keys: ERROR" in out
    assert "== idempotency: SKIPPED (0.0 s): not run: the build cannot start (reported by keys)" in out
    assert 'No files found that match the pattern "landing/*.csv"' in out
    assert "nodes dbt skipped after a failure upstream: model.fixture_correct.current_events" in out
    assert "== replay: SKIPPED (0.0 s): does not apply: needs --deliveries DIR" in out
    assert "8 skipped, 1 could not run" in out


def test_the_harness_offers_only_checks_not_this_pipelines_tools(capsys) -> None:
    # generate and demo belong to this repository's pipeline (python -m pipeline_demo).
    for command in ("generate", "demo"):
        with pytest.raises(SystemExit) as exit_info:
            build_parser().parse_args([command])
        assert exit_info.value.code == 2
        assert "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("check", checks.CHECKS, ids=lambda check: check.name)
def test_a_check_given_none_of_its_flags_takes_its_options_defaults(check) -> None:
    for command in (check.name, "all"):
        assert check.options_from(build_parser().parse_args([command])) == check.default_options()


@pytest.mark.parametrize("check", checks.CHECKS, ids=lambda check: check.name)
def test_every_check_option_has_its_default_once_in_its_options_dataclass(check) -> None:
    # A flag defaults to None; the check's Options dataclass holds the default, so `--help`,
    # the CLI and a check run in-process (run_fixture_check) cannot disagree.
    parser = argparse.ArgumentParser()
    check.add_arguments(parser)
    flags = [action for action in parser._actions if not isinstance(action, argparse._HelpAction)]
    if not flags:
        return
    fields = {field.name for field in dataclasses.fields(check.options_type)}
    for action in flags:
        assert action.default is None, f"{check.name} {action.option_strings}: default {action.default!r}"
        assert action.dest in fields, f"{check.name}: {action.dest} is not a field of its options"
