"""Ledger postings: a contribution entered again after a change gets a new posting, never a reused id."""

from __future__ import annotations

from tests.pipeline.project import Pipeline, event


def test_event_returning_to_an_earlier_contribution_gets_a_new_entry(pipeline: Pipeline) -> None:
    """A v1 100, then v2 130, then v3 100 again: five postings with distinct ids, balance 100."""
    changes = [(100, 1), (130, 2), (100, 3)]
    for day, (amount, version) in enumerate(changes, start=1):
        pipeline.land(
            f"2026-11-0{day}_001_main.csv",
            [
                event("A", amount, version=version, ingested_at=f"2026-11-0{day}T11:00:00Z"),
            ],
        )
        # the data tests run once, on the last day's state
        (pipeline.build if day == len(changes) else pipeline.run_ok)()
    postings = pipeline.query("select posting_type, amount_cents from fct_revenue_ledger order by posted_run_seq, 1, 2")
    assert postings == [("entry", 100), ("entry", 130), ("reversal", -100), ("entry", 100), ("reversal", -130)]
    assert pipeline.scalar("select count(distinct posting_id) from fct_revenue_ledger") == 5
    assert pipeline.scalar("select sum(amount_cents) from fct_revenue_ledger") == pipeline.net_total() == 100
