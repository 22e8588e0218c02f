"""What an incremental run pays before it touches data: the statements dbt sends for it.

At 1M events these fixed costs were a quarter of the incremental run
(docs/decisions/2026-12-07-bench-incremental-cost.md): the run's sequence number was looked up
again each time a model or hook rendered a run stamp (39 times a run, about 13 ms each), and
hooks with nothing to do sent `select 1`.
Both are properties of the macros that no result shows, so they are counted here, from dbt's
own JSON log."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.pipeline.project import Pipeline, event


def _statements(log: Path) -> list[str]:
    sqls = []
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if record["info"]["name"] == "SQLQuery":
            sqls.append(" ".join(record["data"]["sql"].split("*/", 1)[-1].split()))
    return sqls


def test_an_incremental_run_looks_up_its_run_once_and_sends_no_empty_hook(pipeline: Pipeline, tmp_path: Path) -> None:
    pipeline.land("2026-11-01_001_main.csv", [event("A", 10000), event("B", 5000, order_item_id="i2")])
    pipeline.run()
    pipeline.land(
        "2026-11-02_001_main.csv",
        [event("C", 700, event_time="2026-11-02T10:00:00Z", ingested_at="2026-11-02T11:00:00Z")],
    )
    logs = tmp_path / "logs"
    pipeline.run("--log-path", str(logs), "--log-format-file", "json")
    assert pipeline.net_total() == 15700  # the run did its work

    sqls = _statements(logs / "dbt.log")
    models = sum(1 for sql in sqls if sql.startswith("create temporary table"))
    assert models >= 6, f"the run built too few models for this count to mean anything: {models}"
    lookups = [sql for sql in sqls if re.match(r"select run_seq from \S*rerun_safe_runs\S* where invocation_id", sql)]
    assert len(lookups) == 1, f"the run's sequence number was looked up {len(lookups)} times"
    no_ops = [sql for sql in sqls if re.fullmatch(r"select 1 as \w+", sql)]
    assert not no_ops, f"hooks sent statements with nothing to do: {no_ops}"
