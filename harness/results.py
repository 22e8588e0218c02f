"""Result types shared by the diff, the checks and the reports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple

from harness.errors import NotFound

if TYPE_CHECKING:  # harness.keys reads these results: no import at run time
    from harness.keys import KeyNotAsserted, KeyViolation


class Status(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"  # the check could not run to a verdict
    NOT_EXERCISED = "not exercised"  # it ran, but tried nothing (no row, no file read, no point)
    SKIPPED = "skipped"  # not run: it does not apply to this project, or --skip / --only


class Column(NamedTuple):
    name: str
    type: str


class Retyped(NamedTuple):
    """A column on both sides, of another type on the right."""

    name: str
    left: str
    right: str


@dataclass(frozen=True)
class SchemaDiff:
    """How the columns of two relations differ, matched by name (sqlmesh's `SchemaDiff` has
    the same shape): columns only on the right (`added`), only on the left (`removed`), and on
    both with another type (`retyped`)."""

    added: tuple[Column, ...] = ()
    removed: tuple[Column, ...] = ()
    retyped: tuple[Retyped, ...] = ()

    @classmethod
    def between(cls, left: Mapping[str, str], right: Mapping[str, str]) -> SchemaDiff:
        """The difference of two column maps (name -> type), each in its relation's order."""
        return cls(
            added=tuple(Column(name, type_) for name, type_ in right.items() if name not in left),
            removed=tuple(Column(name, type_) for name, type_ in left.items() if name not in right),
            retyped=tuple(
                Retyped(name, type_, right[name])
                for name, type_ in left.items()
                if name in right and right[name] != type_
            ),
        )

    @property
    def has_changes(self) -> bool:
        return bool(self.added or self.removed or self.retyped)

    def lines(self) -> list[str]:
        """One line per changed column, for the reports."""
        return [
            *(f"column {column.name} only on the left" for column in self.removed),
            *(f"column {column.name} type {column.left} -> {column.right}" for column in self.retyped),
            *(f"column {column.name} only on the right" for column in self.added),
        ]


@dataclass
class TableDiff:
    """How one relation differs between two snapshots (left = before/reference, right = after)."""

    table: str
    mode: str = "exact"  # exact | history (sums per group)
    key: tuple[str, ...] = ()
    key_source: str = ""  # where the key came from: config, unique test, ...
    excluded_columns: tuple[str, ...] = ()
    left_rows: int = 0
    right_rows: int = 0
    missing_on: str | None = None  # "left" | "right" when the relation exists on one side only
    schema: SchemaDiff = field(default_factory=SchemaDiff)
    # why the rows could not be compared as they stand: no column in common, a key column
    # missing, a view that could not be read, types the other side cannot take
    schema_problems: list[str] = field(default_factory=list)
    surplus_left: int = 0  # rows (counted with multiplicity) only on the left
    surplus_right: int = 0
    duplicated_groups: int = 0  # identical rows present on both sides with different counts
    duplicate_keys_left: int = 0
    duplicate_keys_right: int = 0
    # keys of the right side repeated with a NULL in one of their columns (a merge never matches them)
    null_key_duplicates_right: int = 0
    keys_removed: int = 0
    keys_added: int = 0
    keys_changed: int = 0
    changed_columns: dict[str, int] = field(default_factory=dict)
    # a few new (right side) values of each changed column, as text (harness.hints)
    changed_values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sample: str = ""
    explained_by: str = ""  # an earlier check already reported this table: not counted again
    hint: str = ""  # the classic bug pattern this difference looks like (harness.hints)
    # A difference reported as a warning, not a failure, and why (a reordered delivery whose
    # high-water mark the harness cannot tell is a load stamp: harness.checks.batches)
    warning: str = ""
    # columns left out of this comparison because the split stamped them at delivery time
    stamped_columns: tuple[str, ...] = ()
    # a check-strategy snapshot's meta columns: the time of the snapshot run, by dbt's design
    snapshot_time_columns: tuple[str, ...] = ()

    @property
    def schema_changes(self) -> list[str]:
        """The schema's differences and problems as the reports print them."""
        return self.schema.lines() + self.schema_problems

    @property
    def judged_identical(self) -> bool:
        """Identical, or its difference is already another check's finding, or a warning."""
        return self.identical or bool(self.explained_by) or bool(self.warning)

    @property
    def identical(self) -> bool:
        return (
            self.missing_on is None and not self.schema_changes and self.surplus_left == 0 and self.surplus_right == 0
        )

    @property
    def differences(self) -> int:
        return self.surplus_left + self.surplus_right

    def kinds(self) -> list[str]:
        """Short names of what differs, for assertions and one-line summaries."""
        found: list[str] = []
        if self.missing_on:
            found.append(f"missing on {self.missing_on}")
        if self.schema_changes:
            found.append("schema changed")
        if self.duplicated_groups:
            found.append("duplicated rows")
        if self.keys_added:
            found.append("keys added")
        if self.keys_removed:
            found.append("keys removed")
        if self.keys_changed:
            found.append("keys changed")
        if self.changed_columns:
            found.append("columns changed: " + ", ".join(sorted(self.changed_columns)))
        if self.duplicate_keys_right > self.duplicate_keys_left:
            found.append("duplicate keys")
        if self.surplus_left:
            found.append("rows removed")
        if self.surplus_right:
            found.append("rows added")
        return found

    def summary(self) -> str:
        if self.identical:
            return "identical"
        if self.missing_on:
            return f"exists only on the {'right' if self.missing_on == 'left' else 'left'}"
        parts = []
        if self.schema_changes:
            parts.append("schema: " + "; ".join(self.schema_changes))
        if self.differences:
            parts.append(
                f"{self.differences} differing rows "
                f"(-{self.surplus_left} +{self.surplus_right}; rows {self.left_rows} -> {self.right_rows})"
            )
        if self.key:
            keyed = []
            if self.keys_removed:
                keyed.append(f"{self.keys_removed} keys removed")
            if self.keys_added:
                keyed.append(f"{self.keys_added} keys added")
            if self.keys_changed:
                keyed.append(f"{self.keys_changed} keys changed")
            if self.changed_columns:
                cols = ", ".join(f"{name} ({count})" for name, count in sorted(self.changed_columns.items()))
                keyed.append(f"changed columns: {cols}")
            if self.duplicate_keys_left or self.duplicate_keys_right:
                keyed.append(f"duplicate keys: {self.duplicate_keys_left} -> {self.duplicate_keys_right}")
            if keyed:
                parts.append("; ".join(keyed))
        if self.duplicated_groups:
            parts.append(f"{self.duplicated_groups} rows present on both sides with other counts (duplicates)")
        return "; ".join(parts)


