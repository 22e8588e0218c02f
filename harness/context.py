"""What every check receives: the dbt settings, its folder, the deliveries (its own options come
with it: harness.checks.base)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.dbt_invoke import DbtRun, DbtSettings
from harness.deliveries import DEFAULT_BATCH_PATTERN, Batch, discover_batches
from harness.engines.base import Store
from harness.engines.duckdb import DuckDBStore
from harness.errors import InputError
from harness.hints import ModelSql, hint_for, in_delivery_files, models_sql
from harness.keys import KeyViolation
from harness.project import Project, load_manifest
from harness.results import CheckResult, Comparison, Findings, NotJudged, Status
from harness.sources import SourceLoader
from harness.workspace import Lane, Progress, cannot_start


def _silent(message: str) -> None:
    del message


@dataclass(frozen=True)
class CheckContext:
    """Made by `harness.session.open_session`, after the target was resolved and checked:
    `settings.scratch` is the harness's own profile, so every build goes to a scratch file."""

    settings: DbtSettings
    workdir: Path
    select: tuple[str, ...] = ()  # the user's --select
    # unique_ids of the models/seeds/snapshots the selection (with --exclude, --state) matched:
    # the nodes judged. None: the whole project.
    selected: frozenset[str] | None = None
    # what each build selects: the selected nodes and their parents (`+name`), so a selection
    # of one model still builds what it reads. Empty: the whole project.
    build_select: tuple[str, ...] = ()
    # --state with --defer: the project's nodes the state selection left out (unchanged; dbt
    # would defer to the base state for them): not judged, named in the report
    deferred: tuple[str, ...] = ()
    deliveries: Path | None = None
    batch_pattern: str = DEFAULT_BATCH_PATTERN
    sample_size: int = 5
    progress: Progress = _silent
    # table or model name -> the check that already reported its difference in this run
    # (later checks list it once, and do not count it again)
    explained: dict[str, str] = field(default_factory=dict)
    # model name -> the check that already reported its duplicate keys (a build error of that
    # model, such as a MERGE that matched two rows, is a consequence, not a new finding)
    explained_keys: dict[str, str] = field(default_factory=dict)
    # --load-sources: deliveries are appended to the project's source tables
    loader: SourceLoader | None = None
    shared: dict[str, Any] = field(default_factory=dict)  # built once per run (the reference)
    store: Store = field(default_factory=DuckDBStore)  # where lanes live (harness.engines)

    def explains_error(self, problem: str, check: str) -> str:
        """The earlier check that already reported the model a build error is about, or ""."""
        match = re.search(r"\b(?:model|seed|snapshot)\.\w+\.(\w+): (?:error|runtime error)", problem)
        name = match.group(1) if match else ""
        for source in (self.explained_keys, self.explained):
            if name and source.get(name, check) != check:
                return source[name]
        return ""

    def lane(self, check: str, name: str) -> Lane:
        if self.settings.scratch is None:
            raise RuntimeError("a check needs the harness's scratch profile (harness.session.open_session)")
        root = self.workdir / check / name
        root.mkdir(parents=True, exist_ok=True)

        def report(message: str) -> None:
            self.progress(f"[{check}] {message}")

        return Lane(
            root=root,
            settings=self.settings,
            progress=report,
            judged=self.selected,
            loader=self.loader,
            store=self.store,
        )

    def batches(self) -> list[Batch]:
        if self.deliveries is None:
            raise InputError("this check needs --deliveries DIR (a folder of CSV delivery files)")
        return discover_batches(self.deliveries, self.batch_pattern)


def manifest_of(run: DbtRun) -> Project:
    return load_manifest(run.target_path, run.rename)


MODEL_SQL = "model_sql"  # ctx.shared: model name -> what its SQL shows (harness.hints)


def remember_sql(ctx: CheckContext | None, lanes: Sequence[Lane]) -> None:
    """Read what each model's SQL shows from the first manifest of these lanes, once per run."""
    if ctx is None or MODEL_SQL in ctx.shared:
        return
    for lane in lanes:
        for run in lane.runs:
            manifest = run.target_path / "manifest.json"
            if manifest.exists():
                ctx.shared[MODEL_SQL] = models_sql(manifest)
                return


