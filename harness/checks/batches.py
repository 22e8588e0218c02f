"""Batches (metamorphic): other batch sizes and the reverse order must give the same tables."""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from harness.compare import Purpose, compare_snapshots
from harness.context import CheckContext, finish, manifest_of
from harness.deliveries import Batch, regroup
from harness.project import Project
from harness.results import CheckResult, Comparison
from harness.warehouse import Snapshot
from harness.workspace import Lane

NAME = "batches"
HELP = "split the deliveries into other batch sizes and orders; final tables must agree"
NEEDS_DELIVERIES = True


SPLITS = ("all", "coarse", "reverse")


@dataclass(frozen=True)
class Options:
    keys_per_batch: int = 2
    splits: tuple[str, ...] = SPLITS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--keys-per-batch",
        type=int,
        default=None,
        metavar="N",
        help="size of the coarser split, in batch keys per build (default: 2)",
    )
    parser.add_argument(
        "--splits", nargs="+", choices=SPLITS, default=None, metavar="SPLIT",
        help="splits compared with one batch per key: all (all at once), coarse "
        "(--keys-per-batch keys per build), reverse (one per key, last first). Default: all "
        "three. Leave out reverse when a batch must come first (e.g. a file of customers "
        "delivered once, in the first batch)",
    )


def applies(ctx: CheckContext) -> str:
    if ctx.deliveries is None:
        return "needs --deliveries DIR (batches to split)"
    if len(ctx.batches()) < 2:
        return "one batch key only: there is no other split to compare"
    return ""


def variants(
    batches: list[Batch], keys_per_batch: int, splits: tuple[str, ...] = SPLITS
) -> list[tuple[str, list[Batch]]]:
    """The splits to compare, the natural one first; splits equal to an earlier one are dropped."""
    candidates = [("one batch per key", batches)]
    if "all" in splits:
        candidates.append(("all at once", regroup(batches, len(batches))))
    if "coarse" in splits:
        candidates.append((f"{keys_per_batch} keys per batch", regroup(batches, keys_per_batch)))
    if "reverse" in splits:
        candidates.append(("one batch per key, reverse order", list(reversed(batches))))
    seen: set[tuple[tuple[str, ...], ...]] = set()
    unique = []
    for name, split in candidates:
        shape = tuple(tuple(str(f) for f in batch.files) for batch in split)
        if shape not in seen:
            seen.add(shape)
            unique.append((name, split))
    return unique


def _build(ctx: CheckContext, lane: Lane, split: list[Batch]) -> None:
    for batch in split:
        lane.deliver(batch.files)
        lane.dbt("build", select=ctx.build_select)


def run(ctx: CheckContext) -> CheckResult:
    started = time.monotonic()
    options = ctx.typed(Options)
    keys_per_batch = options.keys_per_batch
    if keys_per_batch < 1:
        raise ValueError(f"--keys-per-batch must be at least 1, got {keys_per_batch}")
    splits = variants(ctx.batches(), keys_per_batch, tuple(options.splits))
    lanes: list[Lane] = []
    snapshots: list[Snapshot] = []
    project: Project | None = None
    for index, (name, split) in enumerate(splits, start=1):
        lane = ctx.lane(NAME, f"variant_{index}")
        _build(ctx, lane, split)
        lanes.append(lane)
        project = project or manifest_of(lane.runs[0])
        snapshots.append(lane.snapshot(f"{name} ({len(split)} builds)", project))
    assert project is not None  # variants() always yields the natural split
    selected = ctx.selected
    comparisons: list[Comparison] = [
        compare_snapshots(
            snapshots[0], other, project,
            label=f"{splits[0][0]} vs {splits[index][0]}",
            purpose=Purpose.CONVERGE, selected=selected, sample_size=ctx.sample_size,
        )
        for index, other in enumerate(snapshots[1:], start=1)
    ]
    exercised = {"splits compared with one batch per key": len(comparisons), "builds": sum(len(s) for _, s in splits)}
    nothing = None if comparisons else "every other split equals the natural one: nothing to compare"
    return finish(NAME, started, comparisons, lanes, ctx=ctx, exercised=exercised, nothing=nothing)
