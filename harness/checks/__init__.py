"""The check registry: one `Check` subclass per module (harness.checks.base). Add a check with
one line below; `all` runs them in this order (keys and idempotency first, so the later
checks can leave out what those already reported)."""

from __future__ import annotations

from typing import Any

from harness.checks.base import Check, NoOptions
from harness.checks.batches import Batches
from harness.checks.concurrency import Concurrency
from harness.checks.convergence import Convergence
from harness.checks.crash import Crash
from harness.checks.determinism import Determinism
from harness.checks.idempotency import Idempotency
from harness.checks.keys import Keys
from harness.checks.lateness import Lateness
from harness.checks.replay import Replay

CHECKS: tuple[Check[Any], ...] = (
    Keys(),
    Idempotency(),
    Convergence(),
    Determinism(),
    Replay(),
    Batches(),
    Crash(),
    Concurrency(),
    Lateness(),
)


def by_name() -> dict[str, Check[Any]]:
    """Every check by its name, in the order `all` runs them."""
    return {check.name: check for check in CHECKS}


__all__ = ["CHECKS", "Check", "NoOptions", "by_name"]
