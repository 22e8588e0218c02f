"""The cluster lane's partition rewrite (`--target spark_thrift`): tests/spark/scenarios/partitions.py,
run on a ClusterPipeline (the executors write the partition folders this test lists)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.spark.project import ClusterPipeline
from tests.spark.scenarios import partitions

pytestmark = pytest.mark.spark


def test_moved_keys_leave_their_old_partition_and_untouched_days_are_not_rewritten(
    tmp_path: Path, spark_cluster
) -> None:
    spark = ClusterPipeline(tmp_path / "spark", spark_cluster)
    try:
        partitions.moved_keys_leave_their_old_partition(tmp_path, spark)
    finally:
        spark.close()
