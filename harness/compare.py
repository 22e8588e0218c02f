"""Compare two warehouse snapshots table by table, the way the project's models ask."""

from __future__ import annotations

from collections.abc import Collection
from enum import StrEnum

from harness.diff import Side, diff_sides
from harness.engines.base import Relation, Snapshot, Sql
from harness.errors import InputError
from harness.project import CompareMode, Model, Project
from harness.results import Comparison, NotJudged, TableDiff


class Purpose(StrEnum):
    """Why two snapshots are compared; decides how history tables are judged."""

    RERUN = "rerun"  # same inputs again (idempotency): everything must be identical
    REPLAY = "replay"  # files delivered again: as RERUN, but models that record every delivery
    # (meta.rerun_safe.records_deliveries) are not judged: a redelivery adds rows to them
    CONVERGE = "converge"  # same inputs, other route (batches, full refresh): balances must match


RECORDS_DELIVERIES_REASON = "records every delivery: a redelivery adds rows by design"


def _side(con: Sql, name: str, model: Model, history: bool) -> Side:
    if history:
        meta = model.rerun_safe
        groups = ", ".join(con.quote(col) for col in meta.group_by)
        sums = ", ".join(f"sum({con.quote(col)}) as {con.quote(col)}" for col in meta.sum_columns)
        name = f"(select {groups}, {sums} from {name} as __h group by {groups})"
    return Side(sql=name, columns=con.columns(name))


def compare_snapshots(
    left: Snapshot,
    right: Snapshot,
    project: Project,
    *,
    label: str,
    purpose: Purpose,
    selected: Collection[str] | None = None,
    sample_size: int = 5,
    stamped: tuple[str, ...] = (),
) -> Comparison:
    """Diff every relation of two snapshots; list every relation that is not judged, and why.
    `stamped`: load stamp columns the right side's deliveries carry other values of (stamped at
    delivery time, harness.stamps): left out of the comparison, and listed."""
    comparison = Comparison(label=label, left=left.label, right=right.label)
    models = project.by_relation()
    left_relations = {relation.key: relation for relation in left.relations}
    right_relations = {relation.key: relation for relation in right.relations}
    if left.store is None:
        from harness.engines.duckdb import DuckDBStore

        store = DuckDBStore()
    else:
        store = left.store
    with store.comparing(left, right) as (con, name_of):
        for key in sorted(set(left_relations) | set(right_relations)):
            relation = left_relations.get(key) or right_relations[key]
            model = models.get(key)
            reason = _not_judged_reason(model, selected, purpose, key in project.sources)
            if reason:
                comparison.not_judged.append(NotJudged(relation.display_name, reason))
                continue
            assert model is not None
            history = model.rerun_safe.compare is CompareMode.HISTORY and purpose is Purpose.CONVERGE
            if history and not (model.rerun_safe.group_by and model.rerun_safe.sum_columns):
                raise InputError(f"{model.name}: meta.rerun_safe.compare = history needs group_by and sum_columns")
            missing_on = "left" if key not in left_relations else ("right" if key not in right_relations else "")
            unjudgeable = _unjudgeable(relation, (left, right), missing_on, "history" if history else "exact")
            if unjudgeable is not None:
                comparison.diffs.append(unjudgeable)
                continue
            diff = diff_sides(
                con,
                relation.display_name,
                _side(con, name_of(left, left_relations[key]), model, history),
                _side(con, name_of(right, right_relations[key]), model, history),
                key=model.rerun_safe.group_by if history else model.unique_key,
                excluded=tuple(model.rerun_safe.volatile_columns)
                + tuple(c for c in model.snapshot_time_columns if c not in model.rerun_safe.volatile_columns)
                + tuple(c for c in stamped if c not in model.rerun_safe.volatile_columns),
                mode="history" if history else "exact",
                sample_size=sample_size,
            )
            present = {name.lower() for name, _ in con.columns(name_of(left, left_relations[key]))}
            _name_left_out_columns(diff, model, present, stamped, history)
            comparison.diffs.append(diff)
    compared = set(left_relations) | set(right_relations)
    comparison.not_judged += [
        NotJudged(model.display_name, "model not found in either warehouse")
        for model in project.models
        if model.relation_key not in compared and (selected is None or model.unique_id in selected)
    ]
    return comparison


def _unjudgeable(relation: Relation, sides: tuple[Snapshot, Snapshot], missing_on: str, mode: str) -> TableDiff | None:
    """The difference of a relation no diff can compare: a view of either side that could not
    be read, or a relation on one side only (`missing_on`); None when both sides can be diffed."""
    unreadable = [
        f"{snapshot.label}: view could not be read: {error}"
        for snapshot in sides
        for name, error in snapshot.view_errors
        if name.lower() == relation.display_name.lower()
    ]
    if unreadable:
        return TableDiff(table=relation.display_name, schema_problems=unreadable)
    if missing_on:
        return TableDiff(table=relation.display_name, mode=mode, missing_on=missing_on)
    return None


def _name_left_out_columns(
    diff: TableDiff, model: Model, present: set[str], stamped: tuple[str, ...], history: bool
) -> None:
    """Which of the columns the diff left out were volatile, load stamps or snapshot times (of
    those the left side has), and where its key came from."""
    diff.stamped_columns = tuple(c for c in stamped if c.lower() in present)
    diff.snapshot_time_columns = tuple(c for c in model.snapshot_time_columns if c.lower() in present)
    diff.excluded_columns = tuple(
        c
        for c in diff.excluded_columns
        if c in model.rerun_safe.volatile_columns or c in diff.stamped_columns or c in diff.snapshot_time_columns
    )
    if diff.key:
        diff.key_source = "meta.rerun_safe.group_by" if history else model.key_source


def _not_judged_reason(
    model: Model | None, selected: Collection[str] | None, purpose: Purpose, source: bool = False
) -> str:
    if model is None and source:
        return "a source of the project (its input; with --load-sources, the deliveries' rows)"
    if model is None:
        return "not a model of the project (created outside the DAG, e.g. by a hook)"
    if selected is not None and model.unique_id not in selected:
        return "not selected"
    if model.rerun_safe.compare is CompareMode.SKIP:
        return "meta.rerun_safe.compare = skip: " + (model.rerun_safe.reason or "no reason given")
    if purpose is Purpose.REPLAY and model.rerun_safe.records_deliveries:
        return RECORDS_DELIVERIES_REASON
    return ""
