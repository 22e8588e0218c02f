"""Concurrency: two builds of the same deliveries at once on one warehouse.

The warehouse starts from the clean build's checkpoint before the last batch, with every batch
landed (the incremental path; a single batch starts from an empty warehouse). Two `dbt build`
child processes, A and B, start together (`--stagger` seconds apart), in both start orders.
Per order the outcome is reported: both completed, or one failed (with its message), or both
failed. Judged:

- one build at least must complete, and a failed one must say why (its dbt error message);
- right after both, the warehouse must equal the clean build (no partial or duplicated data);
- if one failed, a follow-up build runs, and the warehouse must still equal the clean build.

DuckDB allows one writer process per file. dbt-duckdb (`keep_open`, its default) opens the
file at a build's first query and holds its lock until the process exits, so two builds never
interleave: the second fails at its first query ("IO Error: Could not set lock on file ...")
before writing anything, or, with the profile's `retries: {connect_attempts: N}`, waits and
builds again after the first. On DuckDB this check therefore finds what a build that runs
twice breaks (the waiting case: a non-idempotent model shows duplicated rows), and it proves
that the losing build leaves nothing behind and fails with a clear message. Builds that
interleave model by model (a profile with `keep_open: false`, which closes the file between
models, or a server database such as PostgreSQL) can lose or duplicate the progress of models
whose write is not atomic with it; whether such a race happens depends on timing, so a pass
there is evidence, not proof.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from harness import childlog
from harness.checks.base import Check
from harness.context import CheckContext, lane_findings, unexplained_errors
from harness.dbt_invoke import DbtRun
from harness.reference import Reference, build_reference, explained_tables
from harness.results import CheckResult, Comparison, NotJudged, Status, Trial
from harness.workspace import Lane, Spawned

NAME = "concurrency"
CHILD_TIMEOUT_S = 1800.0
ORDERS = (("A", "B"), ("B", "A"))


@dataclass(frozen=True)
class Options:
    stagger: float = 0.0


def _outcome(runs: dict[str, tuple[Spawned, DbtRun]]) -> tuple[list[str], list[str], dict[str, str]]:
    """Completed builds, failed builds, and each failed build's message."""
    completed = [name for name, (_, run) in runs.items() if run.ok]
    failed = [name for name in runs if name not in completed]
    messages = {}
    for name in failed:
        spawned, run = runs[name]
        node_errors = [p for p in run.problems if not p.startswith("dbt build exited")]
        messages[name] = "; ".join(node_errors) or childlog.error_message(spawned.log_file, spawned.output)
    return completed, failed, messages


def _round(
    ctx: CheckContext, ref: Reference, lane: Lane, order: tuple[str, str], stagger: float
) -> tuple[Trial, list[Comparison]]:
    first, second = order
    label = f"{first} started first, {second} {stagger:g} s later"
    last = len(ref.batches)
    lane.restore(ref.checkpoints[last - 1])
    lane.reset_deliveries(ref.files_through(last - 1), ref.batches[last - 1].files)
    spawned = {first: lane.spawn("build", select=ctx.build_select, target_name=f"target_{first}")}
    if stagger > 0:
        time.sleep(stagger)
    spawned[second] = lane.spawn("build", select=ctx.build_select, target_name=f"target_{second}")
    runs = {
        name: (spawned[name], lane.collect(spawned[name], timeout=CHILD_TIMEOUT_S, record=False))
        for name in (first, second)
    }
    completed, failed, messages = _outcome(runs)
    started_as = {first: "started first", second: "started second"}
    errors: list[str] = []
    if not failed:
        outcome = (
            f"both completed ({first} {runs[first][1].duration_s:.1f} s, {second} {runs[second][1].duration_s:.1f} s)"
        )
    elif completed:
        (loser,), (winner,) = failed, completed
        outcome = f"{loser} ({started_as[loser]}) failed: {messages[loser] or '(no message)'}; {winner} completed"
        if not messages[loser]:
            errors.append(f"{loser} failed without a message")
    else:
        outcome = "both failed: " + "; ".join(f"{name}: {messages[name] or '(no message)'}" for name in failed)
        errors.append("neither build completed")
    comparisons: list[Comparison] = []
    tables: list[str] = []
    slug = f"{first}_first"
    if completed:
        after = lane.snapshot(f"{slug} after both", ref.project)
        comparison, differing = ref.compare(
            ctx, NAME, after, last, label=f"{label}: clean vs after both builds", when="after both builds"
        )
        comparisons.append(comparison)
        tables += differing
    if failed:
        follow_up = lane.dbt("build", select=ctx.build_select, record=False, keys=True)
        errors += unexplained_errors(ctx, NAME, [f"follow-up build: {problem}" for problem in follow_up.problems])
        after = lane.snapshot(f"{slug} after follow-up", ref.project)
        comparison, differing = ref.compare(
            ctx, NAME, after, last, label=f"{label}: clean vs after a follow-up build", when="after the follow-up build"
        )
        comparisons.append(comparison)
        tables += differing
    survived = not errors and all(c.passed for c in comparisons)
    explained = explained_tables(comparisons)
    return Trial(label, survived, outcome, tables, errors, explained=explained), comparisons


