"""Land the whole file catalogue in one hostile folder, build once, and judge each case.

Shared by the DuckDB and Postgres tests: `land_catalogue` writes the files, `FileVerdicts`
reads what the warehouse made of them (through the pipeline's own query method) and
`check_file_case` asserts one case's outcome and the conservation of its rows.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tests.bad_input.catalogue import FILE_CASES, HEADER, FileCase, Outcome, csv_text, row
from tests.pipeline.project import Pipeline

CONTRACT_TABLES = (
    "stg_landing__deliveries",
    "stg_landing__events",
    "int_event_copies_classified",
    "fct_order_items",
    "fct_daily_revenue",
    "fct_revenue_ledger",
    "late_events",
    "quarantined_events",
)


def land_catalogue(folder: Path, outside: Path, cases: list[FileCase] = FILE_CASES) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    for case in cases:
        path = folder / case.name
        if case.symlink_to_outside:
            # a valid delivery outside the landing folder: its rows must never load through the link
            outside.write_text(csv_text([row("outside1")]), encoding="utf-8")
            outside.chmod(0o644)
            os.symlink(outside, path)
            continue
        path.write_bytes(case.content)
        path.chmod(0o644)


@dataclass
class FileVerdicts:
    deliveries: dict[str, tuple]  # file_name -> (status, reason, first_error, records)
    staged: dict[str, int]  # source_file -> staged rows
    staged_invalid: dict[str, int]  # source_file -> staged rows with a reason
    quarantined: dict[str, str]  # event_id -> reason
    quarantined_by_file: dict[str, int]  # source_file -> quarantined rows
    items: dict[str, tuple]  # order_item_id -> (company_id, net_cents)
    days: set[tuple]  # (company_id, revenue_date, net_cents)
    event_ids: set[str]  # every event_id staged
    tables: set[str]

    @classmethod
    def read(cls, pipeline: Pipeline) -> FileVerdicts:
        q = pipeline.query
        return cls(
            deliveries={
                r[0]: r[1:]
                for r in q("select file_name, status, reason, first_error, records from stg_landing__deliveries")
            },
            staged=dict(q("select source_file, count(*) from stg_landing__events group by 1")),
            staged_invalid=dict(
                q("select source_file, count(*) from stg_landing__events where invalid_reason is not null group by 1")
            ),
            quarantined=dict(q("select event_id, reason from quarantined_events")),
            quarantined_by_file=dict(q("select source_file, count(*) from quarantined_events group by 1")),
            items={r[0]: r[1:] for r in q("select order_item_id, company_id, net_cents from fct_order_items")},
            days={
                (r[0], str(r[1]), int(r[2]))
                for r in q("select company_id, revenue_date, sum(net_cents) from fct_daily_revenue group by 1, 2")
            },
            event_ids={r[0] for r in q("select event_id from stg_landing__events where event_id is not null")},
            tables={r[0] for r in q("select table_name from information_schema.tables")},
        )


def case_event_ids(case: FileCase) -> set[str]:
    """The event ids written in a case's file (the first field of each data line)."""
    text = case.content.decode("utf-8", errors="replace")
    ids = set()
    for line in text.splitlines()[1:]:
        first = line.split(",", 1)[0].strip().strip('"')
        if first and first not in HEADER:
            ids.add(first)
    return ids


def check_file_case(case: FileCase, seen: FileVerdicts) -> None:
    """One case's outcome, and its rows conserved: all staged, or the file recorded as rejected."""
    name = case.recorded_as or case.name
    assert set(CONTRACT_TABLES) <= seen.tables, f"a table is missing: {set(CONTRACT_TABLES) - seen.tables}"
    assert not any(t.startswith("pwned") for t in seen.tables)
    if case.outcome is Outcome.IGNORED:
        assert name not in seen.deliveries
        assert seen.staged.get(name, 0) == 0
        assert not (case_event_ids(case) & seen.event_ids)
        return
    assert name in seen.deliveries, f"{name!r} is not recorded as a delivery: {sorted(seen.deliveries)}"
    status, reason, first_error, records = seen.deliveries[name]
    if case.outcome is Outcome.REJECTED:
        assert (status, reason) == ("rejected", case.reason), (status, reason, first_error)
        assert first_error, "a rejected delivery says why"
        assert seen.staged.get(name, 0) == 0, "nothing of a rejected delivery is staged"
        assert not (case_event_ids(case) & seen.event_ids)
        assert "outside1" not in seen.event_ids, "a symlink was followed"
        return
    assert (status, reason) == ("accepted", None), (status, reason, first_error)
    assert records == case.records
    # conservation: every record is staged once; the invalid ones, and only they, are quarantined
    assert seen.staged.get(name, 0) == case.records
    assert seen.staged_invalid.get(name, 0) == len(case.quarantined)
    assert seen.quarantined_by_file.get(name, 0) == len(case.quarantined)
    for event_id, expected in case.quarantined.items():
        assert seen.quarantined.get(event_id) == expected, (event_id, seen.quarantined.get(event_id))
    for event_id, (company, day, net) in case.published.items():
        assert seen.items.get("i-" + event_id) == (company, net)
        assert any(d[0] == company and d[1] == day and d[2] >= net for d in seen.days)


def check_sql_in_var(pipeline: Pipeline, name: str) -> None:
    """Build with var `name` set to a statement that would create a table: the run is refused
    with the var named, or (the test-only fault var, compared with model names in Jinja only)
    succeeds. The caller then checks that no such table exists."""
    pipeline.land("2026-11-01_a.csv", raw=csv_text([row("v1")]))
    payload = f"x'); create table pwned_{name} as select 1; --"
    extra = {"correct_to": "2026-11-02"} if name == "correct_from" else {}
    extra = {"correct_from": "2026-11-01"} if name == "correct_to" else extra
    result = pipeline.dbt("build", vars={name: payload, **extra})
    message = " ".join(result.messages.values())
    if name == "rerun_safe_fail_model":
        assert result.success, message
    else:
        assert not result.success and f"var {name}" in message, message
