"""A crash right after a model's COMMIT: its progress row committed with its data, and the retry converges.

The process is made to die (an exception) in the very first statement after the model's
COMMIT, before anything that runs after the transaction (a `transaction: false`
hook). The design writes the progress row inside the transaction, so there is no moment at
which the data is committed and the progress is not: this test shows it for every model
that logs progress, and fails if a progress write moves after COMMIT.
"""

from __future__ import annotations

import pytest
from dbt.adapters.sql.connections import SQLConnectionManager
from dbt_common.events.contextvars import get_node_info

from tests.pipeline.project import Pipeline, event

MODELS = [
    "stg_landing__events",
    "int_corrections_recorded",
    "int_event_copies_classified",
    "fct_order_items",
    "fct_daily_revenue",
    "fct_revenue_ledger",
    "late_events",
    "quarantined_events",
]
CORRECTION = {"correct_from": "2026-10-20", "correct_to": "2026-10-20"}
DAY2 = {"ingested_at": "2026-11-02T09:00:00Z"}


class CrashAfterCommit(RuntimeError):
    pass


def _crash_after_commit_of(monkeypatch: pytest.MonkeyPatch, model: str) -> dict:
    """Make the first COMMIT of `model` succeed, then fail, once."""
    original = SQLConnectionManager.commit
    state = {"crashed": False}

    def commit_then_crash(self):
        connection = original(self)
        if not state["crashed"] and get_node_info().get("unique_id") == f"model.rerun_safe.{model}":
            state["crashed"] = True
            raise CrashAfterCommit(f"crash right after COMMIT of {model}")
        return connection

    monkeypatch.setattr(SQLConnectionManager, "commit", commit_then_crash)
    return state


@pytest.fixture(scope="module")
def day1(tmp_path_factory: pytest.TempPathFactory) -> Pipeline:
    """Day 1 landed and run, once for the module: each test crashes in a copy of it."""
    pipeline = Pipeline(tmp_path_factory.mktemp("day1"))
    pipeline.land(
        "2026-11-01_001_main.csv",
        [
            event("A", 100),
            event("B", 200, order_item_id="i2"),
            event("C", 50, event_type="refund", order_item_id="i2"),
            event("L", 700, order_item_id="i7", event_time="2026-10-20T10:00:00Z", ingested_at="2026-11-01T12:00:00Z"),
        ],
    )
    assert pipeline.run().success
    return pipeline


@pytest.mark.parametrize("model", MODELS)
def test_crash_right_after_commit_keeps_data_and_progress_together(
    day1: Pipeline, tmp_path, monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    """The run dies right after one model's COMMIT: that model's progress row is there; the retry equals a full
    rebuild."""
    pipeline = day1.copy(tmp_path / "pipeline")
    # day 2: a duplicate, a move, a conflict, an invalid row, a new event, and a correction for L
    pipeline.land(
        "2026-11-02_001_main.csv",
        [
            event("A", 100, **DAY2),
            event("B", 250, order_item_id="i2", version=2, event_time="2026-11-02T08:00:00Z", **DAY2),
            event("K", 10, order_item_id="i3", **DAY2),
            event("K", 11, order_item_id="i3", **DAY2),
            event("N", -5, order_item_id="i4", **DAY2),
            event("D", 400, order_item_id="i5", event_time="2026-11-02T08:00:00Z", **DAY2),
        ],
    )
    state = _crash_after_commit_of(monkeypatch, model)
    crashed = pipeline.run(vars=CORRECTION)
    assert state["crashed"] and not crashed.success
    run_seq = pipeline.scalar("select max(run_seq) from rerun_safe_runs")
    assert (
        pipeline.scalar(f"select count(*) from rerun_safe_run_log where model = '{model}' and run_seq = {run_seq}") == 1
    ), f"{model} committed its data in run {run_seq} without its progress row"

    pipeline.build(vars=CORRECTION)  # the retry: the same command again
    assert pipeline.net_total() == 100 + 250 - 50 + 700 + 400
    retried = _published(pipeline)
    assert pipeline.run("--full-refresh").success
    assert _published(pipeline) == retried
    assert pipeline.scalar("select sum(amount_cents) from fct_revenue_ledger") == pipeline.net_total()


def _published(pipeline: Pipeline) -> dict:
    return {
        **pipeline.business_state(),
        "late_events": pipeline.table("late_events", exclude=("first_seen_run_seq",)),
        "quarantined_events": pipeline.table("quarantined_events", exclude=("quarantined_run_seq",)),
    }
