"""The clean reference of the crash and concurrency checks: one lane built batch by batch,
with a raw checkpoint of the warehouse after every batch (so a scenario can start from there
without rebuilding) and snapshots of the states the scenarios are compared with."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from harness.compare import Purpose, compare_snapshots
from harness.context import CheckContext, annotate, manifest_of
from harness.deliveries import Batch
from harness.engines.base import Snapshot
from harness.project import Project
from harness.results import Comparison
from harness.workspace import Lane


@dataclass
class Reference:
    lane: Lane
    batches: list[Batch]
    project: Project
    selected: set[str] | None
    checkpoints: dict[int, Path | None] = field(default_factory=dict)  # after batch j; 0: empty
    snapshots: dict[int, Snapshot] = field(default_factory=dict)  # after batch j

    def files_through(self, batch_number: int) -> list[Path]:
        return [f for batch in self.batches[:batch_number] for f in batch.files]

    def batch_label(self, batch_number: int) -> str:
        return f"batch {batch_number}/{len(self.batches)} ({self.batches[batch_number - 1].key})"

    def compare(
        self, ctx: CheckContext, check: str, after: Snapshot, batch_number: int, *, label: str, when: str
    ) -> tuple[Comparison, list[str]]:
        """`after` compared with the clean build after batch `batch_number` as convergence
        compares (the same inputs by another route), its differences annotated for `check`;
        and each table that differs, as `name (kinds; when)`."""
        comparison = compare_snapshots(
            self.snapshots[batch_number],
            after,
            self.project,
            label=label,
            purpose=Purpose.CONVERGE,
            selected=self.selected,
            sample_size=ctx.sample_size,
        )
        annotate(ctx, check, [comparison])
        return comparison, differing_tables(comparison, when)


def differing_tables(comparison: Comparison, when: str) -> list[str]:
    """The tables of `comparison` that are not judged identical, each as `name (kinds; when)`."""
    return [
        f"{diff.table.split('.')[-1]} ({', '.join(diff.kinds())}; {when})"
        for diff in comparison.diffs
        if not diff.judged_identical
    ]


def explained_tables(comparisons: list[Comparison]) -> list[str]:
    """The tables that differ as an earlier check already reported, as `name (that check)`."""
    return [
        f"{diff.table.split('.')[-1]} ({diff.explained_by})"
        for comparison in comparisons
        for diff in comparison.diffs
        if diff.explained_by and not diff.identical
    ]


def build_reference(ctx: CheckContext, check: str) -> Reference:
    """Build every batch in order in a clean lane; checkpoint and snapshot after each batch.
    Built once per run: crash and concurrency share it (`ctx.shared`)."""
    if "reference" in ctx.shared:
        ctx.progress(f"[{check}] the clean batch-by-batch reference is reused")
        reused = ctx.shared["reference"]
        assert isinstance(reused, Reference)
        return reused
    ref = _build_reference(ctx, check, range(1, len(ctx.batches()) + 1))
    if not ref.lane.problems():
        ctx.shared["reference"] = ref
    return ref


def _build_reference(ctx: CheckContext, check: str, snapshot_after: Collection[int]) -> Reference:
    batches = ctx.batches()
    lane = ctx.lane(check, "clean")
    project: Project | None = None
    selected: set[str] | None = None
    checkpoints: dict[int, Path | None] = {0: None}
    snapshots: dict[int, Snapshot] = {}
    for number, batch in enumerate(batches, start=1):
        lane.deliver(batch.files)
        run = lane.dbt("build", select=ctx.build_select)
        if project is None:
            project, selected = manifest_of(run), (None if ctx.selected is None else set(ctx.selected))
        checkpoints[number] = lane.save_checkpoint(f"after_batch_{number}")
        if number in snapshot_after:
            snapshots[number] = lane.snapshot(f"clean build after batch {number}", project)
    assert project is not None  # discover_batches never returns an empty list
    return Reference(lane, batches, project, selected, checkpoints, snapshots)
