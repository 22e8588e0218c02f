"""Drive this dbt project in-process against a private landing folder and warehouse.

Each test gets its own `Pipeline` (its own DuckDB file and landing folder under tmp_path),
so tests are independent and can run in parallel. Results are read from dbt's JSON
artifacts, as the style guide asks, and from the warehouse with a plain connection.
"""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import duckdb
from harness.dbt_invoke import run_dbt

PROJECT_DIR = Path(__file__).resolve().parents[2]
HEADER = [
    "event_id", "event_type", "company_id", "order_id", "order_item_id",
    "amount_cents", "currency", "event_time", "ingested_at", "version",
]
BUSINESS_TABLES = ("fct_order_items", "fct_daily_revenue")


@dataclass
class BuildResult:
    success: bool
    statuses: dict[str, str]  # unique_id -> status from run_results.json
    messages: dict[str, str]

    def status_of(self, model: str) -> str:
        for unique_id, status in self.statuses.items():
            if unique_id.split(".")[-1] == model and unique_id.startswith("model."):
                return status
        raise KeyError(f"{model} not in run_results: {sorted(self.statuses)}")


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
        "event_id": event_id, "event_type": event_type, "company_id": company_id,
        "order_id": order_id, "order_item_id": order_item_id,
        "amount_cents": str(amount_cents), "currency": currency, "event_time": event_time,
        "ingested_at": ingested_at, "version": str(version),
    }


class Pipeline:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.landing = root / "landing"
        self.landing.mkdir(parents=True, exist_ok=True)
        self.warehouse = root / "warehouse.duckdb"
        self.target_path = root / "target"
        self._mtime = 1_790_000_000  # deterministic, increasing file times
        self._seeded = False

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

    # --- dbt --------------------------------------------------------------------------
    def dbt(self, command: str, *args: str, vars: dict[str, Any] | None = None) -> BuildResult:
        """One dbt command through the harness's invoker (harness.dbt_invoke.run_dbt)."""
        all_vars = {"landing_path": str(self.landing), **(vars or {})}
        argv = [
            command, "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR),
            "--target-path", str(self.target_path), "--vars", json.dumps(all_vars), "--quiet",
            *args,
        ]
        result = run_dbt(argv, target_path=self.target_path, env=self.dbt_env())
        if not result.wrote_results:
            # dbt stopped before running anything (a compilation error while parsing)
            assert not result.success, f"dbt {command} wrote no run_results.json"
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
            c for (c,) in self.query(
                f"select column_name from information_schema.columns where table_name = '{name}' order by ordinal_position"
            ) if c not in exclude
        ]
        return sorted(self.query(f"select {', '.join(columns)} from {name}"), key=repr)

    def business_state(self) -> dict[str, list[tuple]]:
        return {name: self.table(name) for name in BUSINESS_TABLES}

    def net_total(self) -> int:
        return self.scalar("select coalesce(sum(net_cents), 0) from fct_daily_revenue")
