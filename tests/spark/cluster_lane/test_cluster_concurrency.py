"""Two builds through the Thrift server at once, on one warehouse (docs/engines.md,
"Concurrency through the Thrift server").

Behind a Thrift server the metastore is the server's, so two dbt processes can run on one
warehouse together (with the `spark` target the embedded Derby metastore admits one process,
and a second build fails to open it). The lease (rerun_safe_lease) is then what keeps them
apart. On Spark it cannot wait (no sleep in SQL), and it is a row rewritten by a partition
overwrite, not an atomic update: two runs that take it at the same moment can both read it
free and both write themselves; each then reads the holder back, and a run that does not read
itself is refused. A run that read itself but lost the rewrite fails at its first model's lease
guard, writing nothing. And a take that overlaps the other's rewrite can fail on the files that
rewrite replaced (a parquet file of the lease, the run registry or the run log, or a _temporary
folder), in on-run-start, before any model. So what it guarantees: of two builds at once, exactly
one writes models (the other is refused, collides on those files in on-run-start, or is stopped
by the guard of its first model), and the tables equal a clean build's.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline_demo.generate import GeneratorConfig, generate
from tests.pipeline.project import Pipeline, deliveries_by_day, engine_state
from tests.spark.children import DbtChild
from tests.spark.project import ClusterPipeline

pytestmark = pytest.mark.spark

REFUSED = "holds the warehouse"
GUARDED = "does not hold the warehouse lease"
# Two runs starting at the same moment rewrite the same parquet tables in on-run-start (the
# lease's partition, the run registry, the run log) with INSERT OVERWRITE, and parquet tables
# have no snapshot reads: the later may read a file the other just replaced, or find a table's
# _temporary folder gone with the other's commit. Then it fails in on-run-start, before any
# model (the test checks none wrote and no run is left started).
COLLIDED = re.compile(
    r"(FAILED_READ_FILE\.FILE_NOT_EXIST|FileNotFoundException)[^\n]*/rerun_safe_(lease|runs|run_log)/"
)


def test_two_builds_at_once_through_the_thrift_server(tmp_path: Path, spark_cluster) -> None:
    deliveries = tmp_path / "deliveries"
    generate(GeneratorConfig(days=2, events_per_day=20, seed=3), deliveries)
    days = deliveries_by_day(deliveries)
    duck = Pipeline(tmp_path / "duck")  # day by day, as the cluster's (the ledger records the history)
    for day in days:
        duck.deliver(*day)
        assert duck.run().success
    clean = engine_state(duck)

    spark = ClusterPipeline(tmp_path / "spark", spark_cluster)
    try:
        spark.deliver(*days[0])
        spark.run_ok()
        spark.deliver(*days[1])
        # a stale period longer than a build: a live holder is never taken over
        lease = {"rerun_safe_lease_stale_seconds": 1800, "rerun_safe_lock_timeout_seconds": 0}
        children = [DbtChild(spark, tmp_path / f"build{n}", "run", lease) for n in (1, 2)]
        codes = [child.wait(900) for child in children]
        outcomes = []
        for child, code in zip(children, codes, strict=True):
            results = child.results()
            text = child.tail(20000)
            wrote = sorted(node for node, (status, _m) in results.items()
                           if node.startswith("model.") and status == "success")
            if code == 0:
                outcomes.append(("success", wrote))
            elif REFUSED in text and not wrote:
                outcomes.append(("refused", wrote))
            elif GUARDED in text and not wrote:
                outcomes.append(("guarded", wrote))
            elif COLLIDED.search(text) and not wrote:
                outcomes.append(("collided", wrote))
            else:
                outcomes.append((f"failed {code}", wrote))
        report = "\n".join(f"build {n}: {o[0]}, models written {len(o[1])}\n{c.tail(1500)}"
                           for n, (o, c) in enumerate(zip(outcomes, children, strict=True), 1))
        kinds = sorted(kind for kind, _wrote in outcomes)
        assert kinds in (["refused", "success"], ["guarded", "success"], ["collided", "success"]), report
        got = engine_state(spark)
        for name in clean:
            assert got[name] == clean[name], f"{name} differs from a clean build after two builds at once\n{report}"
        statuses = sorted(status for (status,) in spark.query("select status from rerun_safe_runs"))
        assert statuses.count("started") == 0, statuses
        print("two builds at once:", ", ".join(kind for kind, _wrote in outcomes), statuses)
    finally:
        spark.close()
