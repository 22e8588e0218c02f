"""Where a check's builds live, one module per engine: its store (`duckdb.py`, `postgres.py`,
`spark.py`), the interface they implement (`base.py`) and lanes as scratch schemas, shared by
the server engines (`schema_store.py`)."""

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
