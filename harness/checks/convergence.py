"""Convergence: batch by batch (a build after each) vs everything at once with --full-refresh."""

from __future__ import annotations

import time

from harness.checks.base import NeedsDeliveries, NoOptions
from harness.compare import Purpose, compare_snapshots
from harness.context import CheckContext, finish, manifest_of
from harness.results import CheckResult

NAME = "convergence"


class Convergence(NeedsDeliveries[NoOptions]):
    name = NAME
    help = "incremental batch-by-batch builds must equal one full refresh of all deliveries"
    without_deliveries = "needs --deliveries DIR (batches to build one by one)"
    options_type = NoOptions

    def run(self, ctx: CheckContext, options: NoOptions) -> CheckResult:
        started = time.monotonic()
        batches = ctx.batches()
        incremental = ctx.lane(NAME, "batch_by_batch")
        for batch in batches:
            incremental.deliver(batch.files)
            incremental.dbt("build", select=ctx.build_select)
        project = manifest_of(incremental.runs[0])

        full = ctx.lane(NAME, "full_refresh")
        files = full.deliver(f for batch in batches for f in batch.files)
        full.dbt("build", select=ctx.build_select, full_refresh=True)

        comparison = compare_snapshots(
            full.snapshot("full refresh", project),
            incremental.snapshot(f"batch by batch ({len(batches)} builds)", project),
            project,
            label="batch by batch vs one full refresh",
            purpose=Purpose.CONVERGE,
            selected=ctx.selected,
            sample_size=ctx.sample_size,
        )
        exercised: dict[str, object] = {"batches built one by one": len(batches), "files": files}
        return finish(NAME, started, [comparison], [incremental, full], ctx=ctx, exercised=exercised)
