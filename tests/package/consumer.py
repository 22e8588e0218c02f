"""Drive the consumer fixture project (tests/package/consumer): a dbt project that installs
this repository's macros as a package, the way a user does, and builds its own models."""

from __future__ import annotations

import csv
import json
import shutil
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import yaml

from harness.dbt_invoke import Invocation, run_dbt

REPO = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).resolve().parent / "consumer"
SEED_COLUMNS = ["order_id", "customer_id", "order_date", "amount_cents", "updated_at"]

# What the EL tool delivers, batch by batch (each batch is appended to the raw table).
BATCHES: list[list[tuple[str, str, str, int, str]]] = [
    [
        ("o1", "c1", "2026-11-01", 100, "2026-11-01 09:00:00"),
        ("o1", "c1", "2026-11-01", 100, "2026-11-01 09:00:00"),  # the loader sent it twice
        ("o2", "c2", "2026-11-01", 200, "2026-11-01 10:00:00"),
        ("o3", "c1", "2026-11-02", 300, "2026-11-02 08:00:00"),
    ],
    [
        ("o2", "c2", "2026-11-01", 250, "2026-11-03 10:00:00"),  # a new amount
        ("o3", "c1", "2026-11-03", 300, "2026-11-03 11:00:00"),  # moved: 2026-11-02 is left empty
        ("o4", "c3", "2026-11-03", 400, "2026-11-03 12:00:00"),
    ],
]


@dataclass
class Consumer:
    root: Path
    target: str = "duckdb"
    env: dict[str, str] = field(default_factory=dict)
    batches_loaded: int = 0

    @classmethod
    def create(
        cls,
        root: Path,
        *,
        target: str = "duckdb",
        env: dict[str, str] | None = None,
        package: dict[str, Any] | None = None,
        with_shim: bool = True,
    ) -> Consumer:
        """Copy the fixture to `root` and write its packages.yml (default: this checkout's
        macros/ as a local package)."""
        shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("target", "dbt_packages", "logs"))
        if not with_shim:
            (root / "macros" / "rerun_safe_strategies.sql").unlink()
        package = package or {"local": str(REPO / "macros")}
        (root / "packages.yml").write_text(yaml.safe_dump({"packages": [package]}))
        consumer = cls(root=root, target=target, env=dict(env or {}))
        consumer.env.setdefault("CONSUMER_DUCKDB_PATH", str(root / "warehouse.duckdb"))
        consumer.write_raw(0)
        return consumer

    # --- input ------------------------------------------------------------------------
    def write_raw(self, batches: int) -> None:
        """The raw table as the loader left it after `batches` batches (a seed file here)."""
        rows = [row for batch in BATCHES[:batches] for row in batch]
        (self.root / "seeds").mkdir(exist_ok=True)  # git keeps no empty folder: a fresh clone has none
        with open(self.root / "seeds" / "raw_order_events.csv", "w", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(SEED_COLUMNS)
            writer.writerows(rows)
        self.batches_loaded = batches

    def load_next_batch(self) -> None:
        self.write_raw(self.batches_loaded + 1)
        self.dbt("seed")

    # --- dbt --------------------------------------------------------------------------
    def dbt(self, command: str, *args: str, expect_success: bool = True) -> Invocation:
        """One dbt command through the harness's invoker."""
        target_path = self.root / "target"
        argv = [
            command,
            "--project-dir",
            str(self.root),
            "--profiles-dir",
            str(self.root),
            "--target",
            self.target,
            "--quiet",
            *args,
        ]
        if command != "deps":  # deps takes no --target-path
            argv += ["--target-path", str(target_path)]
        outcome = run_dbt(argv, target_path=target_path, env=self.env)
        if expect_success:
            problems = {
                n.unique_id: (n.status, n.message[:400]) for n in outcome.nodes if n.status not in ("success", "pass")
            }
            assert outcome.success and not problems, f"dbt {command} failed: {problems or outcome.error}"
        return outcome

    def manifest(self) -> dict[str, Any]:
        return json.loads((self.root / "target" / "manifest.json").read_text())

    # --- warehouse --------------------------------------------------------------------
    def query(self, sql: str) -> list[tuple]:
        if self.target == "duckdb":
            connection = duckdb.connect(self.env["CONSUMER_DUCKDB_PATH"])
            try:
                return connection.sql(sql).fetchall()
            finally:
                connection.close()
        import psycopg2  # comes with dbt-postgres

        server = psycopg2.connect(
            host=self.env["RERUN_SAFE_PG_HOST"],
            port=int(self.env["RERUN_SAFE_PG_PORT"]),
            user=self.env["RERUN_SAFE_PG_USER"],
            dbname=self.env["RERUN_SAFE_PG_DBNAME"],
            options=f"-c search_path={self.env['RERUN_SAFE_PG_SCHEMA']}",
        )
        try:
            with server.cursor() as cursor:
                cursor.execute(sql)
                return cursor.fetchall()
        finally:
            server.close()

    def table(self, name: str, order_by: str) -> list[tuple]:
        return [tuple(str(v) for v in row) for row in self.query(f"select * from {name} order by {order_by}")]


def postgres_env(server: Any) -> dict[str, str]:
    """The consumer profile's Postgres settings for the throw-away server, in a fresh schema."""
    return {
        "RERUN_SAFE_PG_HOST": server.host,
        "RERUN_SAFE_PG_PORT": str(server.port),
        "RERUN_SAFE_PG_USER": server.user,
        "RERUN_SAFE_PG_DBNAME": server.dbname,
        "RERUN_SAFE_PG_SCHEMA": "c_" + uuid.uuid4().hex[:12],
    }


def expected_orders(batches: int) -> dict[str, tuple[str, str, int]]:
    """order_id -> (customer, day, amount) of the latest version, computed in Python."""
    latest: dict[str, tuple] = {}
    for row in (r for batch in BATCHES[:batches] for r in batch):
        if row[0] not in latest or row[4] > latest[row[0]][4]:
            latest[row[0]] = row
    return {order: (r[1], r[2], r[3]) for order, r in latest.items()}


def expected_daily_sales(batches: int) -> list[tuple[str, str, str]]:
    days: dict[str, list[int]] = defaultdict(list)
    for _customer, day, amount in expected_orders(batches).values():
        days[day].append(amount)
    return [(day, str(len(amounts)), str(sum(amounts))) for day, amounts in sorted(days.items())]
