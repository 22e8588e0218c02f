"""Paths of the fixtures and a helper to run one harness check in-process on a fixture project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness import checks
from harness.context import CheckContext
from harness.dbt_invoke import DbtSettings
from harness.results import CheckResult
from harness.runner import run_check

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
    **options: Any,
) -> CheckResult:
    project_dir = PROJECTS / project
    ctx = CheckContext(
        settings=DbtSettings(project_dir=project_dir, profiles_dir=project_dir, target=target),
        workdir=workdir,
        select=select,
        deliveries=DELIVERIES,
        options=options,
    )
    return run_check(checks.by_name()[check], ctx)
