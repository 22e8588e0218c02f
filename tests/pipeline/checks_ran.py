"""Every safety check the docs promise, found in dbt's own log of a build with its SQL.

A check that renders to nothing passes every test that only looks at outcomes: the landing
door's conservation check did, for months. So each check of docs/architecture.md and
docs/bad-input.md is named here with a fragment of its SQL and the node that must send it, and
`checks_sent` reads the statements dbt actually sent (its JSON log, `SQLQuery` events) from a
build. tests/pipeline/test_checks_ran.py asserts, on every engine, that every one of them is there.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Check:
    name: str
    node: str  # the node whose statements must hold it (a hook: rerun_safe-on-run-start, -end)
    sql: str  # a regex over the statement, whitespace folded to one space
    incremental_only: bool = False  # rendered only when the table already exists


MODELS = (
    "stg_landing__deliveries",
    "stg_landing__events",
    "int_corrections_recorded",
    "int_event_copies_classified",
    "fct_order_items",
    "fct_daily_revenue",
    "fct_revenue_ledger",
    "late_events",
    "quarantined_events",
)

CHECKS = (
    # the warehouse lease (docs/architecture.md, "Concurrency")
    Check(
        "lease taken in on-run-start",
        "rerun_safe-on-run-start",
        r"update \S*rerun_safe_lease\S* set holder_invocation_id = '[0-9a-f-]+'.* heartbeat_at <= ",
    ),
    *(Check(f"lease guard of {model}", model, r"does not hold the warehouse lease") for model in MODELS),
    Check(
        "lease released in on-run-end",
        "rerun_safe-on-run-end",
        r"update \S*rerun_safe_lease\S* set holder_invocation_id = cast\(null .* "
        r"where holder_invocation_id = '[0-9a-f-]+'",
    ),
    # the landing door (docs/bad-input.md)
    Check("records in a delivery = rows staged", "stg_landing__events", r"records but .* staged rows"),
    Check("no delivery listed twice", "stg_landing__events", r"a delivery file would be staged twice"),
    Check("a delivery changed while read is deferred", "stg_landing__events", r"reason = 'changed_while_read'"),
    Check(
        "rows of a deferred delivery removed",
        "stg_landing__events",
        r"delete from \S+ where _loaded_run_seq = (cast\()?\d+( as bigint\))? and _file_id in",
    ),
    Check(
        "no delivery of this run already staged",
        "stg_landing__events",
        r"and not exists \( select 1 from \S+ as staged where staged\._loaded_run_seq = (cast\()?\d+( as bigint\))? "
        r"and staged\._file_id = balanced\.file_id",
        incremental_only=True,
    ),
    # the balances (docs/architecture.md, "Balances")
    Check("valid staged rows = rows in copies", "int_event_copies_classified", r"valid staged rows != rows in copies"),
    Check(
        "items' net = current copies",
        "fct_order_items",
        r"fct_order_items net_cents != signed amounts of current copies",
    ),
    Check(
        "days' net = current copies",
        "fct_daily_revenue",
        r"fct_daily_revenue net_cents != signed amounts of current copies",
    ),
    Check("ledger = daily revenue", "fct_revenue_ledger", r"ledger balance != fct_daily_revenue net_cents"),
    # uniqueness and the landed-rows balance, as dbt data tests of every build
    Check("staged rows unique", "assert_staged_rows_are_unique", r"group by .*_row_id.* having count\(\*\) > 1"),
    Check("every landed row accounted for", "assert_every_landed_row_is_accounted_for", r"rows_in_copies"),
)


def statements(log: Path) -> list[tuple[str, str]]:
    """(node name, SQL with whitespace folded) of every statement in a dbt JSON log."""
    sent = []
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if record["info"]["name"] != "SQLQuery":
            continue
        node = (record["data"].get("node_info") or {}).get("node_name", "")
        sql = " ".join(record["data"]["sql"].split("*/", 1)[-1].split())
        sent.append((node, sql))
    return sent


def missing_checks(log: Path, *, incremental: bool, extra: tuple[Check, ...] = ()) -> list[str]:
    """The checks of CHECKS (+ `extra`) that no statement of the node that owns them holds."""
    sent = statements(log)
    assert len(sent) > 50, f"the log holds too few statements to judge: {len(sent)}"
    missing = []
    for check in CHECKS + extra:
        if check.incremental_only and not incremental:
            continue
        pattern = re.compile(check.sql)
        owned = [sql for node, sql in sent if node == check.node or node.startswith(check.node + "-")]
        if not any(pattern.search(sql) for sql in owned):
            missing.append(f"{check.name} ({check.node}: /{check.sql}/)")
    return missing


def two_logged_builds(pipeline, logs: Path) -> tuple[Path, Path]:
    """A first build (every table new) and an incremental one with a new version and a new
    event, each with dbt's JSON log of its own; returns the two log files."""
    from tests.pipeline.project import event

    pipeline.land("2026-11-01_001_main.csv", [event("A", 10000), event("B", 5000, order_item_id="i2")])
    pipeline.build("--log-path", str(logs / "first"), "--log-format-file", "json")
    pipeline.land(
        "2026-11-02_001_main.csv",
        [
            event("A", 9000, version=2, ingested_at="2026-11-02T11:00:00Z"),
            event("C", 700, event_time="2026-11-02T10:00:00Z", ingested_at="2026-11-02T11:00:00Z"),
        ],
    )
    pipeline.build("--log-path", str(logs / "second"), "--log-format-file", "json")
    assert pipeline.net_total() == 14700  # both builds did their work
    return logs / "first" / "dbt.log", logs / "second" / "dbt.log"
