"""The audit macros and the run-operations on one built warehouse (three builds for the module):
a `sum` metric over no rows is logged as 0 (macros/audit/log_model_run.sql), the run summary's
`failed:` line names a failing data test (macros/audit/run_summary.sql), release_warehouse_lease
refuses a malformed invocation id, and an upgrade of a warehouse already at this code's version
leaves it untouched (macros/upgrade/rerun_safe_upgrade.sql)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.pipeline.project import Pipeline, event

CODE_VERSION = 1  # macros/upgrade/code_schema_version.sql
FAILING_TEST = "not_null_fct_order_items_event_count"


@dataclass
class Built:
    pipeline: Pipeline
    replay_seq: int  # a build that posted nothing
    failed_summary: list[str]  # the run summary of a build whose data test failed


def _logged(log_dir: Path) -> list[str]:
    """What the macros logged (dbt's JinjaLogInfo events), from dbt's JSON log file."""
    return [
        record["info"]["msg"]
        for record in map(json.loads, (log_dir / "dbt.log").read_text().splitlines())
        if record["info"]["name"] == "JinjaLogInfo"
    ]


def _summary(log_dir: Path) -> list[str]:
    """The lines run_summary printed."""
    messages = _logged(log_dir)
    starts = [n for n, message in enumerate(messages) if message.startswith("run summary: ")]
    assert len(starts) == 1, messages
    return messages[starts[0] :]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("audit")
    pipeline = Pipeline(root)
    pipeline.land("2026-11-01_001_main.csv", [event("A", 10000), event("B", 500, order_item_id="i2")])
    pipeline.build()
    pipeline.build()  # nothing new: the ledger posts nothing
    replay_seq = pipeline.scalar("select max(run_seq) from rerun_safe_runs")
    pipeline.query("update fct_order_items set event_count = null")  # every model succeeds, a data test fails
    log_dir = root / "failed_test_log"
    result = pipeline.dbt("build", "--log-path", str(log_dir), "--log-format-file", "json")
    assert not result.success
    assert {v for k, v in result.statuses.items() if k.startswith("model.")} == {"success"}
    return Built(pipeline, replay_seq, _summary(log_dir))


def _operation(pipeline: Pipeline, capsys: pytest.CaptureFixture[str], log_dir: Path, *args: str) -> tuple[bool, str]:
    """A run-operation: whether it succeeded, and its error (printed) with what it logged."""
    capsys.readouterr()
    result = pipeline.dbt("run-operation", *args, "--log-path", str(log_dir), "--log-format-file", "json")
    return result.success, capsys.readouterr().out + "\n".join(_logged(log_dir))


def _every_table(pipeline: Pipeline) -> dict[str, list[tuple]]:
    names = [
        name
        for (name,) in pipeline.query(
            "select table_name from information_schema.tables where table_schema = current_schema()"
            " and table_type = 'BASE TABLE'"
        )
    ]
    return {name: pipeline.table(name) for name in sorted(names)}


def test_a_sum_metric_over_no_rows_is_logged_as_zero(built: Built) -> None:
    """A build that posts nothing logs the ledger's posted_cents (a sum over no postings) as 0, not null."""
    (metrics,) = built.pipeline.query(
        f"select metrics from rerun_safe_run_log where model = 'fct_revenue_ledger' and run_seq = {built.replay_seq}"
    )[0]
    figures = json.loads(metrics)
    assert figures["postings"] == 0
    assert figures["posted_cents"] == 0, figures
    assert figures["balance_cents"] == 10500


def test_the_run_summary_names_a_failing_data_test(built: Built) -> None:
    """Every model succeeded but not_null on fct_order_items.event_count failed: the summary's failed line names it."""
    assert built.failed_summary[0].endswith("): failed"), built.failed_summary
    failed = [line for line in built.failed_summary if line.startswith("  failed: ")]
    assert len(failed) == 1 and FAILING_TEST in failed[0], built.failed_summary


@pytest.mark.parametrize(
    "malformed",
    ["not an id", "0000'; delete from rerun_safe_lease; --", "a" * 65],
    ids=["words", "quote", "too_long"],
)
def test_release_warehouse_lease_refuses_a_malformed_invocation_id(
    built: Built, capsys: pytest.CaptureFixture[str], tmp_path: Path, malformed: str
) -> None:
    """A value that is no dbt invocation id fails, naming the argument; it never answers "nothing released"."""
    args = "{invocation_id: " + json.dumps(malformed) + "}"
    ok, output = _operation(built.pipeline, capsys, tmp_path, "release_warehouse_lease", "--args", args)
    assert not ok, output
    assert "invocation_id must be a dbt invocation id" in output, output
    assert "nothing released" not in output


def test_release_warehouse_lease_of_a_non_holder_releases_nothing(
    built: Built, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The contrast: a well-formed id that holds nothing succeeds and says nothing was released."""
    ok, output = _operation(
        built.pipeline, capsys, tmp_path, "release_warehouse_lease", "--args", "{invocation_id: 0000abcd-0000}"
    )
    assert ok and "does not hold the lease" in output and "nothing released" in output, output


def test_an_upgrade_of_a_current_warehouse_leaves_it_untouched(
    built: Built, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Upgrading a warehouse at this code's version: success, says so, every table as it was (one version row)."""
    before = _every_table(built.pipeline)
    assert [row[:2] for row in before["rerun_safe_schema_version"]] == [(CODE_VERSION, None)]
    ok, output = _operation(built.pipeline, capsys, tmp_path, "rerun_safe_upgrade")
    assert ok, output
    assert f"the warehouse is at schema version {CODE_VERSION} already: nothing to upgrade" in output, output
    assert "upgraded the warehouse" not in output
    assert _every_table(built.pipeline) == before


def test_each_run_keeps_its_own_status(built: Built) -> None:
    """on-run-end sets the status of its own run only: two successful builds, then the failed one."""
    statuses = built.pipeline.query("select status from rerun_safe_runs order by run_seq")
    assert [status for (status,) in statuses] == ["success", "success", "failed"]
