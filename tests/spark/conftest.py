"""The Spark target for the tests in this folder (`--target spark`, profiles.yml).

dbt-spark's `method: session` runs Spark inside the test process (pyspark starts one local JVM,
about 15-20 s). The session lives as long as the pytest process (so at most one per test module,
and per xdist worker): its warehouse folder and Derby metastore are created once, in a
temporary folder, and every pipeline gets a schema of its own.

Without pyspark, dbt-spark or Java the tests are skipped with a loud reason, or fail when CI is
set: `make setup-spark` installs them (requirements-spark.txt; Java with apt-get if missing).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

import pytest


# The cluster lane (tests/spark/cluster_lane: the same scenarios on a standalone cluster behind
# the Thrift server, `--target spark_thrift`) runs with `make pytest-spark-cluster`, which sets
# RERUN_SAFE_SPARK_CLUSTER_LANE=1. It is not collected otherwise, so `make pytest` runs this
# folder's session lane only: the cluster lane has not yet run green twice in a row (docs/engines.md).
_LANE = os.environ.get("RERUN_SAFE_SPARK_CLUSTER_LANE", "0")
if _LANE not in ("0", "1"):
    raise pytest.UsageError(f"RERUN_SAFE_SPARK_CLUSTER_LANE must be 0 or 1, got {_LANE[:40]!r}")
collect_ignore = [] if _LANE == "1" else ["cluster_lane"]


def _missing() -> str | None:
    if importlib.util.find_spec("pyspark") is None or importlib.util.find_spec("dbt.adapters.spark") is None:
        return "pyspark / dbt-spark are not installed"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no Java runtime (`java` not on PATH, JAVA_HOME unset)"
    return None


@pytest.fixture(scope="session")
def spark_dir() -> Iterator[Path]:
    missing = _missing()
    if missing:
        message = f"{missing}: the Spark target is NOT tested. Install it with `make setup-spark`."
        if os.environ.get("CI"):
            pytest.fail(message + " CI must run `make setup-spark` (.ci/run).", pytrace=False)
        pytest.skip("SKIPPED LOUDLY: " + message)
    root = Path(tempfile.mkdtemp(prefix="rerun_safe_spark_"))
    os.environ["RERUN_SAFE_SPARK_DIR"] = str(root)
    try:
        yield root
    finally:
        try:
            from pyspark.sql import SparkSession

            active = SparkSession.getActiveSession()
            if active is not None:
                active.stop()
        except Exception:  # noqa: BLE001 - the process is ending; the folder goes anyway
            pass
        shutil.rmtree(root, ignore_errors=True)
