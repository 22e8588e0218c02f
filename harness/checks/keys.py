"""Keys: after one build of every delivery, each declared grain of each model is unique.

Every other check asserts the same after each of its own builds (harness.keys); this one runs
first in `all`, so a key that is not unique is reported once, here, with the duplicate keys.
It also lists every built model whose key was not asserted, and why (no key declared, declared
to repeat, not judged): nothing is left out silently."""

from __future__ import annotations

import time

from harness.checks.base import Check, NoOptions
from harness.context import CheckContext, build_everything, finish
from harness.results import CheckResult

NAME = "keys"


class Keys(Check[NoOptions]):
    name = NAME
    help = "build once; every unique_key and declared grain (unique / unique_combination tests) must be unique"
    needs_deliveries = False
    options_type = NoOptions

    def run(self, ctx: CheckContext, options: NoOptions) -> CheckResult:
        started = time.monotonic()
        lane, _, failed = build_everything(ctx, NAME, "build", started)
        if failed is not None:
            return failed
        checks = lane.key_checks
        grains = sum(c.grains_checked for c in checks)
        rows = sum(c.rows_checked for c in checks)
        notes = [f"not checked: {why}" for c in checks for why in c.not_checked]
        not_asserted = sorted({n for c in checks for n in c.not_asserted}, key=lambda n: (n.why, n.model))
        nothing = ""
        if not grains:
            nothing = "no built model declares a grain (unique_key config, unique or unique_combination test)"
        elif not rows:
            nothing = "every model with a declared grain was empty: no key was checked"
        result = finish(
            NAME,
            started,
            [],
            [lane],
            notes,
            ctx=ctx,
            exercised={"grains asserted": grains, "rows checked": rows},
            nothing=nothing,
            compares=False,
        )
        result.keys_not_asserted = not_asserted
        return result
