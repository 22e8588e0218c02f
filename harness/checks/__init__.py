"""The check registry: one module per check, each with NAME, HELP, NEEDS_DELIVERIES,
add_arguments(parser) and run(ctx) -> CheckResult. Add a check with one line below."""

from __future__ import annotations

from types import ModuleType

from harness.checks import batches, concurrency, convergence, crash, idempotency, lateness, replay

CHECKS: tuple[ModuleType, ...] = (
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
