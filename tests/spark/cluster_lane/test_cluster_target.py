"""The cluster lane's engine comparison (`--target spark_thrift`: a standalone cluster behind the
Thrift server, tests/spark/cluster_lane/conftest.py): tests/spark/scenarios/engine_equality.py,
run on a ClusterPipeline."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.spark.project import ClusterPipeline
from tests.spark.scenarios import engine_equality

pytestmark = pytest.mark.spark


@pytest.fixture
def spark(tmp_path: Path, spark_cluster) -> Iterator[ClusterPipeline]:
    pipeline = ClusterPipeline(tmp_path / "spark", spark_cluster)
    yield pipeline
    pipeline.close()


def test_generated_deliveries_build_identically_on_duckdb_and_spark(tmp_path: Path, spark: ClusterPipeline) -> None:
    engine_equality.generated_deliveries_build_identically(tmp_path, spark)
    spark.unit_tests()  # once on Spark: builds leave them out (tests/pipeline/test_unit_tests.py)


def test_malformed_rows_and_odd_files_stage_as_on_duckdb(tmp_path: Path, spark: ClusterPipeline) -> None:
    engine_equality.malformed_rows_and_odd_files_stage_as_on_duckdb(tmp_path, spark)
