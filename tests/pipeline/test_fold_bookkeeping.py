"""The copies' fold across runs (int_event_copies_classified, docs/semantics.md and
docs/architecture.md "Incremental cost"): duplicates of conflicting and late copies land in
later runs, on later days, and each run's copies, quarantine and late queue are checked against
the oracle (tests/reference/oracle.py) given the run that landed each delivery.

One warehouse, four `dbt run`s, built once for the module:

1. C v1 twice with different amounts (a conflict), U v1 on time, L v1 late (120 h);
2. a duplicate of C's first copy ingested two days later; U v2 late (U is touched, its v1 is not);
3. a duplicate of L (a later run sees the copy again); a duplicate of C's other copy, four days later;
4. a correction over 2026-11-01: L and U v2 become applicable, U v1 superseded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
import pytest

from tests.pipeline.project import Pipeline, event
from tests.reference.oracle import Correction, OracleResult, mark_now, read_landing, run_oracle

DAY = "2026-11-01T10:00:00Z"
COPIES = (
    "select event_id, version, source_file, source_line, copy_status, row_count, first_seen_run_seq,"
    " _changed_run_seq, cast(ingested_at as date), cast(last_ingested_at as date)"
    " from int_event_copies_classified"
)
LATE = "select event_id, version, source_file, source_line, status, first_seen_run_seq from late_events"
QUARANTINE = "select source_file, source_line, reason from quarantined_events"

RUNS: list[tuple[str, list[dict[str, str]], dict[str, str] | None]] = [
    (
        "2026-11-01_001_main.csv",
        [
            event("C", 100, event_time=DAY, ingested_at="2026-11-01T11:00:00Z"),
            event("C", 200, event_time=DAY, ingested_at="2026-11-01T12:00:00Z"),
            event("U", 100, order_item_id="i2", event_time=DAY, ingested_at="2026-11-01T11:00:00Z"),
            event("L", 300, order_item_id="i3", event_time=DAY, ingested_at="2026-11-06T10:00:00Z"),
        ],
        None,
    ),
    (
        "2026-11-03_001_main.csv",
        [
            event("C", 100, event_time=DAY, ingested_at="2026-11-03T11:00:00Z"),
            event("U", 150, order_item_id="i2", version=2, event_time=DAY, ingested_at="2026-11-08T10:00:00Z"),
        ],
        None,
    ),
    (
        "2026-11-07_001_main.csv",
        [
            event("L", 300, order_item_id="i3", event_time=DAY, ingested_at="2026-11-07T10:00:00Z"),
            event("C", 200, event_time=DAY, ingested_at="2026-11-05T11:00:00Z"),
        ],
        None,
    ),
    ("", [], {"correct_from": "2026-11-01", "correct_to": "2026-11-01"}),
]


@dataclass
class Snapshot:
    run_seq: int
    copies: list[tuple]
    late: list[tuple]
    quarantine: list[tuple]
    expected: OracleResult


@dataclass
class Scenario:
    snapshots: list[Snapshot]

    def seq(self, run: int) -> int:
        return self.snapshots[run - 1].run_seq


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    pipeline = Pipeline(tmp_path_factory.mktemp("fold"))
    run_of_file: dict[str, int] = {}
    corrections: list[Correction] = []
    snapshots = []
    for number, (name, rows, vars) in enumerate(RUNS, start=1):
        if name:
            pipeline.land(name, rows)
            run_of_file[name] = number
        landed = read_landing(pipeline.landing)
        if vars:
            corrections.append(
                Correction(
                    pd.Timestamp(vars["correct_from"]).date(), pd.Timestamp(vars["correct_to"]).date(), mark_now(landed)
                )
            )
        pipeline.run(vars=vars)
        snapshots.append(
            Snapshot(
                run_seq=pipeline.scalar("select max(run_seq) from rerun_safe_runs"),
                copies=pipeline.query(COPIES),
                late=pipeline.query(LATE),
                quarantine=pipeline.query(QUARANTINE),
                expected=run_oracle(landed, corrections=corrections, run_of_file=run_of_file),
            )
        )
    return Scenario(snapshots)


def _records(frame: pd.DataFrame) -> list[Any]:
    """The rows of an oracle table as named tuples (pandas types their fields as a union of
    every scalar it knows; these hold the oracle's plain values)."""
    return list(frame.itertuples())


def _expected_changed_runs(scenario: Scenario) -> list[dict[tuple, int]]:
    """Per run, (source_file, source_line) of each copy's earliest row -> the run that last
    changed the copy: what it is (status, applied or not) and the rows it stands for."""
    last_state: dict[tuple, tuple] = {}
    changed: dict[tuple, int] = {}
    per_run = []
    for number, snapshot in enumerate(scenario.snapshots, start=1):
        seen = {}
        for copy in _records(snapshot.expected.copies):
            state = (
                copy.status,
                copy.is_late and copy.status != "late_waiting",
                copy.row_count,
                copy.ingested_at,
                copy.source_file,
                copy.source_line,
            )
            if last_state.get(copy.copy) != state:
                changed[copy.copy] = number
            last_state[copy.copy] = state
            seen[(copy.source_file, copy.source_line)] = scenario.seq(changed[copy.copy])
        per_run.append(seen)
    return per_run


def test_the_scenario_exercises_what_it_claims(scenario: Scenario) -> None:
    """Every run agrees with the oracle on each copy's status and rows; C's copies span several ingestion days."""
    for snapshot in scenario.snapshots:
        actual = sorted((e, v, f, ln, s, n) for e, v, f, ln, s, n, *_ in snapshot.copies)
        expected = sorted(
            (c.event_id, c.version, c.source_file, c.source_line, c.status, c.row_count)
            for c in _records(snapshot.expected.copies)
        )
        assert actual == expected
    last = scenario.snapshots[-1]
    spans = {
        (e, ln): (first, latest)
        for e, _, _, ln, status, _, _, _, first, latest in last.copies
        if status == "conflicting"
    }
    assert spans and all(first < latest for first, latest in spans.values()), spans
    statuses = {(e, v): s for e, v, _, _, s, *_ in last.copies}
    assert statuses[("U", 1)] == "superseded" and statuses[("U", 2)] == "current"


def test_a_duplicate_of_a_conflicting_copy_landing_in_a_later_run_is_quarantined(scenario: Scenario) -> None:
    """Runs 2 and 3 land duplicates of C's conflicting copies: each is quarantined as conflicting_version."""
    for snapshot in scenario.snapshots:
        expected = sorted(
            (q.source_file, int(q.source_line), q.reason) for q in _records(snapshot.expected.quarantined_events)
        )
        assert sorted(snapshot.quarantine) == expected
    final = scenario.snapshots[-1].quarantine
    assert ("2026-11-03_001_main.csv", 2, "conflicting_version") in final
    assert ("2026-11-07_001_main.csv", 3, "conflicting_version") in final


def test_the_conflict_probe_covers_every_ingestion_day_of_a_copy(scenario: Scenario) -> None:
    """C's first copy was ingested on 11-01, its duplicate on 11-03: run 2 finds and quarantines the duplicate."""
    second = scenario.snapshots[1]
    copy = [row for row in second.copies if row[0] == "C" and row[3] == 2 and row[2].startswith("2026-11-01")]
    assert len(copy) == 1 and str(copy[0][8]) == "2026-11-01" and str(copy[0][9]) == "2026-11-03", copy
    assert ("2026-11-03_001_main.csv", 2, "conflicting_version") in second.quarantine
    assert sum(1 for _, _, reason in second.quarantine if reason == "conflicting_version") == 3


def test_late_events_name_the_run_that_first_saw_the_copy(scenario: Scenario) -> None:
    """L lands in run 1 and again in run 3: its late_events row names run 1 in both runs and after the correction."""
    for snapshot in scenario.snapshots:
        expected = sorted(
            (r.event_id, int(r.version), r.status, scenario.seq(r.first_seen_run))
            for r in _records(snapshot.expected.late_events)
        )
        actual = sorted((e, v, s, first) for e, v, _, _, s, first in snapshot.late)
        assert actual == expected
    late_l = [row for row in scenario.snapshots[2].late if row[0] == "L"]
    assert [row[5] for row in late_l] == [scenario.seq(1)]
    copy_l = [row for row in scenario.snapshots[2].copies if row[0] == "L"]
    assert [(row[5], row[6]) for row in copy_l] == [(2, scenario.seq(1))]


def test_an_unchanged_copy_of_a_touched_event_keeps_its_changed_run_seq(scenario: Scenario) -> None:
    """Run 2 touches U (its v2 lands late), U v1 is unchanged and keeps run 1; each stamp is its copy's last change."""
    expected = _expected_changed_runs(scenario)
    for snapshot, changed in zip(scenario.snapshots, expected, strict=True):
        actual = {(f, ln): seq for _, _, f, ln, _, _, _, seq, _, _ in snapshot.copies}
        assert actual == changed
    u_v1 = [row for row in scenario.snapshots[1].copies if row[:2] == ("U", 1)]
    assert [row[7] for row in u_v1] == [scenario.seq(1)]
