"""What a user sees: every writing dbt command ends with a summary of what THIS
run did, printed by the on-run-end hook run_summary (macros/audit/run_summary.sql) through
dbt's logger from the run's own rows of rerun_safe_runs and rerun_safe_run_log. Read here
from dbt's JSON log file, as a user reads it on the console."""

from __future__ import annotations

import json
from pathlib import Path

from tests.pipeline.project import Pipeline, event


def _summary(log_dir: Path) -> list[str]:
    """The lines run_summary printed (dbt's JinjaLogInfo events), from the first 'run summary:'."""
    messages = [
        record["info"]["msg"]
        for record in map(json.loads, (log_dir / "dbt.log").read_text().splitlines())
        if record["info"]["name"] == "JinjaLogInfo"
    ]
    starts = [n for n, message in enumerate(messages) if message.startswith("run summary: ")]
    assert len(starts) == 1, f"expected one run summary, got {len(starts)}: {messages}"
    return messages[starts[0] :]


def _build(pipeline: Pipeline, log_dir: Path, **kwargs) -> list[str]:
    pipeline.build("--log-path", str(log_dir), "--log-format-file", "json", **kwargs)
    return _summary(log_dir)


def test_each_run_says_what_it_did(pipeline: Pipeline, tmp_path: Path) -> None:
    pipeline.land(
        "2026-11-01_001_main.csv",
        [
            event("A", 10000),
            event("B", 5000, order_item_id="i2"),
            event("L", 300, order_item_id="i3", event_time="2026-10-20T10:00:00Z"),  # 72+ h late: waits
        ],
    )
    first = _build(pipeline, tmp_path / "first")
    assert first[0].startswith("run summary: run 1 (build, invocation ") and first[0].endswith("): success")
    assert "  deliveries: 1 new accepted, 0 rejected, 0 unchanged (already seen); 0 rejected in all" in first
    assert (
        "  rows: 3 staged from 1 file(s), 0 quarantined, 0 late rows applied by a correction; "
        "1 late rows waiting; copies: 1 late copies written"
    ) in first
    assert (
        "  rewritten: the days and items of 3 changed events (3 copies written), "
        "fct_daily_revenue now 1 days, fct_order_items now 2 items"
    ) in first
    assert "  ledger: 2 postings (0 reversals), net +15000 cents" in first
    assert "  balance: ledger 15000 cents = daily revenue 15000 cents: balanced" in first
    assert not any("no-op" in line for line in first)

    again = _build(pipeline, tmp_path / "again")
    assert again[0].startswith("run summary: run 2 (build")
    assert "  deliveries: 0 new accepted, 0 rejected, 1 unchanged (already seen); 0 rejected in all" in again
    assert "  ledger: 0 postings (0 reversals), net 0 cents" in again
    assert "  balance: ledger 15000 cents = daily revenue 15000 cents: balanced" in again
    assert again[-1] == "  nothing new: no-op (no business table changed)"

    pipeline.land("2026-11-02_001_broken.csv", raw="foo,bar\n1,2\n")  # no header: rejected whole
    pipeline.land(
        "2026-11-02_002_main.csv",
        [
            event("C", 700, event_time="2026-11-02T10:00:00Z", ingested_at="2026-11-02T11:00:00Z"),
            event("X", "12.5", event_time="2026-11-02T10:00:00Z", ingested_at="2026-11-02T11:00:00Z"),
            event("Y", -1, event_time="2026-11-02T10:00:00Z", ingested_at="2026-11-02T11:00:00Z"),
        ],
    )
    bad = _build(pipeline, tmp_path / "bad")
    assert (
        "  deliveries: 1 new accepted, 1 rejected (missing_header 1), 1 unchanged (already seen); 1 rejected in all"
    ) in bad
    assert (
        "  rows: 3 staged from 1 file(s), 2 quarantined (invalid_amount 1, negative_amount 1), "
        "0 late rows applied by a correction; 1 late rows waiting; copies: 0 late copies written"
    ) in bad
    assert "  ledger: 1 postings (0 reversals), net +700 cents" in bad
    assert "  balance: ledger 15700 cents = daily revenue 15700 cents: balanced" in bad
    assert not any("no-op" in line for line in bad)

    corrected = _build(
        pipeline, tmp_path / "corrected", vars={"correct_from": "2026-10-01", "correct_to": "2026-10-31"}
    )
    assert (
        "  rows: 0 staged from 0 file(s), 0 quarantined, 1 late rows applied by a correction; "
        "0 late rows waiting; copies: 0 late copies written"
    ) in corrected
    assert "  correction recorded: 1 (1 in all)" in corrected
    assert "  ledger: 1 postings (0 reversals), net +300 cents" in corrected
    assert "  balance: ledger 16000 cents = daily revenue 16000 cents: balanced" in corrected
    assert not any("no-op" in line for line in corrected)

    # the same correction again: recorded already, nothing applied twice (a figure of THIS run)
    repeated = _build(pipeline, tmp_path / "repeated", vars={"correct_from": "2026-10-01", "correct_to": "2026-10-31"})
    assert (
        "  rows: 0 staged from 0 file(s), 0 quarantined, 0 late rows applied by a correction; "
        "0 late rows waiting; copies: 0 late copies written"
    ) in repeated
    assert repeated[-1] == "  nothing new: no-op (no business table changed)"


def test_a_failed_run_says_what_committed_and_what_failed(pipeline: Pipeline, tmp_path: Path) -> None:
    pipeline.land("2026-11-01_001_main.csv", [event("A", 10000)])
    log_dir = tmp_path / "failed"
    result = pipeline.dbt(
        "build",
        "--log-path",
        str(log_dir),
        "--log-format-file",
        "json",
        vars={"rerun_safe_fail_model": "fct_revenue_ledger"},
    )
    assert not result.success
    lines = _summary(log_dir)
    assert lines[0].endswith("): failed")
    assert "  failed: fct_revenue_ledger (models listed below committed; the others wrote nothing)" in lines
    assert "  deliveries: 1 new accepted, 0 rejected, 0 unchanged (already seen); 0 rejected in all" in lines
    assert "  balance: not checked (fct_revenue_ledger and fct_daily_revenue did not both commit in this run)" in lines
    assert not any(line.startswith("  ledger:") or "no-op" in line for line in lines)


def test_a_command_that_writes_nothing_prints_no_summary(pipeline: Pipeline, tmp_path: Path) -> None:
    pipeline.land("2026-11-01_001_main.csv", [event("A", 10000)])
    log_dir = tmp_path / "compile"
    pipeline.dbt("compile", "--log-path", str(log_dir), "--log-format-file", "json")
    messages = [json.loads(line)["info"].get("msg", "") for line in (log_dir / "dbt.log").read_text().splitlines()]
    assert not any(message.startswith("run summary") for message in messages)
