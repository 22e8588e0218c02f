"""Replay: after the batch-by-batch build, redeliver landed files and rebuild: nothing changes.

Every table is compared exactly, except models with `meta.rerun_safe.records_deliveries: true`
(a staging log of every delivered row, duplicate counts, quarantined copies): a redelivery
legitimately adds rows to them, so they are listed as not judged here (every other check
compares them exactly).

A redelivery the rebuild never read proves nothing (a glob that does not match the new
names): the check counts the redelivered files the rebuild read (their access time), and a
round that read none of them makes the check "not exercised", not a pass."""

from __future__ import annotations

import time
from pathlib import Path

from harness.checks.base import NeedsDeliveries, NoOptions
from harness.compare import Purpose, compare_snapshots
from harness.context import CheckContext, finish, manifest_of
from harness.deliveries import mark_unread, reads_observable, redeliver_new_names, redeliver_same_name, was_read
from harness.engines.base import Snapshot
from harness.project import Project
from harness.results import CheckResult
from harness.workspace import Lane

NAME = "replay"


def _read_count(files: list[Path], observable: bool) -> int | None:
    return sum(was_read(f) for f in files) if observable else None


def _replay_sources(ctx: CheckContext, lane: Lane, project: Project, before: Snapshot, started: float) -> CheckResult:
    """--load-sources: the loader delivers every batch again (at least once: the same rows
    appended a second time), then one rebuild; every table must stay as it was."""
    loaded_before = lane.rows_loaded
    files = lane.deliver(f for batch in ctx.batches() for f in batch.files)
    appended = lane.rows_loaded - loaded_before
    lane.dbt("build", select=ctx.build_select)
    after = lane.snapshot("every batch loaded again", project)
    comparison = compare_snapshots(
        before,
        after,
        project,
        label=f"{files} file(s) loaded again into the sources ({appended} rows appended)",
        purpose=Purpose.REPLAY,
        selected=ctx.selected,
        sample_size=ctx.sample_size,
    )
    exercised: dict[str, object] = {"files loaded again": files, "rows appended to sources": appended}
    nothing = None if appended else "loading the deliveries again appended no row to any source"
    return finish(NAME, started, [comparison], [lane], ctx=ctx, exercised=exercised, nothing=nothing)


class Replay(NeedsDeliveries[NoOptions]):
    name = NAME
    help = "redeliver landed files (same names with a new mtime, then copies under new names)"
    without_deliveries = "needs --deliveries DIR (files to redeliver)"
    options_type = NoOptions

    def run(self, ctx: CheckContext, options: NoOptions) -> CheckResult:
        started = time.monotonic()
        lane = ctx.lane(NAME, "replayed")
        for batch in ctx.batches():
            lane.deliver(batch.files)
            lane.dbt("build", select=ctx.build_select)
        project = manifest_of(lane.runs[0])
        selected = ctx.selected
        before = lane.snapshot("before replay", project)
        if lane.loader is not None:
            return _replay_sources(ctx, lane, project, before, started)
        observable = reads_observable(lane.root / "probe")

        touched = redeliver_same_name(lane.landing)
        mark_unread(touched)
        lane.dbt("build", select=ctx.build_select)
        read_same = _read_count(touched, observable)
        same_names = lane.snapshot("same names redelivered", project)
        copies = redeliver_new_names(lane.landing, ctx.batch_pattern)
        mark_unread(copies)
        lane.dbt("build", select=ctx.build_select)
        read_new = _read_count(copies, observable)
        new_names = lane.snapshot("new names redelivered", project)

        comparisons = [
            compare_snapshots(
                before,
                same_names,
                project,
                label=f"{len(touched)} file(s) redelivered under the same names (new mtime)",
                purpose=Purpose.REPLAY,
                selected=selected,
                sample_size=ctx.sample_size,
            ),
            compare_snapshots(
                before,
                new_names,
                project,
                label=f"{len(copies)} file(s) redelivered under new names (e.g. {copies[0].name if copies else '-'})",
                purpose=Purpose.REPLAY,
                selected=selected,
                sample_size=ctx.sample_size,
            ),
        ]
        unknown = "unknown (the file system records no access times)"
        exercised: dict[str, object] = {
            "files redelivered (same names)": len(touched),
            "of them read by the rebuild": unknown if read_same is None else read_same,
            "files redelivered (new names)": len(copies),
            "of those read by the rebuild": unknown if read_new is None else read_new,
        }
        nothing = None
        unread = [
            f"{what}: the rebuild read none of the {count} file(s)"
            for what, count, read in (("same names", len(touched), read_same), ("new names", len(copies), read_new))
            if read == 0
        ]
        if unread:
            nothing = "; ".join(unread) + " (does the model's file pattern match them?)"
        notes = (
            [] if observable else ["whether the rebuild read the redelivered files is unknown: no access times here"]
        )
        return finish(NAME, started, comparisons, [lane], notes, ctx=ctx, exercised=exercised, nothing=nothing)
