"""Batches (metamorphic): other batch sizes and the reverse order must give the same tables.

A split that reorders the deliveries (reverse, shuffled) stamps the load stamp columns at
delivery time (harness.stamps): declared ones (meta.rerun_safe.load_stamp_columns on a source,
a source table or a model; --load-stamp-columns), and with --load-sources the ones found in
the deliveries. A table that differs only in a reordered split, whose incremental filter (or
one upstream) trusts a high-water mark the harness cannot tell is a load stamp, is a warning
naming those columns, not a failure."""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from harness import stamps as load_stamps
from harness.checks.base import Check
from harness.compare import Purpose, compare_snapshots
from harness.context import CheckContext, finish, manifest_of
from harness.deliveries import Batch, regroup
from harness.engines.base import Snapshot
from harness.errors import InputError
from harness.project import Project
from harness.results import CheckResult, Comparison
from harness.workspace import Lane

NAME = "batches"


SPLITS = ("all", "coarse", "reverse", "shuffled")
DEFAULT_SPLITS = ("all", "coarse", "reverse")
REORDERED = ("one batch per key, reverse order", "one batch per key, shuffled")
SHUFFLE_SEED = 1


@dataclass(frozen=True)
class Options:
    keys_per_batch: int = 2
    splits: tuple[str, ...] = DEFAULT_SPLITS
    load_stamp_columns: tuple[str, ...] = ()


def variants(
    batches: list[Batch], keys_per_batch: int, splits: tuple[str, ...] = DEFAULT_SPLITS
) -> list[tuple[str, list[Batch]]]:
    """The splits to compare, the natural one first; splits equal to an earlier one are dropped."""
    candidates = [("one batch per key", batches)]
    if "all" in splits:
        candidates.append(("all at once", regroup(batches, len(batches))))
    if "coarse" in splits:
        candidates.append((f"{keys_per_batch} keys per batch", regroup(batches, keys_per_batch)))
    if "reverse" in splits:
        candidates.append(("one batch per key, reverse order", list(reversed(batches))))
    if "shuffled" in splits and len(batches) > 2:
        candidates.append(("one batch per key, shuffled", shuffled(batches)))
    seen: set[tuple[tuple[str, ...], ...]] = set()
    unique = []
    for name, split in candidates:
        shape = tuple(tuple(str(f) for f in batch.files) for batch in split)
        if shape not in seen:
            seen.add(shape)
            unique.append((name, split))
    return unique


def shuffled(batches: list[Batch], seed: int = SHUFFLE_SEED) -> list[Batch]:
    """A seeded order that is neither the natural nor the reverse one (3+ batches)."""
    import random

    rng = random.Random(seed)
    order = list(batches)
    for _ in range(100):
        rng.shuffle(order)
        if order != list(batches) and order != list(reversed(batches)):
            break
    return order


def order_warning(split: str, trusted: tuple[str, ...]) -> str:
    columns = ", ".join(trusted)
    return (
        f"differs only when the deliveries come in another order ({split}), and its incremental "
        f"filter (or one upstream) trusts max({columns}); the harness cannot tell whether "
        f"{columns} is a load stamp. If a loader stamps it at delivery, declare it "
        f"(meta.rerun_safe.load_stamp_columns, or --load-stamp-columns) and the reordered splits "
        f"stamp it at delivery time; if it is an event or ingestion time, a late file with older "
        f"values is skipped (convergence shows that)"
    )


def _build(ctx: CheckContext, lane: Lane, split: list[Batch]) -> None:
    for batch in split:
        lane.deliver(batch.files)
        lane.dbt("build", select=ctx.build_select)


