"""Crash: stop builds at many points, rebuild, and compare with a clean build.

For each crashed batch j (default: every batch) the warehouse starts from the clean build's
checkpoint after batch j-1, with batches 1..j landed, and the build of batch j is stopped:

- between models (`--crash-points`): only the first k data nodes of the build order (from the
  manifest) are built, `dbt build --select <those>`; or, with `--fault-var VAR`, the build
  runs with `--vars '{VAR: <model>}'` and the project fails that model after its write and
  before COMMIT (the project has to read the var, e.g. in a post-hook);
- inside models (`--kill-points`): `dbt build` runs in a child process and gets SIGKILL at a
  seeded random moment (`--seed`). The clean build of the batch is first run in a child too,
  to measure how long it executes (from dbt's ConcurrencyLine event in its JSON log, after
  start-up and parsing, to its exit); one moment is drawn in each equal slice of that window
  and counted from the same event of the killed child, so the kills land in hooks and models, not in
  Python start-up, however long parsing takes.

Then the build is repeated in-process (for a kill, DuckDB must recover from its WAL), the state
is compared with the clean build after batch j, the remaining batches are built, and the final
state is compared with the clean final state. Tables are compared as by convergence (the
same inputs by another route: an append-only history compares its balances). Every point is
listed with survived/failed and the tables that differ; a point fails when a table differs or
a build after the crash fails.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from harness import childlog
from harness.checks.base import NeedsDeliveries
from harness.context import CheckContext, key_figures, lane_findings, unexplained_errors
from harness.errors import FaultIgnored, InputError
from harness.project import Model, build_order
from harness.reference import Reference, build_reference, explained_tables
from harness.results import CheckResult, Comparison, Interruption, NotJudged, Status, Trial
from harness.workspace import Lane

NAME = "crash"


@dataclass(frozen=True)
class Options:
    crash_points: int = 3
    kill_points: int = 2
    seed: int = 0
    fault_var: str | None = None
    crash_batches: tuple[str | int, ...] | None = None  # numbers, or ("all",); None: the middle one


DEFAULT_KILL_POINTS = Options.kill_points
DEFAULT_CRASH_POINTS = Options.crash_points
CHILD_TIMEOUT_S = 1800.0


@dataclass(frozen=True)
class Stopped:
    """What the interrupted build did: a line for the report, and whether the point reached
    the build (a kill that came after the build had ended did not)."""

    outcome: str
    reached: bool = True


@dataclass(frozen=True)
class Point:
    batch: int
    interruption: Interruption
    label: str  # for display: the batch, the interruption and where it hit
    stop: Callable[[Lane], Stopped]  # runs the interrupted build


def spread(count: int, cap: int | None) -> list[int]:
    """`cap` values of 1..count, evenly spread and including both ends (all when cap is None)."""
    if cap is None or cap >= count:
        return list(range(1, count + 1))
    if cap <= 0:
        return []
    if cap == 1:
        return [(count + 1) // 2]
    return sorted({round(1 + i * (count - 1) / (cap - 1)) for i in range(cap)})


def kill_moments(duration: float, count: int, seed: int, batch: int) -> list[float]:
    """One seeded random moment in each of `count` equal slices of [0, duration)."""
    import random

    rng = random.Random(f"{seed}:{batch}")
    return [duration * (i + rng.random()) / count for i in range(count)]


def _crash_batches(options: Options, count: int) -> list[int]:
    chosen = options.crash_batches
    if chosen is None:
        return [(count + 1) // 2]
    if [str(j) for j in chosen] == ["all"]:
        return list(range(1, count + 1))
    try:
        numbers = [int(j) for j in chosen]
    except ValueError as exc:
        raise InputError(f"--crash-batches takes batch numbers or `all`, got {chosen}") from exc
    wrong = [j for j in numbers if not 1 <= j <= count]
    if wrong:
        raise InputError(f"--crash-batches {wrong}: the deliveries have batches 1..{count}")
    return sorted(set(numbers))


def _prefix_point(ctx: CheckContext, ref: Reference, batch: int, names: list[str], k: int) -> Point:
    label = f"{ref.batch_label(batch)}: stopped after {k} of {len(names)} nodes (last built: {names[k - 1]})"

    def stop(lane: Lane) -> Stopped:
        run = lane.dbt("build", select=names[:k], record=False)
        return Stopped(f"built {', '.join(names[:k])}" + ("" if run.ok else f" ({len(run.problems)} problem(s))"))

    return Point(batch, Interruption.STOPPED, label, stop)


def _fault_point(ctx: CheckContext, ref: Reference, batch: int, var: str, model: str, identifier: str) -> Point:
    label = f"{ref.batch_label(batch)}: {model} failed before COMMIT ({var}={identifier})"

    def stop(lane: Lane) -> Stopped:
        run = lane.dbt(
            "build",
            select=ctx.build_select,
            extra_vars={var: identifier},
            record=False,
            target_name="target_fault",
        )
        failed = [node for node in run.nodes if node.status == "error"]
        if not any(node.unique_id.split(".")[-1] == model for node in failed):
            raise FaultIgnored(
                f"--fault-var {var}={identifier}: {model} did not fail; does the project read "
                f"var('{var}') and fail the model it names?"
            )
        return Stopped(f"{model} failed; {sum(n.status == 'skipped' for n in run.nodes)} node(s) skipped")

    return Point(batch, Interruption.FAILED_MODEL, label, stop)


def _kill_point(ctx: CheckContext, ref: Reference, batch: int, at: float, window: float) -> Point:
    label = f"{ref.batch_label(batch)}: SIGKILL {at:.2f} s into the build's execution (clean: {window:.2f} s)"

    def stop(lane: Lane) -> Stopped:
        child = lane.spawn("build", select=ctx.build_select, target_name="target_child")
        executing = childlog.wait_for_execution(child.log_file, lambda: child.process.poll() is None)
        if executing is not None:
            deadline = executing + at
            while child.process.poll() is None and time.monotonic() < deadline:
                time.sleep(min(0.01, max(0.0, deadline - time.monotonic())))
        finished_first = child.process.poll() is not None
        if not finished_first:
            child.process.kill()
        lane.collect(child, timeout=CHILD_TIMEOUT_S, record=False)
        if finished_first:
            return Stopped(
                f"not interrupted: the build had ended (exit {child.process.returncode}) before the kill",
                reached=False,
            )
        return Stopped("killed " + childlog.progress(child.log_file).describe())

    return Point(batch, Interruption.SIGKILL, label, stop)


def _execution_window(ctx: CheckContext, ref: Reference, lane: Lane, batch: int) -> tuple[float, str]:
    """Run the clean build of `batch` in a child process: how long it executes (hooks and
    nodes, after start-up and parsing), the window the kill moments spread over. Returns
    (seconds, "") or (0, why it could not be measured)."""
    lane.restore(ref.checkpoints[batch - 1])
    lane.reset_deliveries(ref.files_through(batch - 1), ref.batches[batch - 1].files)
    child = lane.spawn("build", select=ctx.build_select, target_name="target_child")
    executing = childlog.wait_for_execution(child.log_file, lambda: child.process.poll() is None)
    run = lane.collect(child, timeout=CHILD_TIMEOUT_S, record=False)
    ended = time.monotonic()
    problems = unexplained_errors(ctx, NAME, run.problems)
    if problems or executing is None:
        why = "; ".join(problems) or "it never logged the start of its execution"
        return 0.0, f"{why} {childlog.error_message(child.log_file, child.output)}".strip()
    return ended - executing, ""


def points_exercised(trials: Sequence[Trial]) -> dict[str, int]:
    """The crash points tried, by how they interrupted the build: stops between models (or
    failed models), kills, and the kills that hit a running build."""
    kills = [trial for trial in trials if trial.interruption is Interruption.SIGKILL]
    return {
        "between-model stops": len(trials) - len(kills),
        "kill points tried": len(kills),
        "kill points reached (killed a running build)": sum(trial.reached for trial in kills),
    }


def _try(ctx: CheckContext, ref: Reference, lane: Lane, point: Point, number: int) -> tuple[Trial, list[Comparison]]:
    lane.restore(ref.checkpoints[point.batch - 1])
    lane.reset_deliveries(ref.files_through(point.batch - 1), ref.batches[point.batch - 1].files)
    stopped = point.stop(lane)
    errors: list[str] = []
    recovery = lane.dbt("build", select=ctx.build_select, record=False, keys=True)
    errors += [f"rebuild after the crash: {problem}" for problem in recovery.problems]
    slug = f"point_{number:03d}"
    rebuilt = lane.snapshot(f"{slug} rebuilt", ref.project)
    taken = [rebuilt]
    comparison, tables = ref.compare(
        ctx, NAME, rebuilt, point.batch, label=f"{point.label}: clean vs crashed and rebuilt", when="after the rebuild"
    )
    comparisons = [comparison]
    last = len(ref.batches)
    if point.batch < last:
        for later in range(point.batch + 1, last + 1):
            lane.deliver(ref.batches[later - 1].files)
            run = lane.dbt("build", select=ctx.build_select, record=False, keys=True)
            errors += [f"build of {ref.batch_label(later)}: {problem}" for problem in run.problems]
        final = lane.snapshot(f"{slug} continued", ref.project)
        taken.append(final)
        comparison, differing = ref.compare(
            ctx,
            NAME,
            final,
            last,
            label=f"{point.label}: clean vs crashed, rebuilt and continued to batch {last}",
            when=f"after batch {last}",
        )
        comparisons.append(comparison)
        tables += differing
    explained = explained_tables(comparisons)
    errors = unexplained_errors(ctx, NAME, errors)
    survived = not errors and all(comparison.passed for comparison in comparisons)
    if survived:  # keep the snapshots of failed points only (--keep-work-dir)
        for snapshot in taken:
            lane.store.discard(snapshot)
    trial = Trial(
        label=point.label,
        survived=survived,
        outcome=stopped.outcome,
        tables=tables,
        errors=errors,
        explained=explained,
        reached=stopped.reached,
        interruption=point.interruption,
    )
    return trial, comparisons


class Crash(NeedsDeliveries[Options]):
    name = NAME
    help = "stop builds between models and kill them mid-model (per batch), rebuild, compare with a clean build"
    without_deliveries = "needs --deliveries DIR (batches to crash in)"
    options_type = Options

    def add_arguments(self, parser: argparse._ActionsContainer) -> None:
        parser.add_argument(
            "--crash-points",
            type=int,
            default=None,
            metavar="N",
            help="between-model stops per crashed batch, spread over the build order, first and "
            f"last node included (default: {DEFAULT_CRASH_POINTS}; 0: none; a larger number than "
            "the nodes: after every node)",
        )
        parser.add_argument(
            "--kill-points",
            type=int,
            default=None,
            metavar="N",
            help=f"SIGKILLs of a child dbt build per crashed batch (default: {DEFAULT_KILL_POINTS}; 0: none)",
        )
        parser.add_argument(
            "--seed",
            type=int,
            default=None,
            metavar="N",
            help="seed of the kill moments (default: 0); the same seed tries the same moments",
        )
        parser.add_argument(
            "--fault-var",
            default=None,
            metavar="VAR",
            help="dbt var that makes the model it names (its relation name) fail after its write, "
            "before COMMIT; between-model points then fail each model in turn instead of building "
            "a prefix of the build order",
        )
        parser.add_argument(
            "--crash-batches",
            nargs="+",
            default=None,
            metavar="J",
            help="batches to crash in, numbered from 1 in batch order (default: the middle one, "
            "so a crash meets history before it and batches after it; `all`: every batch)",
        )

    def run(self, ctx: CheckContext, options: Options) -> CheckResult:
        started = time.monotonic()
        crashed = _crash_batches(options, len(ctx.batches()))
        ref = build_reference(ctx, NAME)
        problems = unexplained_errors(ctx, NAME, ref.lane.problems())
        if problems:
            return CheckResult(
                name=NAME,
                status=Status.ERROR,
                duration_s=time.monotonic() - started,
                errors=["the clean build failed, so no crash can be judged against it:", *problems],
            )
        order = _build_order(ref, options.fault_var)
        kills = options.kill_points
        one_process = ctx.store.adapter == "spark"
        if one_process and kills:
            from harness.engines.spark import ONE_PROCESS

            ctx.progress(f"[{NAME}] no kill point on Spark: {ONE_PROCESS}")
            kills = 0
        lane = ctx.lane(NAME, "crashed")
        plan = _plan_points(ctx, ref, lane, crashed, order, replace(options, kill_points=kills))
        tried = _try_points(ctx, ref, lane, plan.points)
        result = _verdict(ctx, [ref.lane, lane], tried, [*plan.errors, *tried.errors])
        result.metrics = {
            **result.metrics,
            "build order": " > ".join(model.name for model in order),
            "crashed batches": ", ".join(ref.batch_label(j) for j in crashed),
        }
        if plan.clean_child_s:
            shown = ", ".join(f"{k}: {v}" for k, v in plan.clean_child_s.items())
            result.metrics["clean child build, execution (s)"] = shown
        if one_process and options.kill_points:
            result.notes.insert(
                1, "no kill point: Spark's session target admits one dbt process (stops between models only)"
            )
        result.duration_s = time.monotonic() - started
        return result


def _build_order(ref: Reference, fault_var: str | None) -> list[Model]:
    """The data nodes the clean build built, in build order: the models alone with a fault
    var (only a model can fail on it), else models, seeds and snapshots."""
    built = {node.unique_id for node in ref.lane.runs[0].nodes}
    kinds = ("model",) if fault_var else ("model", "seed", "snapshot")
    data_nodes = {
        model.unique_id for model in ref.project.models if model.unique_id in built and model.resource_type in kinds
    }
    return [ref.project.by_name(uid) for uid in build_order(ref.lane.runs[0].target_path, data_nodes)]


@dataclass
class PointPlan:
    """The crash points of a run, in the order they are tried, and what stopped a batch's kills."""

    points: list[Point] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    clean_child_s: dict[str, float] = field(default_factory=dict)  # batch label -> execution window


