"""Run checks one after another; a check that raises becomes an ERROR result, not a crash.

A check that does not apply to the project (`check.applies(ctx, options)` gives the reason) is SKIPPED when
`all` runs it, and an ERROR when it was asked for by name. After each check, the tables and
models it found wrong are recorded in `ctx.explained`: a later check lists them once, as
already reported, and does not fail for them again (crash would otherwise repeat
idempotency's differences at every point). A check whose first build could not start (dbt
built no node: a parse or compile error, a missing file or extension) ends the run: every
later check is SKIPPED with that reason, and dbt's error is reported once, by that check."""

from __future__ import annotations

import time
import traceback
from collections.abc import Mapping, Sequence
from typing import Any

from harness.checks.base import Check
from harness.context import CheckContext
from harness.errors import DbtError
from harness.results import CheckResult, Status


def run_check(check: Check[Any], ctx: CheckContext, options: object | None = None) -> CheckResult:
    """Run one check with its typed options (None: its defaults)."""
    chosen = check.default_options() if options is None else options
    started = time.monotonic()
    ctx.progress(f"[{check.name}] started")
    try:
        result = check.run(ctx, chosen)
    except (DbtError, ValueError, FileNotFoundError) as exc:
        result = CheckResult(name=check.name, status=Status.ERROR, errors=[str(exc)])
    except Exception as exc:  # a harness bug must still yield a report and a non-zero exit
        result = CheckResult(
            name=check.name,
            status=Status.ERROR,
            errors=[f"{type(exc).__name__}: {exc}", traceback.format_exc()],
        )
    result.duration_s = time.monotonic() - started
    ctx.progress(f"[{check.name}] {result.status.value} in {result.duration_s:.1f}s")
    return result


def _applies(check: Check[Any], ctx: CheckContext, options: object) -> str:
    try:
        return check.applies(ctx, options)
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
    checks: Sequence[Check[Any]],
    ctx: CheckContext,
    *,
    options: Mapping[str, object] | None = None,
    skipped: Mapping[str, str] | None = None,
    named: bool = False,
) -> list[CheckResult]:
    """`options`: check name -> its typed options (a check not in it takes its defaults).
    `skipped`: check name -> why the user left it out (--skip, --only). `named`: the checks
    were asked for by name, so one that does not apply is an error, not a skip."""
    results: list[CheckResult] = []
    stopped: CheckResult | None = None
    for check in checks:
        given = (options or {}).get(check.name)
        chosen = check.default_options() if given is None else given
        reason = (skipped or {}).get(check.name, "")
        if not reason:
            why = _applies(check, ctx, chosen)
            if why and named:
                results.append(CheckResult(name=check.name, status=Status.ERROR, errors=[f"{check.name} {why}"]))
                continue
            reason = f"does not apply: {why}" if why else ""
        if not reason and stopped is not None:  # its build would fail the same way
            reason = f"not run: the build cannot start (reported by {stopped.name})"
        if reason:
            ctx.progress(f"[{check.name}] skipped: {reason}")
            results.append(CheckResult(name=check.name, status=Status.SKIPPED, reason=reason))
            continue
        result = run_check(check, ctx, chosen)
        record_findings(result, ctx)
        results.append(result)
        if result.cannot_start:
            stopped = result
            ctx.progress(f"[{check.name}] the build cannot start, no further check is run: {result.cannot_start}")
    return results
