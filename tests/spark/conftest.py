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
from collections.abc import Iterator
from pathlib import Path

import pytest

# Two lanes run the same Spark scenarios (the engine comparison, the partition rewrite, the kill
# and its repair):
# - the cluster lane (tests/spark/cluster_lane, `--target spark_thrift` on a standalone cluster
#   behind the Thrift server, as teams run Spark) runs in `make test`;
# - the session lane (the three modules below, `--target spark`, Spark inside the dbt process)
#   runs only with RERUN_SAFE_SPARK_SESSION_LANE=1 (`make pytest-spark-session`): both lanes
#   together would cost CI about 8 more minutes, and the session target is still built in
#   `make test` by test_harness_on_spark.py (the harness drives Spark's session method only).
SESSION_LANE = ["test_spark_target.py", "test_spark_kill.py", "test_spark_partitions.py"]
_LANE = os.environ.get("RERUN_SAFE_SPARK_SESSION_LANE", "0")
if _LANE not in ("0", "1"):
    raise pytest.UsageError(f"RERUN_SAFE_SPARK_SESSION_LANE must be 0 or 1, got {_LANE[:40]!r}")
collect_ignore = [] if _LANE == "1" else SESSION_LANE


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
        except Exception:  # the process is ending; the folder goes anyway
            pass
        shutil.rmtree(root, ignore_errors=True)
