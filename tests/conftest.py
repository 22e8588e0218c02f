from __future__ import annotations

from pathlib import Path

import pytest

from tests.pipeline.project import Pipeline

# The modules whose tests take minutes (CI's `--durations`), started before everything else.
# `make pytest` runs `-n 2 --maxschedchunk 1`: xdist then hands each worker one test at a time
# in this order, so the long tests spread over both workers and the hundreds of short ones
# even out the end; collected last (their place in the alphabet), one long test could keep a
# worker busy for minutes after the other had finished. Spark and non-Spark modules alternate,
# so the two workers' first long tests are not two Spark sessions competing for the cores.
SLOW_FIRST = (
    "tests/spark/test_spark_target.py",
    "tests/postgres/test_concurrent_builds.py",
    "tests/spark/test_spark_kill.py",
    "tests/postgres/test_harness_on_postgres.py",
    "tests/spark/test_harness_on_spark.py",
    "tests/test_harness_on_project.py",
    "tests/spark/test_spark_partitions.py",
    "tests/postgres/test_postgres_target.py",
    "tests/harness/test_classic_bugs.py",
    "tests/test_bench.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {module: place for place, module in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(SLOW_FIRST)))  # stable


@pytest.fixture
def pipeline(tmp_path: Path) -> Pipeline:
    return Pipeline(tmp_path)