@dataclass(frozen=True)
class NotJudged:
    table: str
    reason: str


@dataclass
class Comparison:
    """One pair of snapshots compared table by table."""

    label: str
    left: str
    right: str
    diffs: list[TableDiff] = field(default_factory=list)
    not_judged: list[NotJudged] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(diff.judged_identical for diff in self.diffs)

    @property
    def rows_compared(self) -> int:
        return sum(max(diff.left_rows, diff.right_rows) for diff in self.diffs)

    def diff_for(self, table: str) -> TableDiff:
        for diff in self.diffs:
            if diff.table == table or diff.table.split(".")[-1] == table:
                return diff
        raise NotFound(f"{table} not compared in {self.label!r}")


class Interruption(StrEnum):
    """How a crash point interrupted the build of its batch (harness.checks.crash)."""

    STOPPED = "stopped between models"  # only a prefix of the build order was built
    FAILED_MODEL = "model failed before COMMIT"  # --fault-var: a model failed after its write
    SIGKILL = "SIGKILL"  # a child dbt build killed at a moment of its execution


@dataclass
class Trial:
    """One scenario of a check that tries many (a crash point, a start order): what was done,
    whether the warehouse survived it, and which tables differ from the clean build."""

    label: str
    survived: bool
    outcome: str = ""  # what happened, e.g. "killed during model main.x (3 of 9 done)"
    tables: list[str] = field(default_factory=list)  # differing tables, "name (kinds)"
    errors: list[str] = field(default_factory=list)  # builds that had to succeed and did not
    explained: list[str] = field(default_factory=list)  # differing tables another check reported
    reached: bool = True  # the point stopped the build where it meant to (a kill that hit a running build)
    interruption: Interruption | None = None  # a crash point's kind; None for other trials

    def line(self) -> str:
        parts = [self.outcome] if self.outcome else []
        if self.tables:
            parts.append("differs: " + "; ".join(self.tables))
        parts += [f"error: {error.splitlines()[0][:200]}" for error in self.errors]
        return " | ".join(parts)


@dataclass(frozen=True)
class Findings:
    """What a check's builds found besides its comparisons (harness.context.lane_findings):
    build errors, duplicate keys (one per model and grain), the project's failing data tests
    and the nodes dbt skipped."""

    errors: tuple[str, ...] = ()  # build errors no earlier check of the run explains
    key_violations: tuple[KeyViolation, ...] = ()
    test_failures: tuple[str, ...] = ()  # the project's failing data tests
    skipped_nodes: tuple[str, ...] = ()  # "<unique_id> (<dbt's reason>)"
    # model name -> dbt's reason it skipped the model (an upstream failure): not a difference
    dbt_skipped: Mapping[str, str] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        """A build error, or a duplicate key no earlier check of the run reported."""
        return bool(self.errors) or any(not violation.explained_by for violation in self.key_violations)

    def with_errors_first(self, errors: Sequence[str]) -> Findings:
        """These findings with the check's own `errors` first, each error listed once."""
        return replace(self, errors=(*errors, *(error for error in self.errors if error not in errors)))

    def into(self, result: CheckResult) -> CheckResult:
        """`result` with these findings as its fields (the reports read them there)."""
        result.errors = list(self.errors)
        result.key_violations = list(self.key_violations)
        result.test_failures = list(self.test_failures)
        result.skipped_nodes = list(self.skipped_nodes)
        result.dbt_skipped = dict(self.dbt_skipped)
        return result


