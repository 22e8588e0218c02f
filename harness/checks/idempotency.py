"""Idempotency: build, snapshot, build again with the same inputs, diff every table."""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from harness.checks.base import Check
from harness.compare import Purpose, compare_snapshots
from harness.context import CheckContext, build_everything, finish, manifest_of
from harness.project import CompareMode
from harness.results import CheckResult, Comparison

NAME = "idempotency"


@dataclass(frozen=True)
class Options:
    per_model: bool = False


class Idempotency(Check[Options]):
    name = NAME
    help = "build twice with the same inputs; every table must be identical"
    needs_deliveries = False
    options_type = Options

    def add_arguments(self, parser: argparse._ActionsContainer) -> None:
        parser.add_argument(
            "--per-model",
            action="store_true",
            default=None,
            help="after one build of the selection and its parents, run each selected model twice "
            "on its own and diff its table",
        )

    def run(self, ctx: CheckContext, options: Options) -> CheckResult:
        started = time.monotonic()
        lane, first, failed = build_everything(ctx, NAME, "rerun", started)
        if failed is not None:
            return failed
        uses_landing = ctx.deliveries is not None
        files = sum(len(batch.files) for batch in ctx.batches()) if uses_landing else 0
        project = manifest_of(first)
        selected = ctx.selected
        comparisons: list[Comparison] = []
        exercised: dict[str, object] = {"files delivered": files}
        if options.per_model:
            models = [
                model
                for model in project.models
                if model.resource_type == "model"
                and (selected is None or model.unique_id in selected)
                and model.rerun_safe.compare is not CompareMode.SKIP
            ]
            for model in models:
                lane.dbt("run", select=(model.name,), uses_landing=uses_landing)
                before = lane.snapshot(f"{model.name} run 1", project)
                lane.dbt("run", select=(model.name,), uses_landing=uses_landing)
                after = lane.snapshot(f"{model.name} run 2", project)
                comparison = compare_snapshots(
                    before,
                    after,
                    project,
                    label=f"dbt run -s {model.name} twice",
                    purpose=Purpose.RERUN,
                    selected={model.unique_id},
                    sample_size=ctx.sample_size,
                )
                # Every other relation is "not selected" here: listing them per model is noise.
                comparison.not_judged = [nj for nj in comparison.not_judged if nj.reason != "not selected"]
                comparisons.append(comparison)
            skipped = [m.name for m in project.models if m.rerun_safe.compare is CompareMode.SKIP]
            notes = [f"not run on their own (compare = skip): {', '.join(skipped)}"] if skipped else []
            exercised["models run twice on their own"] = len(models)
            return finish(NAME, started, comparisons, [lane], notes, ctx=ctx, exercised=exercised)

        before = lane.snapshot("after build 1", project)
        lane.dbt("build", select=ctx.build_select, uses_landing=uses_landing)
        after = lane.snapshot("after build 2", project)
        comparisons.append(
            compare_snapshots(
                before,
                after,
                project,
                label="build twice, same inputs",
                purpose=Purpose.RERUN,
                selected=selected,
                sample_size=ctx.sample_size,
            )
        )
        return finish(NAME, started, comparisons, [lane], ctx=ctx, exercised=exercised)