def in_input(ctx: CheckContext | None) -> Callable[[str], bool] | None:
    """Whether a value appears in the run's delivery files (None: no deliveries to look in)."""
    if ctx is None or ctx.deliveries is None:
        return None
    try:
        files = [f for batch in ctx.batches() for f in batch.files]
    except (ValueError, FileNotFoundError):
        return None
    return in_delivery_files(files)


def annotate(
    ctx: CheckContext | None, check: str, comparisons: Sequence[Comparison], lanes: Sequence[Lane] = ()
) -> None:
    """Give every differing table its hint (from the diff and what the model's SQL shows), and
    mark the ones an earlier check of this run already reported (listed once, not counted again)."""
    remember_sql(ctx, lanes)
    known: dict[str, ModelSql] = ctx.shared.get(MODEL_SQL, {}) if ctx is not None else {}
    found_in_input = in_input(ctx)  # the delivery files are listed once, not per differing table
    for comparison in comparisons:
        for diff in comparison.diffs:
            if diff.identical:
                continue
            diff.hint = hint_for(
                diff, check, comparison.label, known.get(diff.table.split(".")[-1].lower()), found_in_input
            )
            name = diff.table.split(".")[-1]
            if ctx is not None and ctx.explained.get(name, check) != check:
                diff.explained_by = ctx.explained[name]


def lane_findings(ctx: CheckContext | None, check: str, lanes: Sequence[Lane]) -> Findings:
    """Build errors, key violations (one per model and grain), failing data tests and skipped
    nodes of a check's lanes."""
    violations: dict[tuple[str, tuple[str, ...]], KeyViolation] = {}
    for lane in lanes:
        for checked in lane.key_checks:
            for violation in checked.violations:
                violations.setdefault((violation.model, violation.columns), violation)
    for violation in violations.values():
        if ctx is not None and ctx.explained_keys.get(violation.model, check) != check:
            violation.explained_by = ctx.explained_keys[violation.model]
    errors = [problem for lane in lanes for problem in lane.problems()]
    found = Findings(
        errors=tuple(unexplained_errors(ctx, check, errors)),
        key_violations=tuple(violations.values()),
        test_failures=tuple(sorted({f for lane in lanes for f in lane.test_failures()})),
    )
    return _with_skips(found, skip_causes(run for lane in lanes for run in lane.runs))


def _with_skips(findings: Findings, causes: Mapping[str, str]) -> Findings:
    """`findings` with the nodes dbt skipped (unique_id -> dbt's reason): every node listed,
    and the data nodes by name, so a comparison sets them aside (set_aside_skipped)."""
    return replace(
        findings,
        skipped_nodes=tuple(f"{uid} ({reason})" for uid, reason in sorted(causes.items())),
        dbt_skipped={
            uid.split(".")[-1]: reason
            for uid, reason in sorted(causes.items())
            if uid.split(".")[0] in ("model", "seed", "snapshot")
        },
    )


def skip_causes(runs: Iterable[DbtRun]) -> dict[str, str]:
    """Every node dbt skipped in these runs -> its reason (the first run that skipped it)."""
    causes: dict[str, str] = {}
    for run in runs:
        for uid, reason in run.skip_causes().items():
            causes.setdefault(uid, reason)
    return causes


def set_aside_skipped(comparisons: Sequence[Comparison], dbt_skipped: Mapping[str, str]) -> None:
    """A model dbt skipped in one build exists on one side only: that is dbt's skip (an
    upstream failure), not a difference. It goes to the comparison's not judged, with dbt's
    reason."""
    for comparison in comparisons:
        kept = []
        for diff in comparison.diffs:
            name = diff.table.split(".")[-1]
            if not diff.identical and name in dbt_skipped:
                comparison.not_judged.append(NotJudged(diff.table, dbt_skipped[name]))
            else:
                kept.append(diff)
        comparison.diffs[:] = kept


def build_everything(
    ctx: CheckContext, name: str, lane_name: str, started: float
) -> tuple[Lane, DbtRun, CheckResult | None]:
    """A lane with every delivery (if any) delivered and one build: the start of keys and
    idempotency. The third value is the ERROR result when that build failed."""
    lane = ctx.lane(name, lane_name)
    if ctx.deliveries is not None:
        lane.deliver(f for batch in ctx.batches() for f in batch.files)
    run = lane.dbt("build", select=ctx.build_select, uses_landing=ctx.deliveries is not None)
    return lane, run, build_failed(name, started, lane, run)


