"""The shipped CI: .github/workflows/ci.yml is valid YAML, runs `make test`, and its
pull-request harness job works: its run: steps are executed here, in order, on a fixture
project whose pull request changes one model (the GitHub-only steps are left out).
.pre-commit-config.yaml is valid and runs sqlfluff and ruff."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

from tests.harness.helpers import DELIVERIES, PROJECTS

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github" / "workflows" / "ci.yml"
PRE_COMMIT = REPO / ".pre-commit-config.yaml"
# Steps that need GitHub itself (a checkout of the base sha, a token): not run here.
RUN_HERE = ("base-state", "deliveries", "harness", "summary", "verdict")


def load_workflow() -> dict:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    assert isinstance(workflow, dict)
    return workflow


def test_the_workflow_runs_make_test_and_the_harness_on_pull_requests() -> None:
    workflow = load_workflow()
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers is not None, workflow
    assert "pull_request" in triggers and "push" in triggers
    test_steps = workflow["jobs"]["test"]["steps"]
    assert any(step.get("run") == "make test" for step in test_steps)
    harness = workflow["jobs"]["harness"]
    assert harness["if"] == "github.event_name == 'pull_request'"
    steps = {step.get("id"): step for step in harness["steps"] if step.get("id")}
    assert set(RUN_HERE) <= set(steps)
    assert "--select state:modified+ --state" in steps["harness"]["run"] and "--defer" in steps["harness"]["run"]
    uploads = [s for s in harness["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    assert uploads and "reports/harness.xml" in uploads[0]["with"]["path"]
    assert any("gh pr comment" in str(s.get("run", "")) for s in harness["steps"])


def _run_step(script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-eo", "pipefail", "-c", script],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def test_the_pull_request_job_checks_the_changed_model(tmp_path: Path) -> None:
    base = tmp_path / "base"
    shutil.copytree(PROJECTS / "correct", base, ignore=shutil.ignore_patterns("target", "logs"))
    head = tmp_path / "head"
    shutil.copytree(base, head)
    # The pull request: order_item_totals appends a build timestamp (not idempotent).
    model = head / "models" / "order_item_totals.sql"
    model.write_text(
        model.read_text().replace(
            "    count(*) as event_count\n", "    count(*) as event_count,\n    now() as refreshed_at\n"
        )
    )
    harness = load_workflow()["jobs"]["harness"]
    bin_dir = Path(sys.executable).parent
    runner_temp = tmp_path / "runner_temp"
    runner_temp.mkdir()
    github_output, step_summary, github_env = (tmp_path / name for name in ("output", "summary.md", "env"))
    env = {
        **os.environ,
        **{key: str(value) for key, value in harness["env"].items()},
        "PROJECT_DIR": str(head),
        "BASE_DIR": str(base),
        "REPORTS": str(tmp_path / "reports"),
        "PY": sys.executable,
        "DBT": str(bin_dir / "dbt"),
        "DELIVERIES": str(DELIVERIES),
        "HARNESS_ARGS": "--only keys idempotency replay --quiet",
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_OUTPUT": str(github_output),
        "GITHUB_STEP_SUMMARY": str(step_summary),
        "GITHUB_ENV": str(github_env),
    }
    status = None
    for step in harness["steps"]:
        if step.get("id") not in RUN_HERE:
            continue
        if step["id"] == "verdict":
            env["HARNESS_STATUS"] = status or ""
        done = _run_step(
            step["run"], {**env, **{k: str(v) for k, v in (step.get("env") or {}).items() if "${{" not in str(v)}}, REPO
        )
        if step["id"] == "harness":
            status = dict(line.split("=", 1) for line in github_output.read_text().splitlines())["status"]
            assert status == "1", done.stdout[-4000:] + done.stderr[-2000:]
        elif step["id"] == "verdict":
            assert done.returncode == 1  # the job fails because a check failed
        else:
            assert done.returncode == 0, f"{step['id']}: {done.stdout}\n{done.stderr}"
    reports = tmp_path / "reports"
    assert (reports / "base-state" / "manifest.json").exists()
    suite = ET.parse(reports / "harness.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    summary = step_summary.read_text()
    assert "| idempotency | ❌ fail |" in summary and "order_item_totals" in summary
    assert "### models × checks" in summary  # noqa: RUF001 the heading has a multiplication sign (U+00D7)
    assert "| replay | ✅ pass |" in summary
    # Only the changed model was judged: its parents were built, listed as not selected.
    assert "`main.current_events` | not judged: not selected" in summary


def test_pre_commit_runs_sqlfluff_and_ruff() -> None:
    """The hooks run the tools make lint runs, from .venv: ruff check (its banned-api rule among
    the others), ruff format --check, mypy and sqlfluff lint."""
    config = yaml.safe_load(PRE_COMMIT.read_text())
    hooks = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    lint = (REPO / "Makefile").read_text().split("\nlint:", 1)[1].split("\n\n", 1)[0]
    for hook, command in {
        "ruff-check": "ruff check",
        "ruff-format": "ruff format --check",
        "mypy": "mypy",
        "sqlfluff-lint": "sqlfluff lint",
    }.items():
        assert f".venv/bin/{command}" in hooks[hook]["entry"], hook
        assert f"$(BIN)/{command}" in lint, f"make lint does not run {command}"
    assert (REPO / ".sqlfluff").exists()
