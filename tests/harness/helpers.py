"""Paths of the fixtures and a helper to run one harness check in-process on a fixture project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness import checks
from harness.dbt_invoke import DbtSettings
from harness.results import CheckResult
from harness.runner import run_check
from harness.session import open_session

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PROJECTS = FIXTURES / "projects"
DELIVERIES = FIXTURES / "deliveries"


def run_fixture_check(
    check: str,
    project: str,
    workdir: Path,
    *,
    select: tuple[str, ...] = (),
    target: str | None = None,
    deliveries: Path | None = DELIVERIES,
    project_dir: Path | None = None,
    **options: Any,
) -> CheckResult:
    project_dir = project_dir or PROJECTS / project
    ctx = open_session(
        DbtSettings(project_dir=project_dir, profiles_dir=project_dir, target=target),
        workdir,
        select=select,
        deliveries=deliveries,
    )
    chosen = checks.by_name()[check]
    return run_check(chosen, ctx, chosen.options_from_mapping(options))