def build_failed(name: str, started: float, lane: Lane, run: DbtRun) -> CheckResult | None:
    """The check's first build failed: nothing can be judged; dbt's own error is the report."""
    if run.ok:
        return None
    found = Findings(
        errors=(f"the first build failed, nothing could be judged: {run.problems[0]}", *run.problems[1:]),
        test_failures=tuple(run.test_failures),
    )
    return _with_skips(found, run.skip_causes()).into(
        CheckResult(
            name=name, status=Status.ERROR, duration_s=time.monotonic() - started, cannot_start=cannot_start(run)
        )
    )


def unexplained_errors(ctx: CheckContext | None, check: str, errors: list[str]) -> list[str]:
    """Build errors, less those of models an earlier check already reported (listed once, in
    `ctx.progress`, not counted again)."""
    if ctx is None:
        return errors
    kept = []
    for error in errors:
        by = ctx.explains_error(error, check)
        if by:
            ctx.progress(f"[{check}] build error in a model already reported by {by}: {error.splitlines()[0][:160]}")
        else:
            kept.append(error)
    return kept


def key_figures(lanes: Sequence[Lane]) -> dict[str, object]:
    checks = [checked for lane in lanes for checked in lane.key_checks]
    return {
        "builds key-checked": len(checks),
        "grains asserted": sum(c.grains_checked for c in checks),
    }


def finish(
    name: str,
    started: float,
    comparisons: list[Comparison],
    lanes: Sequence[Lane] = (),
    notes: Sequence[str] = (),
    *,
    ctx: CheckContext | None = None,
    exercised: dict[str, object] | None = None,
    nothing: str | None = None,
    compares: bool = True,
) -> CheckResult:
    """A result from comparisons and lanes. The check states what it exercised; `nothing`
    (or no row in any judged table) makes it NOT_EXERCISED rather than a pass. A check that
    compares no tables by design (`compares=False`: keys) gets no "tables judged" / "rows
    compared" figures; the result's figures are final (a check does not edit them after)."""
    findings = lane_findings(ctx, name, lanes)
    set_aside_skipped(comparisons, findings.dbt_skipped)
    annotate(ctx, name, comparisons, lanes)
    figures: dict[str, object] = {}
    if compares:
        figures["tables judged"] = len({d.table for c in comparisons for d in c.diffs})
        figures["rows compared"] = sum(c.rows_compared for c in comparisons)
    figures.update(exercised or {})
    figures.update(key_figures(lanes))
    units = {
        node.unique_id
        for lane in lanes
        for run in lane.runs
        for node in run.nodes
        if node.unique_id.startswith("unit_test.")
    }
    if units:  # --unit-tests: how many of the project's unit tests the builds ran
        figures["unit tests run"] = len(units)
    failed = findings.failed or not all(comparison.passed for comparison in comparisons)
    if nothing is None:  # the default judgement: rows were compared
        nothing = ""
        if not comparisons:
            nothing = "no comparison was made"
        elif not sum(c.rows_compared for c in comparisons):
            nothing = "every judged table was empty in every build: nothing was compared"
    # A build error the check's first build of a lane already has is no finding of a re-run:
    # the check could not judge (ERROR), as keys and idempotency say when their build fails.
    first_failed = [
        problem
        for lane in lanes
        if lane.runs
        for problem in unexplained_errors(None, name, lane.runs[0].problems)
        if not (ctx is not None and ctx.explains_error(problem, name))
    ]
    status = Status.FAIL if failed else (Status.NOT_EXERCISED if nothing else Status.PASS)
    stopped = ""
    if first_failed:
        status = Status.ERROR
        stopped = next((cannot_start(lane.runs[0]) for lane in lanes if lane.runs and cannot_start(lane.runs[0])), "")
    return findings.into(
        CheckResult(
            name=name,
            status=status,
            comparisons=comparisons,
            notes=list(notes),
            duration_s=time.monotonic() - started,
            exercised=figures,
            reason=nothing if status is Status.NOT_EXERCISED else "",
            cannot_start=stopped,
        )
    )
