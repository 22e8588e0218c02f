"""The engines a shared pipeline scenario runs on, and the pipeline each one gets.

A scenario of tests/pipeline that every SQL engine must pass takes `engine_pipeline`
(tests/pipeline/conftest.py) instead of `pipeline`: it runs once per engine of ENGINES, the same
deliveries, dbt invocations and assertions, with the engine in its test id
(`...::test_x[duckdb]`, `...::test_x[postgres]`). What only one engine has (Postgres's indexes
and query plans, DuckDB's one-writer file) stays in that engine's own modules. Spark runs its own
scenarios (tests/spark/scenarios), each against DuckDB, in its two lanes.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import pytest

from tests.pipeline.project import Pipeline


class Engine(Enum):
    DUCKDB = "duckdb"
    POSTGRES = "postgres"


ENGINES = tuple(Engine)


def engine_params() -> list:
    """pytest params of every engine, the engine's name as the test id."""
    return [pytest.param(engine, id=engine.value) for engine in ENGINES]


def pipeline_on(engine: Engine, root: Path, request: pytest.FixtureRequest) -> Pipeline:
    """A fresh pipeline in `root` on `engine` (Postgres: a schema of its own on the worker's
    throw-away server, tests/postgres/conftest.py)."""
    if engine is Engine.DUCKDB:
        return Pipeline(root)
    from tests.postgres.project import PostgresPipeline

    return PostgresPipeline(root, request.getfixturevalue("postgres_server"))
