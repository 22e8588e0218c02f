"""The check registry: one module per check, each with NAME, HELP, NEEDS_DELIVERIES,
add_arguments(parser), applies(ctx) -> "" or why not, and run(ctx) -> CheckResult. Add a
check with one line below; `all` runs them in this order (keys and idempotency first, so the
later checks can leave out what those already reported)."""

from __future__ import annotations

from types import ModuleType

from harness.checks import batches, concurrency, convergence, crash, idempotency, keys, lateness, replay

CHECKS: tuple[ModuleType, ...] = (
    keys,
    idempotency,
    convergence,
    replay,
    batches,
    crash,
    concurrency,
    lateness,
)


def by_name() -> dict[str, ModuleType]:
    return {check.NAME: check for check in CHECKS}
