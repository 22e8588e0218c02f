"""The consumer CI template (harness/templates/rerun-safe-pr.yml, what `rerun-safe init-ci`
writes): its hardening, its lint (actionlint and zizmor, as `make lint` runs them), and its run:
steps executed in order, in a scratch clone of a git repository holding the consumer project
(tests/package/consumer) whose pull request changes one model. The GitHub-only steps (checkout,
setup-python, artifact upload, the comment) and the pip install (tests/package/test_install.py
runs that) are left out: the dbt and rerun-safe of this environment are on PATH instead."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from harness import init_ci
from tests.package.consumer import BATCHES, FIXTURE, SEED_COLUMNS

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "harness" / "templates" / "rerun-safe-pr.yml"
BIN = Path(sys.executable).parent
# The steps run here, in the template's order.
RUN_HERE = ("base-checkout", "profile", "deps", "base-state", "harness", "summary", "verdict")


def load_template() -> dict:
    workflow = yaml.safe_load(TEMPLATE.read_text(encoding="utf-8"))
    assert isinstance(workflow, dict)
    return workflow


def job() -> dict:
    jobs = load_template()["jobs"]
    assert list(jobs) == ["rerun-safe"]
    return jobs["rerun-safe"]


def test_the_template_keeps_the_hardening() -> None:
    workflow = load_template()
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers is not None, "the workflow has no trigger"
    assert list(triggers) == ["pull_request"]  # never pull_request_target: a fork's code with a write token
    assert workflow["permissions"] == {"contents": "read"}
    assert job()["permissions"] == {"contents": "read", "pull-requests": "write"}
    assert "cancel-in-progress" in workflow["concurrency"]
    steps = job()["steps"]
    for step in steps:
        if "uses" in step:
            assert re.fullmatch(r"[\w-]+/[\w-]+@[0-9a-f]{40}", step["uses"]), f"not pinned to a commit: {step['uses']}"
        if "run" in step:
            assert "${{" not in step["run"], f"an expression inside a run: script ({step.get('name')})"
    text = TEMPLATE.read_text(encoding="utf-8")
    assert all(
        f"{line.split('@')[0]}@" in text and re.search(r"@[0-9a-f]{40} # v\d", line)
        for line in text.splitlines()
        if "uses:" in line
    )
    checkouts = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout@")]
    assert checkouts and all(s["with"]["persist-credentials"] is False for s in checkouts)
    assert checkouts[0]["with"]["fetch-depth"] == 0  # the base commit must be in the clone
    comment = next(s for s in steps if "gh pr comment" in str(s.get("run", "")))
    assert "head.repo.full_name == github.repository" in comment["if"]  # no comment from a fork's token
    assert "MARKER" in comment["env"] and "PATCH" in comment["run"]  # one comment, edited in place


def test_the_template_is_a_consumers_not_this_repositorys() -> None:
    """Nothing of this repository (make, .venv, pipeline_demo, requirements.lock, a profile in the
    project); the harness installed in its range from a URL the comment says to set; dbt deps in
    both checkouts; the pull request's selection against the base manifest; a profile of its own."""
    text = TEMPLATE.read_text(encoding="utf-8")
    for forbidden in ("make ", ".venv", "pipeline_demo", "requirements.lock", '--profiles-dir "$PROJECT_DIR"'):
        assert forbidden not in text, forbidden
    steps = {step.get("id"): step for step in job()["steps"] if step.get("id")}
    assert set(RUN_HERE) | {"install"} <= set(steps)
    lines = text.splitlines()
    harness_line = next(i for i, line in enumerate(lines) if line.strip().startswith("HARNESS:"))
    assert "your fork's url" in lines[harness_line - 1].lower() and "<owner>" in lines[harness_line]
    assert init_ci.HARNESS_LINE in text
    assert '"$HARNESS"' in steps["install"]["run"]
    setup = next(s for s in job()["steps"] if str(s.get("uses", "")).startswith("actions/setup-python@"))
    assert setup["with"]["cache-dependency-path"].startswith(".github/workflows/")  # a file every consumer has
    assert '"$PROJECT_DIR" "$BASE_DIR"' in steps["deps"]["run"] and "dbt deps" in steps["deps"]["run"]
    run = steps["harness"]["run"]
    assert "--select state:modified+ --state" in run and "--defer" in run and "--junit" in run
    assert "DBT_PROFILES_DIR=" in steps["profile"]["run"] and "duckdb" in steps["profile"]["run"]