@dataclass
class CheckResult:
    name: str
    status: Status
    comparisons: list[Comparison] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    metrics: dict[str, object] = field(default_factory=dict)
    artifacts: dict[str, str] = field(default_factory=dict)
    trials: list[Trial] = field(default_factory=list)
    duration_s: float = 0.0
    # What the check exercised ("rows compared": 120, "files read by the rebuild": 4, ...):
    # a check that exercised nothing is NOT_EXERCISED, never PASS.
    exercised: dict[str, object] = field(default_factory=dict)
    reason: str = ""  # why it was skipped, or why it exercised nothing
    key_violations: list[KeyViolation] = field(default_factory=list)
    # built models whose key no build asserted, with why (the keys check)
    keys_not_asserted: list[KeyNotAsserted] = field(default_factory=list)
    test_failures: list[str] = field(default_factory=list)  # the project's failing data tests
    skipped_nodes: list[str] = field(default_factory=list)  # nodes dbt skipped (after a failure)
    # model name -> dbt's reason it skipped the model in a build of this check (the upstream
    # node that failed, its status and message): reported as such, never as a difference
    dbt_skipped: dict[str, str] = field(default_factory=dict)
    # dbt's error when the check's first build could not start (no node built: a parse or
    # compile error, a missing file or extension): every later check would fail the same way
    cannot_start: str = ""

    @property
    def passed(self) -> bool:
        return self.status in (Status.PASS, Status.SKIPPED)

    def failing_tables(self) -> dict[str, list[str]]:
        """Table name -> labels of the comparisons in which it differs (differences another
        check already reported are left out)."""
        failing: dict[str, list[str]] = {}
        for comparison in self.comparisons:
            for diff in comparison.diffs:
                if not diff.judged_identical:
                    failing.setdefault(diff.table.split(".")[-1], []).append(comparison.label)
        for violation in self.key_violations:
            if not violation.explained_by:
                failing.setdefault(violation.table.split(".")[-1], []).append("key check")
        return failing

    def hints(self) -> list[str]:
        found = []
        for comparison in self.comparisons:
            for diff in comparison.diffs:
                if diff.hint and not diff.judged_identical:
                    line = f"{diff.table.split('.')[-1]}: {diff.hint}"
                    if line not in found:
                        found.append(line)
        for violation in self.key_violations:
            line = f"{violation.model}: {violation.hint}"
            if violation.hint and not violation.explained_by and line not in found:
                found.append(line)
        return found

    def warnings(self) -> list[str]:
        found = []
        for comparison in self.comparisons:
            for diff in comparison.diffs:
                line = f"{diff.table.split('.')[-1]}: {diff.warning}"
                if diff.warning and not diff.identical and not diff.explained_by and line not in found:
                    found.append(line)
        return found

    def headline(self) -> str:
        """One line for a table cell or a JUnit failure message."""
        if self.status in (Status.SKIPPED, Status.NOT_EXERCISED):
            return self.reason
        failing = sorted(
            table for table, labels in self.failing_tables().items() if labels != ["key check"] * len(labels)
        )
        parts = []
        unexplained = [v for v in self.key_violations if not v.explained_by]
        if unexplained:
            parts.append("duplicate keys in " + ", ".join(sorted({v.model for v in unexplained})))
        if self.errors:
            first = self.errors[0].splitlines()[0]
            more = f" (+{len(self.errors) - 1} more)" if len(self.errors) > 1 else ""
            parts.append(f"{first[:200]}{more}")
        if failing:
            parts.append(f"{len(failing)} table(s) differ: {', '.join(failing)}")
        if self.trials:
            lost = sum(not trial.survived for trial in self.trials)
            if lost:
                parts.insert(0, f"{lost} of {len(self.trials)} point(s) failed")
        if parts:
            return "; ".join(parts)
        if self.warnings():
            return "warning: " + self.warnings()[0][:200]
        if self.notes:
            return self.notes[0]
        tables = {d.table for c in self.comparisons for d in c.diffs}
        return f"{len(tables)} table(s) identical" if tables else ""

    def failure_message(self) -> str:
        lines = list(self.errors)
        if self.reason:
            lines.append(self.reason)
        lines += [f"duplicate keys: {v.line()}" for v in self.key_violations if not v.explained_by]
        lines += [f"FAILED {trial.label}: {trial.line()}" for trial in self.trials if not trial.survived]
        for comparison in self.comparisons:
            for diff in comparison.diffs:
                if not diff.judged_identical:
                    lines.append(f"[{comparison.label}] {diff.table}: {diff.summary()}")
        lines += [f"hint: {hint}" for hint in self.hints()]
        return "\n".join(lines)
