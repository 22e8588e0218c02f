"""The session lane's partition rewrite (`--target spark`): tests/spark/scenarios/partitions.py,
run on a SparkPipeline."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.spark.project import SparkPipeline
from tests.spark.scenarios import partitions

pytestmark = pytest.mark.spark


def test_moved_keys_leave_their_old_partition_and_untouched_days_are_not_rewritten(
    tmp_path: Path, spark_dir: Path
) -> None:
    partitions.moved_keys_leave_their_old_partition(tmp_path, SparkPipeline(tmp_path / "spark", spark_dir))