def _plan_points(
    ctx: CheckContext, ref: Reference, lane: Lane, crashed: list[int], order: list[Model], options: Options
) -> PointPlan:
    """Per crashed batch: the between-model stops spread over `order`, then the kills (after
    timing the batch's clean build in a child)."""
    plan = PointPlan()
    names = [model.name for model in order]
    for batch in crashed:
        for k in spread(len(order), options.crash_points):
            if options.fault_var:
                plan.points.append(
                    _fault_point(ctx, ref, batch, options.fault_var, names[k - 1], order[k - 1].identifier)
                )
            else:
                plan.points.append(_prefix_point(ctx, ref, batch, names, k))
        if options.kill_points > 0:
            window, why = _execution_window(ctx, ref, lane, batch)
            if why:
                plan.errors.append(f"{ref.batch_label(batch)}: the clean child build failed, no kill tried: {why}")
                continue
            plan.clean_child_s[ref.batch_label(batch)] = round(window, 2)
            for at in kill_moments(window, options.kill_points, options.seed, batch):
                plan.points.append(_kill_point(ctx, ref, batch, at, window))
    return plan


@dataclass
class Tried:
    """What trying the points gave: a trial per point tried, the comparisons of the failed
    ones, what the first point could not judge, and a fault the project ignored."""

    trials: list[Trial] = field(default_factory=list)
    failed_comparisons: list[Comparison] = field(default_factory=list)
    not_judged: list[NotJudged] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _try_points(ctx: CheckContext, ref: Reference, lane: Lane, points: list[Point]) -> Tried:
    tried = Tried()
    for number, point in enumerate(points, start=1):
        ctx.progress(f"[{NAME}] point {number}/{len(points)}: {point.label}")
        try:
            trial, comparisons = _try(ctx, ref, lane, point, number)
        except FaultIgnored as exc:
            tried.errors.append(str(exc))
            break
        tried.trials.append(trial)
        tried.not_judged = tried.not_judged or comparisons[0].not_judged
        if not trial.survived:
            tried.failed_comparisons += [c for c in comparisons if not c.passed]
        ctx.progress(f"[{NAME}] point {number}: {'survived' if trial.survived else 'FAILED'}")
    return tried


