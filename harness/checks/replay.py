"""Replay: after the batch-by-batch build, redeliver landed files and rebuild: nothing changes.

Every table is compared exactly, except models with `meta.rerun_safe.records_deliveries: true`
(a staging log of every delivered row, duplicate counts, quarantined copies): a redelivery
legitimately adds rows to them, so they are listed as not judged here (every other check
compares them exactly)."""

from __future__ import annotations

import argparse
import time

from harness.compare import Purpose, compare_snapshots
from harness.context import CheckContext, finish, manifest_of, selected_nodes
from harness.deliveries import land, redeliver_new_names, redeliver_same_name
from harness.results import CheckResult

NAME = "replay"
HELP = "redeliver landed files (same names with a new mtime, then copies under new names)"
NEEDS_DELIVERIES = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser


def run(ctx: CheckContext) -> CheckResult:
    started = time.monotonic()
    lane = ctx.lane(NAME, "replayed")
    for batch in ctx.batches():
        land(batch.files, lane.landing)
        lane.dbt("build", select=ctx.select)
    project = manifest_of(lane.runs[0])
    selected = selected_nodes(lane.runs[0], ctx.select)
    before = lane.snapshot("before replay", project)

    touched = redeliver_same_name(lane.landing)
    lane.dbt("build", select=ctx.select)
    same_names = lane.snapshot("same names redelivered", project)
    copies = redeliver_new_names(lane.landing)
    lane.dbt("build", select=ctx.select)
    new_names = lane.snapshot("new names redelivered", project)

    comparisons = [
        compare_snapshots(
            before, same_names, project,
            label=f"{len(touched)} file(s) redelivered under the same names (new mtime)",
            purpose=Purpose.REPLAY, selected=selected, sample_size=ctx.sample_size,
        ),
        compare_snapshots(
            before, new_names, project,
            label=f"{len(copies)} file(s) redelivered under new names",
            purpose=Purpose.REPLAY, selected=selected, sample_size=ctx.sample_size,
        ),
    ]
    return finish(NAME, started, comparisons, [lane])
