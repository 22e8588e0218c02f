"""Run checks one after another; a check that raises becomes an ERROR result, not a crash."""

from __future__ import annotations

import time
import traceback
from collections.abc import Sequence
from types import ModuleType

from harness.context import CheckContext
from harness.dbt_invoke import DbtError
from harness.results import CheckResult, Status


def run_check(check: ModuleType, ctx: CheckContext) -> CheckResult:
    started = time.monotonic()
    ctx.progress(f"[{check.NAME}] started")
    try:
        result: CheckResult = check.run(ctx)
    except (DbtError, ValueError, FileNotFoundError) as exc:
        result = CheckResult(name=check.NAME, status=Status.ERROR, errors=[str(exc)])
    except Exception as exc:  # a harness bug must still yield a report and a non-zero exit
        result = CheckResult(
            name=check.NAME,
            status=Status.ERROR,
            errors=[f"{type(exc).__name__}: {exc}", traceback.format_exc()],
        )
    result.duration_s = time.monotonic() - started
    ctx.progress(f"[{check.NAME}] {result.status.value} in {result.duration_s:.1f}s")
    return result


def run_checks(checks: Sequence[ModuleType], ctx: CheckContext) -> list[CheckResult]:
    return [run_check(check, ctx) for check in checks]
