"""Determinism: the same deliveries built twice, changing only what a correct model must not
depend on; every table must be identical.

The first build reads the deliveries as they are. The second reads the same rows written in
reverse order within each file (the first row last; the header, every value, names, Hive
folders and mtimes kept), the files of each batch created (landing) or loaded
(--load-sources) in reverse order, and, where the engine's parallelism can be set from outside
the profile, another parallelism (PostgreSQL: no parallel workers). A tie in an ORDER BY or a
window (`row_number() over (partition by buyer order by order_date desc)` with two orders on
one day), `any_value`, or a `limit` without an order then picks another row. The batches keep
their order: what a reordered delivery does is the `batches` check's question.
"""

from __future__ import annotations

import time

from harness.checks.base import NeedsDeliveries, NoOptions
from harness.compare import Purpose, compare_snapshots
from harness.context import CheckContext, build_failed, finish, manifest_of
from harness.deliveries import reversed_deliveries
from harness.results import CheckResult

NAME = "determinism"


class Determinism(NeedsDeliveries[NoOptions]):
    name = NAME
    help = "build the same deliveries twice, rows and files in reverse physical order; every table must be identical"
    without_deliveries = "needs --deliveries DIR (the rows to write in another physical order)"
    options_type = NoOptions

    def run(self, ctx: CheckContext, options: NoOptions) -> CheckResult:
        started = time.monotonic()
        batches = ctx.batches()
        natural = ctx.lane(NAME, "as_delivered")
        for batch in batches:
            natural.deliver(batch.files)
        first = natural.dbt("build", select=ctx.build_select)
        failed = build_failed(NAME, started, natural, first)
        if failed is not None:
            return failed
        project = manifest_of(first)

        reordered = ctx.lane(NAME, "rows_reversed")
        env, parallelism = reordered.store.other_parallelism()
        reordered.extra_env.update(env)
        rewritten = reversed_deliveries(batches, reordered.root / "deliveries")
        if ctx.loader is None:  # a landing folder: every file created in reverse order
            reordered.deliver(f for batch in reversed(rewritten) for f in batch.files)
        else:  # source tables: batches in their order, a batch's files and rows reversed
            for batch in rewritten:
                reordered.deliver(batch.files)
        reordered.dbt("build", select=ctx.build_select)

        comparison = compare_snapshots(
            natural.snapshot("rows as delivered", project),
            reordered.snapshot("rows and files in reverse order", project),
            project,
            label="rows as delivered vs rows and files in reverse physical order",
            purpose=Purpose.RERUN,
            selected=ctx.selected,
            sample_size=ctx.sample_size,
        )
        exercised: dict[str, object] = {
            "files rewritten in reverse row order": sum(len(b.files) for b in rewritten),
        }
        notes = [f"parallelism: {parallelism}"]
        return finish(NAME, started, [comparison], [natural, reordered], notes, ctx=ctx, exercised=exercised)
