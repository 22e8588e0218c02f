"""The cluster lane: the models on a standalone Spark cluster behind the Thrift server (part of
`make pytest`; alone with `make pytest-spark-cluster`; tests/spark/conftest.py).

`spark_cluster` (one per run of this folder; all of tests/spark runs on one worker,
tests/conftest.py) starts tests/spark/cluster.py's cluster under
target/spark-cluster/pytest-<pid> (a master, two workers with one executor each, the Thrift
server as the driver; 127.0.0.1 only, free ports) and stops every one of its process groups in
its teardown, whatever the tests did. dbt runs in the test process with `--target spark_thrift`
(profiles.yml), a client of the server: no JVM in the test process.

Without pyspark, dbt-spark's PyHive extra or Java the tests are skipped with a loud reason, or
fail when CI is set: `make setup-spark` installs them (requirements-spark.txt; Java with
apt-get if missing).
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.spark.cluster import Cluster

REPO = Path(__file__).resolve().parents[3]


def _missing() -> str | None:
    for module, what in (
        ("pyspark", "pyspark"),
        ("dbt.adapters.spark", "dbt-spark"),
        ("pyhive", "PyHive (dbt-spark[PyHive])"),
        ("thrift_sasl", "thrift-sasl"),
    ):
        if importlib.util.find_spec(module) is None:
            return f"{what} is not installed"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no Java runtime (`java` not on PATH, JAVA_HOME unset)"
    return None


def require_spark() -> None:
    missing = _missing()
    if missing:
        message = f"{missing}: the Spark target is NOT tested. Install it with `make setup-spark`."
        if os.environ.get("CI"):
            pytest.fail(message + " CI must run `make setup-spark` (.ci/run).", pytrace=False)
        pytest.skip("SKIPPED LOUDLY: " + message)


@pytest.fixture(scope="package")
def spark_cluster(request: pytest.FixtureRequest) -> Iterator[Cluster]:
    """The cluster, stopped after the last test of this folder (its JVMs would otherwise idle
    beside the rest of the worker's tests); its folder (logs, warehouse, metastore) is kept
    when a test failed."""
    require_spark()
    from tests.spark.cluster import Cluster

    root = REPO / "target" / "spark-cluster" / f"pytest-{os.getpid()}"
    shutil.rmtree(root, ignore_errors=True)
    cluster = Cluster(root)
    atexit.register(cluster.stop)  # a worker that dies before the teardown
    try:
        cluster.start()
        print(f"\nSpark cluster started in {cluster.started_seconds:.1f} s ({root})")
        (root / "started_seconds").write_text(f"{cluster.started_seconds:.1f}\n")
        yield cluster
    finally:
        cluster.stop()
        atexit.unregister(cluster.stop)
        if not request.session.testsfailed:
            shutil.rmtree(root, ignore_errors=True)