def _verdict(ctx: CheckContext, lanes: list[Lane], tried: Tried, errors: list[str]) -> CheckResult:
    """The check's result: it fails when a point failed or a build erred; with no point that
    reached a running build (and no error), it exercised nothing."""
    trials = tried.trials
    figures = points_exercised(trials)
    kill_trials = figures["kill points tried"]
    interrupted = figures["kill points reached (killed a running build)"]
    metrics: dict[str, object] = {
        "points tried": len(trials),
        "survived": sum(t.survived for t in trials),
        "failed": sum(not t.survived for t in trials),
    }
    exercised: dict[str, object] = dict(figures)
    exercised.update(key_figures(lanes))
    notes = [f"{metrics['survived']} of {len(trials)} crash point(s) survived"]
    if kill_trials and interrupted < kill_trials:
        notes.append(
            f"{kill_trials - interrupted} kill point(s) came after the build had ended: not counted as reached"
        )
    explained = sorted({name for t in trials for name in t.explained})
    if explained:
        notes.append("differences already reported by an earlier check, not counted again: " + ", ".join(explained))
    notes += [f"not judged: {nj.table}: {nj.reason}" for nj in tried.not_judged]
    findings = lane_findings(ctx, NAME, lanes).with_errors_first(errors)
    reached = sum(t.reached for t in trials)
    reason = ""
    if not reached and not errors:
        reason = "no crash point reached: " + (
            "no point to try (--crash-points 0 and --kill-points 0?)"
            if not trials
            else "every kill came after the build had ended"
        )
    failed = findings.failed or not all(trial.survived for trial in trials)
    status = Status.FAIL if failed else (Status.NOT_EXERCISED if reason else Status.PASS)
    return findings.into(
        CheckResult(
            name=NAME,
            status=status,
            comparisons=tried.failed_comparisons,
            notes=notes,
            metrics=metrics,
            trials=trials,
            exercised=exercised,
            reason=reason if status is Status.NOT_EXERCISED else "",
        )
    )
