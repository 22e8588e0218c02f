"""The warehouses the harness runs on, one module per engine: its SQL dialect and its store.

- `base.py`: what every engine implements (`Sql`, `Store`) and the types the checks see
  (`Relation`, `Snapshot`), with identifier quoting;
- `schema_store.py`: lanes as scratch schemas, shared by the server engines;
- `duckdb.py`: scratch files, and snapshots of a DuckDB warehouse file;
- `postgres.py`: scratch schemas on a PostgreSQL server;
- `spark.py`: scratch databases of the Spark session dbt-spark runs in this process.
"""

from __future__ import annotations

from typing import Any

from harness.engines.base import Store


def open_store(scratch: Any, token: str) -> Store:
    """The store of the harness's scratch profile (harness.target.ScratchProfile)."""
    if scratch.adapter == "postgres":
        from harness.engines.postgres import PostgresStore

        return PostgresStore(scratch.settings, token, logical_schema=scratch.user_schema)
    if scratch.adapter == "spark":
        from harness.engines.spark import SparkStore

        return SparkStore(scratch.settings, token, logical_schema=scratch.user_schema)
    from harness.engines.duckdb import DuckDBStore

    return DuckDBStore()
