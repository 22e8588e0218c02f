from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.pipeline.project import Pipeline

TESTS = Path(__file__).resolve().parent

# `make test` runs two xdist workers with `--dist loadscope --no-loadscope-reorder` and the
# scheduler below: a module runs whole on one worker (its module fixtures are built once), and
# tests/spark runs whole on one worker, never beside itself. Two Spark modules at once (two
# JVMs, each wanting both cores, plus the kill test's child JVMs) took 1.7 times as long each:
# 394 -> 683 s and 389 -> 673 s in one CI run. Work goes out in collection order, so the long
# modules are collected first, Spark first, then longest first (CI's JUnit times), and the
# short ones fill in at the end; in the default order the longest came last. On two busy cores
# this moved CPU more than it saved (docs/architecture.md, CI time). Only an order: a module
# missing here still runs, after these.
LONGEST_FIRST = (
    "spark/cluster_lane/test_cluster_target.py",
    "spark/cluster_lane/test_cluster_kill.py",
    "spark/cluster_lane/test_cluster_concurrency.py",
    "spark/cluster_lane/test_cluster_partitions.py",
    "spark/cluster_lane/test_cluster.py",
    "spark/test_harness_on_spark.py",
    "spark/test_spark_target.py",  # the session lane (tests/spark/conftest.py): collected on demand
    "spark/test_spark_kill.py",
    "spark/test_spark_partitions.py",
    "faults/test_faults_postgres.py",
    "faults/test_faults_duckdb.py",
    "postgres/test_concurrent_builds.py",
    "postgres/test_harness_on_postgres.py",
    "test_harness_on_project.py",
    "pipeline/test_upgrade.py",  # DuckDB and Postgres (tests/pipeline/engines.py)
    "test_bench.py",
    "pipeline/test_late_data_and_recovery.py",
    "pipeline/test_at_least_once.py",
    "postgres/test_postgres_target.py",
    "pipeline/test_crash_after_commit.py",
    "harness/test_classic_bugs.py",
)
for _name in LONGEST_FIRST:  # a renamed module must be renamed here too
    assert (TESTS / _name).is_file(), f"tests/conftest.py LONGEST_FIRST: no tests/{_name}"
ONE_WORKER = ("tests/spark/",)  # node id prefixes whose tests all run on one worker, in turn


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {TESTS / name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path, len(rank)))  # stable: the rest keep their order


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """loadscope (one module, one worker) with every ONE_WORKER folder as a single unit."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModulesAndOneWorkerFolders(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            for prefix in ONE_WORKER:
                if nodeid.startswith(prefix):
                    return prefix
            return super()._split_scope(nodeid)

    return ModulesAndOneWorkerFolders(config, log)


@pytest.fixture
def pipeline(tmp_path: Path) -> Pipeline:
    return Pipeline(tmp_path)
