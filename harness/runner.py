"""Run checks one after another; a check that raises becomes an ERROR result, not a crash.

A check that does not apply to the project (`applies(ctx)` gives the reason) is SKIPPED when
`all` runs it, and an ERROR when it was asked for by name. After each check, the tables and
models it found wrong are recorded in `ctx.explained`: a later check lists them once, as
already reported, and does not fail for them again (crash would otherwise repeat
idempotency's differences at every point)."""

from __future__ import annotations

import time
import traceback
from collections.abc import Mapping, Sequence
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


def _applies(check: ModuleType, ctx: CheckContext) -> str:
    try:
        return str(check.applies(ctx))
    except (ValueError, FileNotFoundError) as exc:
        return f"cannot tell whether it applies: {exc}"


def record_findings(result: CheckResult, ctx: CheckContext) -> None:
    for table, where in result.failing_tables().items():
        if where != ["key check"] * len(where):
            ctx.explained.setdefault(table, result.name)
    for violation in result.key_violations:
        ctx.explained_keys.setdefault(violation.model, result.name)
        ctx.explained_keys.setdefault(violation.table.split(".")[-1], result.name)


def run_checks(
    checks: Sequence[ModuleType],
    ctx: CheckContext,
    *,
    skipped: Mapping[str, str] | None = None,
    named: bool = False,
) -> list[CheckResult]:
    """`skipped`: check name -> why the user left it out (--skip, --only). `named`: the checks
    were asked for by name, so one that does not apply is an error, not a skip."""
    results = []
    for check in checks:
        reason = (skipped or {}).get(check.NAME, "")
        if not reason:
            why = _applies(check, ctx)
            if why and named:
                results.append(CheckResult(name=check.NAME, status=Status.ERROR, errors=[f"{check.NAME} {why}"]))
                continue
            reason = f"does not apply: {why}" if why else ""
        if reason:
            ctx.progress(f"[{check.NAME}] skipped: {reason}")
            results.append(CheckResult(name=check.NAME, status=Status.SKIPPED, reason=reason))
            continue
        result = run_check(check, ctx)
        record_findings(result, ctx)
        results.append(result)
    return results