class Concurrency(Check[Options]):
    name = NAME
    help = "two builds of the same deliveries at once on one warehouse (both start orders)"
    needs_deliveries = True
    options_type = Options

    def add_arguments(self, parser: argparse._ActionsContainer) -> None:
        parser.add_argument(
            "--stagger",
            type=float,
            default=None,
            metavar="SECONDS",
            help="start the second build this long after the first (default: 0, together)",
        )

    def applies(self, ctx: CheckContext, options: Options) -> str:
        if ctx.store.adapter == "spark":
            from harness.engines.spark import ONE_PROCESS

            return f"two builds at once need two dbt processes: {ONE_PROCESS}"
        return "" if ctx.deliveries is not None else "needs --deliveries DIR (a batch to build twice at once)"

    def run(self, ctx: CheckContext, options: Options) -> CheckResult:
        started = time.monotonic()
        ref = build_reference(ctx, NAME)
        problems = unexplained_errors(ctx, NAME, ref.lane.problems())
        if problems:
            return CheckResult(
                name=NAME,
                status=Status.ERROR,
                duration_s=time.monotonic() - started,
                errors=["the clean build failed, so nothing can be judged against it:", *problems],
            )
        stagger = options.stagger
        lane = ctx.lane(NAME, "shared")
        trials: list[Trial] = []
        shown: list[Comparison] = []
        not_judged: list[NotJudged] = []
        for order in ORDERS:
            trial, comparisons = _round(ctx, ref, lane, order, stagger)
            ctx.progress(f"[{NAME}] {trial.label}: {trial.outcome}")
            trials.append(trial)
            not_judged = not_judged or (comparisons[0].not_judged if comparisons else [])
            shown += [c for c in comparisons if not c.passed]
        notes = [f"{sum(t.survived for t in trials)} of {len(trials)} start order(s) survived"]
        if any("Could not set lock on file" in trial.outcome for trial in trials):
            notes.append(
                "DuckDB: one writer process per file, and dbt-duckdb holds it for the whole build, so "
                "the losing build failed before writing anything; the two builds could not interleave "
                "(with retries.connect_attempts the second waits and builds again instead)"
            )
        notes += [f"not judged: {nj.table}: {nj.reason}" for nj in not_judged]
        findings = lane_findings(ctx, NAME, [ref.lane, lane])
        passed = all(trial.survived for trial in trials) and not findings.failed
        return findings.into(
            CheckResult(
                name=NAME,
                status=Status.PASS if passed else Status.FAIL,
                comparisons=shown,
                notes=notes,
                metrics={f"{trial.label}": trial.outcome.split(":")[0] for trial in trials},
                trials=trials,
                duration_s=time.monotonic() - started,
                exercised={"start orders tried": len(trials), "builds started": 2 * len(trials)},
            )
        )
