"""The session lane's engine comparison (`--target spark`: Spark inside the dbt process):
tests/spark/scenarios/engine_equality.py, run on a SparkPipeline."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.spark.project import SparkPipeline
from tests.spark.scenarios import engine_equality

pytestmark = pytest.mark.spark


@pytest.fixture
def spark(tmp_path: Path, spark_dir: Path) -> SparkPipeline:
    return SparkPipeline(tmp_path / "spark", spark_dir)


def test_generated_deliveries_build_identically_on_duckdb_and_spark(tmp_path: Path, spark: SparkPipeline) -> None:
    engine_equality.generated_deliveries_build_identically(tmp_path, spark)
    spark.unit_tests()  # once on Spark: builds leave them out (tests/pipeline/test_unit_tests.py)


def test_malformed_rows_and_odd_files_stage_as_on_duckdb(tmp_path: Path, spark: SparkPipeline) -> None:
    engine_equality.malformed_rows_and_odd_files_stage_as_on_duckdb(tmp_path, spark)


def test_a_failure_after_the_write_is_caught_and_repaired(tmp_path: Path, spark: SparkPipeline) -> None:
    engine_equality.a_failure_after_the_write_is_caught_and_repaired(tmp_path, spark)
