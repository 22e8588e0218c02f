"""A microbatch model whose lookback is too short for its late rows, beside its correct twin
(tests/fixtures/projects/microbatch_lookback): ONE harness run judges both.

dbt picks the batches of a microbatch run from the wall clock: an incremental run rebuilds the
day it runs in and `lookback` days before it; a full refresh builds every day from `begin`.
So the deliveries are written here with dates relative to today (UTC), and `begin` is set the
same way. The first delivery holds events of 6 to 3 days ago; the second a row for 5 days ago
(late by 4 days) and rows of yesterday. Built batch by batch, `microbatch_lookback`
(lookback 1) never reads the late row and fails `convergence` with the hint that names its
lookback; `microbatch_lookback_ok` (lookback 10) has it and passes `convergence` and
`idempotency`.
"""

from __future__ import annotations

import csv
import datetime
from pathlib import Path

import pytest

import harness
from harness.hints import MICROBATCH_LOOKBACK
from harness.results import CheckResult, Status
from pipeline_demo.generate import HEADER
from tests.harness.helpers import PROJECTS

PROJECT = PROJECTS / "microbatch_lookback"
CHECKS = ["convergence", "idempotency"]
BUG = "microbatch_lookback"
TWIN = f"{BUG}_ok"
# landed_rows (tests/fixtures/projects/correct/macros) reads the contract's columns, in this order
COLUMNS = HEADER
LATE_EVENT = "late_5d"


def write_delivery(path: Path, events: dict[str, tuple[datetime.date, datetime.date]]) -> None:
    """`events`: event id -> (the day it happened, the day it was ingested)."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(COLUMNS)
        for number, (event_id, (day, ingested)) in enumerate(events.items()):
            writer.writerow(
                [
                    event_id,
                    "sale",
                    "c1",
                    f"o{number}",
                    f"i{number}",
                    100 + number,
                    "EUR",
                    f"{day.isoformat()}T08:00:00Z",
                    f"{ingested.isoformat()}T09:00:00Z",
                    1,
                ]
            )


def write_deliveries(folder: Path, today: datetime.date) -> None:
    def ago(days: int) -> datetime.date:
        return today - datetime.timedelta(days=days)

    folder.mkdir()
    write_delivery(
        folder / f"{ago(3).isoformat()}_events.csv",
        {f"on_time_{days}d": (ago(days), ago(3)) for days in range(6, 2, -1)},
    )
    write_delivery(
        folder / f"{ago(1).isoformat()}_events.csv",
        {LATE_EVENT: (ago(5), ago(1)), "on_time_1d_a": (ago(1), ago(1)), "on_time_1d_b": (ago(1), ago(1))},
    )


def run_once(work: Path) -> dict[str, CheckResult]:
    today = datetime.datetime.now(datetime.UTC).date()
    deliveries = work / "deliveries"
    work.mkdir()
    write_deliveries(deliveries, today)
    begin = (today - datetime.timedelta(days=7)).isoformat()
    run = harness.run_checks(
        PROJECT,
        CHECKS,
        deliveries=deliveries,
        work_dir=work / "harness",
        vars={"microbatch_begin": begin},
    )
    return {result.name: result for result in run.results}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CheckResult]:
    return run_once(tmp_path_factory.mktemp("microbatch_lookback") / "work")


def test_a_short_lookback_loses_the_late_row_and_names_its_lookback(results: dict[str, CheckResult]) -> None:
    convergence = results["convergence"]
    assert convergence.status is Status.FAIL, convergence.errors
    diff = convergence.comparisons[0].diff_for(BUG)
    assert not diff.identical
    # the full refresh (left) has the late row, the batch-by-batch build (right) does not
    assert (diff.left_rows, diff.right_rows) == (7, 6), (diff.left_rows, diff.right_rows)
    assert diff.surplus_left == 1 and diff.surplus_right == 0
    assert LATE_EVENT in diff.sample, diff.sample
    assert diff.hint == MICROBATCH_LOOKBACK.format(lookback=1)
    assert "raise `lookback`" in diff.hint


def test_a_lookback_covering_the_lateness_converges_and_is_idempotent(results: dict[str, CheckResult]) -> None:
    assert results["idempotency"].status is Status.PASS, results["idempotency"].errors
    for name, result in results.items():
        assert result.comparisons, name
        for comparison in result.comparisons:
            diff = comparison.diff_for(TWIN)
            assert diff.identical, f"{TWIN} differs in {name}: {diff.sample}"
            assert diff.left_rows == 7, (name, diff.left_rows)
        assert not [failure for failure in result.test_failures if TWIN in failure]
