"""harness.childlog reads a child dbt's JSON log (its structured events, not its text lines).

Pinned on dbt's own output: tests/fixtures/dbt_json_log holds two logs recorded from dbt 1.11
(`dbt build --log-format-file json --log-level-file info`, see its README), and one test runs
a real child dbt with a user's log settings set against the harness's."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from harness import childlog
from harness.dbt_invoke import DbtSettings, build_args, read_run_results, subprocess_command
from harness.errors import ChildLogError
from tests.harness.helpers import FIXTURES

LOGS = FIXTURES / "dbt_json_log"
BUILD = LOGS / "build_with_errors.log"  # 1 hook, 7 nodes: a test fails, a model errors, one skipped
LOCK = LOGS / "lock_error.log"  # stopped before any node: the warehouse file was locked


def _cut(tmp_path: Path, after: str, partial: bool = True) -> Path:
    """The build's log as a child killed right after its first event line containing `after`
    left it: the next line cut short (dbt was writing it)."""
    lines = BUILD.read_text().splitlines(keepends=True)
    cut = next(n for n, line in enumerate(lines) if after in line)
    log = tmp_path / "dbt.log"
    log.write_text("".join(lines[: cut + 1]) + (lines[cut + 1][:40] if partial else ""))
    return log


def test_progress_of_a_finished_build_counts_nodes_not_hooks() -> None:
    assert childlog.progress(BUILD) == childlog.ChildProgress(total=7, finished=7, running=())
    assert childlog.progress(BUILD).describe() == "between nodes (7 of 7 nodes done)"


@pytest.mark.parametrize(
    ("after", "described"),
    [
        ('"name": "ConcurrencyLine"', "before any node started (start-up, parsing or hooks)"),
        ('"name": "LogHookStartLine"', "before any node started (start-up, parsing or hooks)"),
        ('"msg": "2 of 7 START', "during sql view model main.b (1 of 7 nodes done)"),
        ('"msg": "6 of 7 START', "during sql view model main.bad (5 of 7 nodes done)"),
        ('"name": "SkippingDetails"', "between nodes (7 of 7 nodes done)"),
    ],
)
def test_child_log_tells_where_a_build_was_killed(tmp_path: Path, after: str, described: str) -> None:
    assert childlog.progress(_cut(tmp_path, after)).describe() == described


def test_no_log_file_is_a_child_that_never_started(tmp_path: Path) -> None:
    missing = tmp_path / "logs" / "dbt.log"
    assert childlog.progress(missing).describe() == "before any node started (start-up, parsing or hooks)"
    assert childlog.error_message(missing) == ""
    output = tmp_path / "spawn_01.log"
    output.write_text("Traceback (most recent call last):\n  ...\nModuleNotFoundError: No module named 'dbt'\n\n")
    assert childlog.error_message(missing, output) == "ModuleNotFoundError: No module named 'dbt'"


def test_the_error_message_is_dbts_exception_else_its_error_events() -> None:
    assert childlog.error_message(LOCK) == (
        'IO Error: Could not set lock on file "/tmp/h/play/p/w.duckdb": Conflicting lock is held in '
        "/root/.pyenv/versions/3.11.7/bin/python3.11 (PID 13460). See also "
        "https://duckdb.org/docs/current/connect/concurrency"
    )
    # No exception: the first three error-level events, on one line each, without colours.
    assert childlog.error_message(BUILD) == (
        "5 of 7 FAIL 1 accepted_values_b_id__2 .......................................... [FAIL 1 in 0.03s] "
        "6 of 7 ERROR creating sql view model main.bad .................................. [ERROR in 0.03s] "
        "Failure in test accepted_values_b_id__2 (models/s.yml)"
    )


def test_a_stack_trace_is_never_the_message(tmp_path: Path) -> None:
    # The lock log without its MainEncounteredError: the stack trace (error level) is skipped.
    log = tmp_path / "dbt.log"
    lines = LOCK.read_text().splitlines(keepends=True)
    log.write_text("".join(line for line in lines if "MainEncounteredError" not in line))
    assert childlog.error_message(log) == ""


def test_a_text_log_is_a_clear_error(tmp_path: Path) -> None:
    log = tmp_path / "dbt.log"
    log.write_text("\n[0m12:00:00.1  Running with dbt=1.11.16\n")
    with pytest.raises(ChildLogError, match=r"dbt\.log line 2 is not one of dbt's JSON log events"):
        childlog.progress(log)
    with pytest.raises(ChildLogError, match="--log-format-file json"):
        childlog.wait_for_execution(log, lambda: False)


def test_execution_starts_at_dbts_concurrency_event(tmp_path: Path) -> None:
    assert childlog.wait_for_execution(BUILD, lambda: False) is not None
    # Cut right before ConcurrencyLine, half of it written: not yet executing.
    lines = BUILD.read_text().splitlines(keepends=True)
    at = next(n for n, line in enumerate(lines) if '"ConcurrencyLine"' in line)
    log = tmp_path / "dbt.log"
    log.write_text("".join(lines[:at]) + lines[at][:-1])
    assert childlog.wait_for_execution(log, lambda: False) is None


def test_every_dbt_call_writes_its_log_file_as_json(tmp_path: Path) -> None:
    settings = DbtSettings(project_dir=tmp_path)
    for command in ("build", "ls", "parse"):
        args = build_args(settings, command, target_path=tmp_path / "t", landing=None)
        assert args[args.index("--log-format-file") + 1] == "json"
    argv, _ = subprocess_command(settings, "build", warehouse=tmp_path / "w.duckdb", target_path=tmp_path, landing=None)
    assert argv[argv.index("--log-format-file") + 1] == "json"
    assert argv[argv.index("--log-level-file") + 1] == "info"


def test_a_real_child_build_is_read_whatever_the_users_log_settings(tmp_path: Path) -> None:
    # The user asks for text logs every way dbt offers (env vars and the project's flags) and
    # for no log file at all: the harness's own flags on the command line win.
    project = tmp_path / "project"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(
        "name: tiny\nversion: '1.0'\nprofile: tiny\n"
        "flags:\n  log_format: text\n  log_format_file: text\n  log_level_file: none\n"
    )
    (project / "profiles.yml").write_text(
        "tiny:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        "      path: \"{{ env_var('DBT_DUCKDB_PATH') }}\"\n      threads: 1\n"
    )
    (project / "models" / "a.sql").write_text("select 1 as id\n")
    (project / "models" / "bad.sql").write_text("select no_such_column from {{ ref('a') }}\n")
    (project / "models" / "after_bad.sql").write_text("select * from {{ ref('bad') }}\n")
    target = tmp_path / "target"
    argv, env = subprocess_command(
        DbtSettings(project_dir=project, profiles_dir=project),
        "build",
        warehouse=tmp_path / "w.duckdb",
        target_path=target,
        landing=None,
    )
    env.update(DBT_LOG_FORMAT="text", DBT_LOG_FORMAT_FILE="text", DBT_LOG_LEVEL_FILE="none")
    with (tmp_path / "output.log").open("w") as sink:
        child = subprocess.Popen(argv, env=env, stdout=sink, stderr=subprocess.STDOUT)
    log = target / "logs" / "dbt.log"
    try:
        assert childlog.wait_for_execution(log, lambda: child.poll() is None) is not None
    finally:
        child.wait(timeout=300)
    assert child.returncode == 1
    names = [json.loads(line)["info"]["name"] for line in log.read_text().splitlines()]
    assert "LogStartLine" in names and "NodeStart" not in names  # JSON, at info level
    assert childlog.progress(log).describe() == "between nodes (3 of 3 nodes done)"
    message = childlog.error_message(log, tmp_path / "output.log")
    assert message.startswith("2 of 3 ERROR creating sql view model main.bad ")
    assert "Referenced column" in message or "no_such_column" in message
    statuses = {node.unique_id: node.status for node in read_run_results(target)}
    assert statuses == {"model.tiny.a": "success", "model.tiny.bad": "error", "model.tiny.after_bad": "skipped"}
