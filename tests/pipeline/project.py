"""Drive this dbt project in-process against a private landing folder and warehouse.

Each test gets its own `Pipeline` (its own DuckDB file and landing folder under tmp_path),
so tests are independent and can run in parallel. Results are read from dbt's JSON
artifacts, as the style guide asks, and from the warehouse with a plain connection.

Parsing once per process: dbt re-parses the whole project (2-3 s in-process) for a new target
folder and whenever `--vars` or the profile's connection (the warehouse path) change, which
made a full parse of about one dbt call in two here. So a DuckDB pipeline runs dbt from its own
folder with the same relative names everywhere (`landing_path: landing`, the warehouse
`warehouse.duckdb`), and its target folder starts from the last parse this process saved for
the same vars (`_shared_parse`). dbt still checks that parse against the project files, vars,
profile and target (its partial-parsing state check) and parses again if anything differs.
Subclasses on a server or on Spark keep absolute paths (`shares_parse = False`).
"""

from __future__ import annotations

import atexit
import contextlib
import csv
import functools
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import duckdb

from harness.dbt_invoke import run_dbt

PROJECT_DIR = Path(__file__).resolve().parents[2]
HEADER = [
    "event_id",
    "event_type",
    "company_id",
    "order_id",
    "order_item_id",
    "amount_cents",
    "currency",
    "event_time",
    "ingested_at",
    "version",
]
BUSINESS_TABLES = ("fct_order_items", "fct_daily_revenue")


# The contract's columns of the published tables, as every engine must give them (Spark adds a
# partition column to two tables, and item_key / event_key are the engine's type: not compared).
ENGINE_ITEMS = (
    "select company_id, order_item_id, order_id, currency, first_event_time, last_event_time, gross_cents,"
    " refunded_cents, net_cents, event_count from fct_order_items"
)
ENGINE_DAYS = (
    "select company_id, revenue_date, currency, gross_cents, refunded_cents, net_cents, event_count"
    " from fct_daily_revenue"
)


class Queryable(Protocol):
    """Anything that answers SQL with rows: a pipeline, or Spark's tables read in a child process."""

    def query(self, sql: str) -> list[tuple]: ...


def engine_state(pipeline: Queryable) -> dict[str, list[tuple]]:
    """The business tables, quarantine, late queue and ledger (posting ids included), sorted:
    what DuckDB, Postgres and Spark must build identically from the same deliveries."""
    return {
        "items": sorted(pipeline.query(ENGINE_ITEMS), key=repr),
        "days": sorted(pipeline.query(ENGINE_DAYS), key=repr),
        "quarantine": sorted(
            pipeline.query(
                "select quarantine_id, reason, reason_description, source_file, source_line, event_id, event_type,"
                " company_id, order_id, order_item_id, amount_cents, currency, event_time, ingested_at, version"
                " from quarantined_events"
            ),
            key=repr,
        ),
        "late": sorted(
            pipeline.query("select late_event_id, status, lateness_seconds, applied_by_correction_id from late_events"),
            key=repr,
        ),
        "ledger": sorted(
            pipeline.query(
                "select posting_id, posting_type, reverses_posting_id, event_id, company_id, revenue_date, currency,"
                " amount_cents from fct_revenue_ledger"
            ),
            key=repr,
        ),
    }


@dataclass
class BuildResult:
    success: bool
    statuses: dict[str, str]  # unique_id -> status, as run_results.json gives it
    messages: dict[str, str]

    def status_of(self, model: str) -> str:
        for unique_id, status in self.statuses.items():
            if unique_id.split(".")[-1] == model and unique_id.startswith("model."):
                return status
        raise KeyError(f"{model} not in run_results: {sorted(self.statuses)}")


# The pathologies (pipeline_demo.generate's counts) that generated deliveries must all hold
# for a comparison across engines, or across racing builds, to cover every rule.
GENERATED_KINDS = (
    "redelivered_rows",
    "resent_rows",
    "new_versions_v2",
    "moves_item",
    "moves_day",
    "conflicting_copies",
    "rows_late_gt_72h",
    "malformed_rows",
)


def assert_every_kind(pathologies: dict[str, int]) -> None:
    missing = [kind for kind in GENERATED_KINDS if not pathologies.get(kind)]
    assert not missing, f"the generated deliveries have no {missing}: choose another seed ({pathologies})"


def deliveries_by_day(folder: Path) -> list[list[Path]]:
    """The CSV deliveries of `folder` (generated: named `YYYY-MM-DD_...`), grouped by day, in
    name order within and across days."""
    files = sorted(folder.glob("*.csv"))
    days = sorted({path.name[:10] for path in files})
    return [[path for path in files if path.name.startswith(day)] for day in days]


