"""PR selection: `--select state:modified+ --state <base> --defer` judges exactly
what `dbt ls` selects with the same state folder, and the report names the models deferred."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.dbt_invoke import DbtSettings
from harness.report import render_terminal, selection_lines
from harness.session import open_session
from tests.harness.helpers import PROJECTS

DBT = str(Path(sys.executable).parent / "dbt")


@pytest.fixture(scope="module")
def pull_request(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    """(head project, base state folder, what dbt ls selects there): one model changed."""
    root = tmp_path_factory.mktemp("pr")
    base, head = root / "base", root / "head"
    # jaffle_sources' profile names its file (path: jaffle_shop.duckdb): the base manifest's
    # database is jaffle_shop, the harness's scratch file another one
    shutil.copytree(PROJECTS / "jaffle_sources", base, ignore=shutil.ignore_patterns("target", "logs", "*.duckdb"))
    shutil.copytree(base, head)
    model = head / "models" / "marts" / "customers.sql"
    model.write_text(model.read_text() + "-- the pull request's change\n")
    env = {**os.environ, "DBT_DUCKDB_PATH": str(root / "unused.duckdb")}
    state = root / "base-state"
    subprocess.run(
        [DBT, "parse", "--quiet", "--project-dir", str(base), "--profiles-dir", str(base), "--target-path", str(state)],
        env=env,
        check=True,
        capture_output=True,
    )
    listed = subprocess.run(
        [
            DBT,
            "ls",
            "--quiet",
            "--project-dir",
            str(head),
            "--profiles-dir",
            str(head),
            "--target-path",
            str(root / "ls-target"),
            "--select",
            "state:modified+",
            "--state",
            str(state),
            "--resource-type",
            "model",
            "--output",
            "json",
            "--output-keys",
            "unique_id",
        ],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    ids = sorted(json.loads(line)["unique_id"] for line in listed.splitlines() if line.startswith("{"))
    return head, state, ids


def test_the_harness_judges_what_dbt_ls_selects_and_names_the_deferred(pull_request, tmp_path: Path) -> None:
    head, state, ids = pull_request
    assert ids == ["model.jaffle_sources.customers"]
    ctx = open_session(
        DbtSettings(project_dir=head, profiles_dir=head, state=state, defer=True),
        tmp_path,
        select=("state:modified+",),
        load_sources=True,
    )
    assert sorted(ctx.selected or ()) == ids  # was: all 5 models
    assert ctx.build_select == ("+customers",)
    assert "model.jaffle_sources.stg_orders" in ctx.deferred
    assert "model.jaffle_sources.customers" not in ctx.deferred
    out = render_terminal([], selection_lines(ctx))
    assert "judged, as dbt ls selects them: customers" in out
    assert "deferred (unchanged" in out and "stg_orders" in out
    assert not (head / "jaffle_shop.duckdb").exists()  # the user's warehouse: never opened


def test_a_deferred_build_runs_only_tests_whose_parents_are_all_selected(tmp_path: Path) -> None:
    # A relationships test from a changed model to an unchanged one reads the unchanged one from
    # the base state, which the scratch warehouse never built: it must not be selected.
    from harness.dbt_invoke import DbtSettings, build_args

    settings = DbtSettings(project_dir=tmp_path, state=tmp_path / "base", defer=True)
    build = build_args(settings, "build", target_path=tmp_path / "t", landing=None, select=["state:modified+"])
    assert build[build.index("--indirect-selection") + 1] == "cautious"
    plain = DbtSettings(project_dir=tmp_path, state=tmp_path / "base")
    assert "--indirect-selection" not in build_args(plain, "build", target_path=tmp_path / "t", landing=None)
