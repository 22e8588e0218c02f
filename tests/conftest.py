from __future__ import annotations

from pathlib import Path

import pytest

from tests.pipeline.project import Pipeline

TESTS = Path(__file__).resolve().parent

# `make test` runs two workers with `--dist loadscope --no-loadscope-reorder`: a module runs
# whole on one worker (its module fixtures are built once), in the order collected. These
# modules take minutes each (CI's JUnit times), so they are collected first, longest first;
# the short ones then fill in, and the two workers finish within seconds of each other.
# Collected in the default order, the longest came last and one worker idled for minutes.
# Only an order: a module missing from this list still runs, after these.
LONGEST_FIRST = (
    "spark/test_spark_target.py",
    "spark/test_spark_kill.py",
    "postgres/test_concurrent_builds.py",
    "postgres/test_harness_on_postgres.py",
    "spark/test_harness_on_spark.py",
    "postgres/test_postgres_target.py",
    "test_harness_on_project.py",
    "test_bench.py",
    "spark/test_spark_partitions.py",
    "pipeline/test_late_data_and_recovery.py",
    "pipeline/test_crash_after_commit.py",
    "harness/test_classic_bugs.py",
    "pipeline/test_at_least_once.py",
)
for _name in LONGEST_FIRST:  # a renamed module must be renamed here too
    assert (TESTS / _name).is_file(), f"tests/conftest.py LONGEST_FIRST: no tests/{_name}"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {TESTS / name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path, len(rank)))  # stable: the rest keep their order


@pytest.fixture
def pipeline(tmp_path: Path) -> Pipeline:
    return Pipeline(tmp_path)