def event(
    event_id: str,
    amount_cents: int | str = 100,
    *,
    event_type: str = "sale",
    company_id: str = "co1",
    order_id: str = "o1",
    order_item_id: str = "i1",
    currency: str = "EUR",
    event_time: str = "2026-11-01T10:00:00Z",
    ingested_at: str = "2026-11-01T11:00:00Z",
    version: int | str = 1,
) -> dict[str, str]:
    """One input row in the contract's format, every value as text."""
    return {
        "event_id": event_id,
        "event_type": event_type,
        "company_id": company_id,
        "order_id": order_id,
        "order_item_id": order_item_id,
        "amount_cents": str(amount_cents),
        "currency": currency,
        "event_time": event_time,
        "ingested_at": ingested_at,
        "version": str(version),
    }


UNIT_TESTS = "test_type:unit"  # the selector of the project's dbt unit tests

_PARSES: dict[str, Path] = {}  # vars -> dbt's last saved parse with them, in this process


@functools.cache
def _parse_dir() -> Path:
    """This process's folder of saved parses, removed when it exits."""
    folder = Path(tempfile.mkdtemp(prefix="rerun_safe_parse_"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


@contextlib.contextmanager
def _shared_parse(pipeline: Pipeline, key: str) -> Iterator[None]:
    """Run dbt from the pipeline's folder, its target folder holding the last parse saved with
    the same vars (when it holds one with other vars, or none); save the parse it leaves."""
    parse = pipeline.target_path / "partial_parse.msgpack"
    if pipeline._parse_key != key and key in _PARSES:
        pipeline.target_path.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_PARSES[key], parse)
    before = os.getcwd()
    os.chdir(pipeline.root)
    try:
        yield
    finally:
        os.chdir(before)
        if parse.exists():
            saved = _PARSES.setdefault(key, _parse_dir() / f"{len(_PARSES)}.msgpack")
            shutil.copyfile(parse, saved)
            pipeline._parse_key = key


class Pipeline:
    # DuckDB: relative names from the pipeline's folder, so every pipeline shares dbt's parse
    shares_parse = True
    # a 0-byte delivery gets its row in stg_landing__deliveries (not on Spark: its file source
    # gives no row for an empty file, so there is no record to stage)
    records_empty_deliveries = True

    def __init__(self, root: Path) -> None:
        self.root = root
        self.landing = root / "landing"
        self.landing.mkdir(parents=True, exist_ok=True)
        self.warehouse = root / "warehouse.duckdb"
        self.target_path = root / "target"
        self._mtime = 1_790_000_000  # deterministic, increasing file times
        self._seeded = False
        self._parse_key: str | None = None

    # --- deliveries -------------------------------------------------------------------
    def deliver(self, *paths: Path) -> None:
        """Copy existing delivery files into the landing folder, times kept."""
        for path in paths:
            shutil.copy2(path, self.landing / path.name)

    def land(self, name: str, rows: Iterable[dict[str, str]] = (), *, raw: str | None = None) -> Path:
        """Write one delivery file. `raw` writes the exact text (for malformed CSV)."""
        path = self.landing / name
        if raw is None:
            buffer = io.StringIO()
            writer = csv.DictWriter(buffer, fieldnames=HEADER, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
            raw = buffer.getvalue()
        path.write_text(raw, encoding="utf-8")
        self._mtime += 60
        os.utime(path, (self._mtime, self._mtime))
        return path

    def copy(self, root: Path) -> Pipeline:
        """A new pipeline in `root` with this one's warehouse and landed files (times kept):
        scenarios that share their first days build them once."""
        assert type(self) is Pipeline, "a copy of a DuckDB pipeline only (the others keep state elsewhere)"
        twin = Pipeline(root)
        shutil.copytree(self.landing, twin.landing, dirs_exist_ok=True)
        shutil.copy2(self.warehouse, twin.warehouse)
        twin._mtime, twin._seeded = self._mtime, self._seeded
        return twin

    # --- dbt --------------------------------------------------------------------------
    def dbt(self, command: str, *args: str, vars: dict[str, Any] | None = None) -> BuildResult:
        """One dbt command through the harness's invoker (harness.dbt_invoke.run_dbt)."""
        shared = self.shares_parse
        landing = self.landing.relative_to(self.root) if shared else self.landing
        all_vars = {"landing_path": str(landing), **(vars or {})}
        argv = [
            command,
            "--project-dir",
            str(PROJECT_DIR),
            "--profiles-dir",
            str(PROJECT_DIR),
            "--target-path",
            str(self.target_path),
            "--vars",
            json.dumps(all_vars),
            "--quiet",
            *args,
        ]
        if command in ("build", "test") and UNIT_TESTS not in args:
            # the unit tests read fixtures, not the warehouse: each adapter runs them once
            # (unit_tests()), not in every build of every scenario
            assert "--exclude" not in args, "a second --exclude would not join this one: merge them"
            argv += ["--exclude", "resource_type:unit_test"]
        if "--log-path" not in args:
            # dbt's file log only where a test reads it (it passes --log-path): otherwise every
            # pipeline of every worker appended each statement to the repository's logs/dbt.log,
            # about 7 % of a DuckDB build (measured: 2.84 s against 2.64 s a build)
            argv += ["--log-level-file", "none"]
        env = self.dbt_env()
        if not shared:
            result = run_dbt(argv, target_path=self.target_path, env=env, write_json=False)
        else:
            env["DBT_DUCKDB_PATH"] = str(self.warehouse.relative_to(self.root))
            with _shared_parse(self, json.dumps(all_vars, sort_keys=True)):
                result = run_dbt(argv, target_path=self.target_path, env=env, write_json=False)
        if not result.wrote_results:
            # dbt stopped before running anything (a compilation error while parsing)
            assert not result.success, f"dbt {command} returned no results"
            return BuildResult(success=False, statuses={}, messages={"dbt": str(result.error)})
        if result.success and (command == "seed" or (command == "build" and not {"--select", "-s"} & set(args))):
            self._seeded = True
        statuses = {node.unique_id: node.status for node in result.nodes}
        messages = {node.unique_id: node.message for node in result.nodes}
        assert statuses, f"dbt {command} selected nothing"
        return BuildResult(success=result.success, statuses=statuses, messages=messages)

    def dbt_env(self) -> dict[str, str]:
        """The environment dbt runs with: the warehouse file for profiles.yml."""
        return {"DBT_DUCKDB_PATH": str(self.warehouse)}

    def unit_tests(self) -> BuildResult:
        """The project's dbt unit tests, which builds leave out (they read their fixtures,
        never the warehouse; dbt needs the tables they stand in for to exist: build first)."""
        result = self.dbt("test", "--select", UNIT_TESTS)
        units = {node: status for node, status in result.statuses.items() if node.startswith("unit_test.")}
        others = {node for node in result.statuses if node not in units}
        assert units and all(node.startswith("operation.") for node in others), result.statuses  # and hooks
        assert result.success and set(units.values()) == {"pass"}, result.messages
        return result

    def build(self, *args: str, vars: dict[str, Any] | None = None) -> BuildResult:
        result = self.dbt("build", *args, vars=vars)
        failed = {k: v for k, v in result.statuses.items() if v not in ("success", "pass")}
        problems = {k: result.messages.get(k, "")[:500] for k, v in failed.items() if v != "skipped"}
        assert result.success and not failed, f"build failed: {problems or failed}"
        return result

    def run(self, *args: str, vars: dict[str, Any] | None = None) -> BuildResult:
        """`dbt run` (models only). Staging joins seeds, so the first call loads them (`dbt
        seed`, one more invocation in rerun_safe_runs), as a scheduler's first deploy does."""
        if not self._seeded:
            self.dbt("seed", vars=vars)
        return self.dbt("run", *args, vars=vars)

    def run_ok(self, *args: str, vars: dict[str, Any] | None = None) -> BuildResult:
        """`dbt run` (no data tests: faster than build), asserting that every model succeeded."""
        result = self.run(*args, vars=vars)
        failed = {k: result.messages.get(k, "")[:500] for k, v in result.statuses.items() if v != "success"}
        assert result.success and not failed, f"run failed: {failed}"
        return result

    # --- warehouse --------------------------------------------------------------------
    def query(self, sql: str) -> list[tuple]:
        connection = duckdb.connect(str(self.warehouse))
        try:
            return connection.sql(sql).fetchall()
        finally:
            connection.close()

    def scalar(self, sql: str) -> Any:
        return self.query(sql)[0][0]

    def table(self, name: str, exclude: Sequence[str] = ()) -> list[tuple]:
        """Every row of a table, as a sorted list (a multiset: duplicates stay)."""
        columns = [
            c
            for (c,) in self.query(
                f"select column_name from information_schema.columns where table_name = '{name}' "
                "order by ordinal_position"
            )
            if c not in exclude
        ]
        return sorted(self.query(f"select {', '.join(columns)} from {name}"), key=repr)

    def business_state(self) -> dict[str, list[tuple]]:
        return {name: self.table(name) for name in BUSINESS_TABLES}

    def net_total(self) -> int:
        return self.scalar("select coalesce(sum(net_cents), 0) from fct_daily_revenue")