class Batches(Check[Options]):
    name = NAME
    help = "split the deliveries into other batch sizes and orders; final tables must agree"
    needs_deliveries = True
    options_type = Options

    def add_arguments(self, parser: argparse._ActionsContainer) -> None:
        parser.add_argument(
            "--keys-per-batch",
            type=int,
            default=None,
            metavar="N",
            help="size of the coarser split, in batch keys per build (default: 2)",
        )
        parser.add_argument(
            "--splits",
            nargs="+",
            choices=SPLITS,
            default=None,
            metavar="SPLIT",
            help="splits compared with one batch per key: all (all at once), coarse "
            "(--keys-per-batch keys per build), reverse (one per key, last first), shuffled (one "
            "per key, a seeded order; 3+ batch keys). Default: all coarse reverse. Leave out "
            "reverse when a batch must come first (e.g. a file of customers delivered once, in the "
            "first batch)",
        )
        parser.add_argument(
            "--load-stamp-columns",
            nargs="+",
            default=None,
            metavar="COLUMN",
            help="columns a loader stamps into each delivery when it delivers it (_loaded_at, "
            "delivered_on): the reverse and shuffled splits stamp them at delivery time (the i-th "
            "delivery gets the natural i-th delivery's value) and leave them out of the "
            "comparison. Also declared as meta.rerun_safe.load_stamp_columns on a source, source "
            "table or model; with --load-sources, columns with one rising value per batch are found",
        )

    def applies(self, ctx: CheckContext, options: Options) -> str:
        if ctx.deliveries is None:
            return "needs --deliveries DIR (batches to split)"
        if len(ctx.batches()) < 2:
            return "one batch key only: there is no other split to compare"
        return ""

    def run(self, ctx: CheckContext, options: Options) -> CheckResult:
        started = time.monotonic()
        keys_per_batch = options.keys_per_batch
        if keys_per_batch < 1:
            raise InputError(f"--keys-per-batch must be at least 1, got {keys_per_batch}")
        natural = ctx.batches()
        splits = variants(natural, keys_per_batch, tuple(options.splits))
        lanes: list[Lane] = []
        snapshots: list[Snapshot] = []
        project: Project | None = None
        stamped: tuple[str, ...] = ()
        stamps: list[dict[str, str]] = []
        for index, (name, split) in enumerate(splits, start=1):
            lane = ctx.lane(NAME, f"variant_{index}")
            if name in REORDERED and stamped:
                assert ctx.deliveries is not None
                split = load_stamps.restamp(split, stamps, ctx.deliveries, lane.root / "restamped")
            _build(ctx, lane, split)
            lanes.append(lane)
            if project is None:  # the natural split, built first: the project and its stamps
                project = manifest_of(lane.runs[0])
                declared = list(options.load_stamp_columns) + list(project.load_stamps())
                if ctx.loader is not None:  # the harness is the loader: it knows what it stamps
                    declared += list(load_stamps.detect(natural))
                stamped = tuple(dict.fromkeys(declared))
                stamps = load_stamps.batch_stamps(natural, stamped)
            snapshots.append(lane.snapshot(f"{name} ({len(split)} builds)", project))
        assert project is not None  # variants() always yields the natural split
        selected = ctx.selected
        comparisons: list[Comparison] = [
            compare_snapshots(
                snapshots[0],
                other,
                project,
                label=f"{splits[0][0]} vs {splits[index][0]}",
                purpose=Purpose.CONVERGE,
                selected=selected,
                sample_size=ctx.sample_size,
                stamped=stamped if splits[index][0] in REORDERED else (),
            )
            for index, other in enumerate(snapshots[1:], start=1)
        ]
        by_table = {model.display_name.lower(): model for model in project.models}
        for (name, _), comparison in zip(splits[1:], comparisons, strict=True):
            if name not in REORDERED:
                continue
            for diff in comparison.diffs:
                model = by_table.get(diff.table.lower())
                if diff.identical or model is None:
                    continue
                untold = tuple(c for c in project.trusted_by(model.unique_id) if c not in stamped)
                if untold:
                    diff.warning = order_warning(name, untold)
        exercised: dict[str, object] = {
            "splits compared with one batch per key": len(comparisons),
            "builds": sum(len(s) for _, s in splits),
        }
        if stamped and any(name in REORDERED for name, _ in splits):
            exercised["load stamps stamped at delivery"] = ", ".join(stamped)
        nothing = None if comparisons else "every other split equals the natural one: nothing to compare"
        return finish(NAME, started, comparisons, lanes, ctx=ctx, exercised=exercised, nothing=nothing)