def test_make_lint_lints_the_template_with_actionlint_and_zizmor() -> None:
    lint = (REPO / "Makefile").read_text().split("\nlint:", 1)[1].split("\n\n", 1)[0]
    relative = str(TEMPLATE.relative_to(REPO))
    assert any("actionlint" in line and relative in line for line in lint.splitlines())
    assert any("zizmor" in line and relative in line for line in lint.splitlines())
    actionlint = subprocess.run(
        [str(BIN / "actionlint"), "-shellcheck", str(BIN / "shellcheck"), str(TEMPLATE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert actionlint.returncode == 0, actionlint.stdout + actionlint.stderr
    zizmor = subprocess.run(
        [str(BIN / "zizmor"), "--offline", "--persona=pedantic", str(TEMPLATE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert zizmor.returncode == 0, zizmor.stdout + zizmor.stderr


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    return subprocess.run(
        ["git", "-C", str(cwd), *args], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


def consumer_repository(root: Path) -> tuple[str, str]:
    """A git repository of the consumer project (packages.yml: this checkout's macros, the raw
    seed committed) with a base commit and a pull-request commit that changes orders_merged."""
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("target", "dbt_packages", "logs"))
    (root / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": str(REPO / "macros")}]}))
    (root / ".gitignore").write_text("target/\ndbt_packages/\nlogs/\nreports/\n")
    (root / "seeds").mkdir()
    rows = [",".join(map(str, row)) for batch in BATCHES for row in batch]
    (root / "seeds" / "raw_order_events.csv").write_text("\n".join([",".join(SEED_COLUMNS), *rows]) + "\n")
    (root / "profiles.yml").unlink()  # most projects keep no profile: the workflow writes its own
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    base = _git(root, "rev-parse", "HEAD")
    model = root / "models" / "orders_merged.sql"
    model.write_text(model.read_text() + "-- reviewed\n")
    _git(root, "commit", "-q", "-am", "the pull request")
    return base, _git(root, "rev-parse", "HEAD")


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


def test_the_template_runs_on_a_consumer_pull_request(tmp_path: Path) -> None:
    base_sha, head_sha = consumer_repository(tmp_path / "origin")
    workspace = tmp_path / "workspace"
    subprocess.run(["git", "clone", "-q", str(tmp_path / "origin"), str(workspace)], check=True)
    _git(workspace, "checkout", "-q", head_sha)
    runner_temp = tmp_path / "runner_temp"
    runner_temp.mkdir()
    github_output, step_summary, github_env = (tmp_path / name for name in ("output", "summary.md", "env"))
    github_env.touch()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DBT_", "GITHUB_"))},
        **{key: str(value) for key, value in job()["env"].items()},
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "BASE_DIR": str(tmp_path / "base"),
        "DELIVERIES": "",
        "SPLIT_ARGS": "--split-source raw_order_events --by updated_at --batches 2",
        "HARNESS_ARGS": "--only idempotency --quiet",
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_OUTPUT": str(github_output),
        "GITHUB_STEP_SUMMARY": str(step_summary),
        "GITHUB_ENV": str(github_env),
        "BASE_SHA": base_sha,
    }
    status = None
    for step in job()["steps"]:
        if step.get("id") not in RUN_HERE:
            continue
        if step["id"] == "verdict":
            env["HARNESS_STATUS"] = status or ""
        step_env = {k: str(v) for k, v in (step.get("env") or {}).items() if "${{" not in str(v)}
        done = _run_step(step["run"], {**env, **step_env}, workspace)
        for line in github_env.read_text().splitlines():  # as GitHub does
            name, value = line.split("=", 1)
            env[name] = value
        assert done.returncode == 0 or step["id"] == "verdict", (
            f"{step['id']}: {done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
        if step["id"] == "harness":
            status = dict(line.split("=", 1) for line in github_output.read_text().splitlines())["status"]
            assert status == "0", done.stdout[-4000:] + done.stderr[-3000:]
        if step["id"] == "verdict":
            assert done.returncode == 0
    reports = workspace / env["REPORTS"]
    assert (reports / "base-state" / "manifest.json").exists()
    assert (tmp_path / "base" / "dbt_packages" / "rerun_safe").exists()  # dbt deps ran in the base checkout
    suite = ET.parse(reports / "harness.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "0"
    summary = step_summary.read_text()
    assert summary == (reports / "harness.md").read_text()
    assert "| idempotency | ✅ pass |" in summary and "orders_merged" in summary
    assert "judged, as dbt ls selects them: orders_merged\n" in summary  # only the changed model
    assert "| `main.raw_order_events` | not judged: not selected |" in summary
    assert not (workspace / "profiles.yml").exists()  # the CI profile lives outside the project


def _init_ci(project: Path, *extra: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    init_ci.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["init-ci", "--project-dir", str(project), *extra])


def test_init_ci_writes_the_template_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "shop"
    project.mkdir()
    assert init_ci.run(_init_ci(project)) == 2
    assert "has no dbt_project.yml" in capsys.readouterr().err and not (project / ".github").exists()
    (project / "dbt_project.yml").write_text("name: shop\nprofile: shop\n")
    url = "https://github.com/acme/rerun_safe.git"
    assert init_ci.run(_init_ci(project, "--harness-url", url, "--revision", "v0.1.0")) == 0
    written = (project / ".github" / "workflows" / "rerun-safe.yml").read_text()
    assert f'HARNESS: "rerun-safe-harness @ git+{url}@v0.1.0"' in written
    assert written.replace(f"git+{url}@v0.1.0", "git+https://github.com/<owner>/rerun_safe.git@<tag or commit>") == (
        TEMPLATE.read_text(encoding="utf-8")
    )
    said = capsys.readouterr().out
    assert "set DELIVERIES or SPLIT_ARGS" in said and "HARNESS" not in said  # the URL and revision are set
    assert init_ci.run(_init_ci(project)) == 2  # never overwritten
    assert "exists: not overwritten" in capsys.readouterr().err
    assert (project / ".github" / "workflows" / "rerun-safe.yml").read_text() == written


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--harness-url", 'https://x/y.git" injected: "1'),
        ("--harness-url", "https://x/y.git@main"),
        ("--harness-url", "https://x/$(id).git"),
        ("--revision", "main\nrun: id"),
        ("--revision", "-main"),
    ],
)
def test_init_ci_refuses_a_value_that_is_not_plain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str
) -> None:
    (tmp_path / "dbt_project.yml").write_text("name: shop\n")
    assert init_ci.run(_init_ci(tmp_path, f"{flag}={value}")) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"rerun-safe: {flag} ") and err.count("\n") == 1
    assert not (tmp_path / ".github").exists()


def test_init_ci_follows_no_link(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "dbt_project.yml").write_text("name: shop\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / ".github").symlink_to(elsewhere)
    assert init_ci.run(_init_ci(tmp_path)) == 2
    assert "symbolic link" in capsys.readouterr().err and list(elsewhere.iterdir()) == []


def test_split_source_finds_a_seed_of_a_project_whose_seed_paths_are_templated(tmp_path: Path) -> None:
    """The consumer's seed-paths is a Jinja string: read as a list of folders it named `/`, and
    the search walked the whole file system."""
    from harness.split import find_source

    (tmp_path / "dbt_project.yml").write_text(
        "name: shop\nseed-paths: \"{{ ['seeds', 'more/seeds'] if var('x', false) else ['seeds'] }}\"\n"
    )
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "raw.csv").write_text("a\n1\n")
    assert find_source(tmp_path, "raw") == (tmp_path / "seeds" / "raw.csv").resolve()
