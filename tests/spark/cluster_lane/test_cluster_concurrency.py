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
folder), in on-run-start, before any model; Spark names that failure in more than one way (the
file error itself, or a stage failure that wraps it), so the test recognises a collision by where
the build stopped (a query error before any model started), not by its wording. So what it
guarantees: of two builds at once, exactly one writes models (the other is refused, collides in
on-run-start, or is stopped by the guard of its first model), and the tables equal a clean build's.
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
# model. Seen worded as FAILED_READ_FILE.FILE_NOT_EXIST or FileNotFoundException on those
# tables, and as STAGE_MATERIALIZATION_MULTIPLE_FAILURES ("Exception thrown in awaitResult", the
# cause not shown): so a collision is a query error with no model started, whatever its words.
QUERY_ERROR = "Error running query"
MODEL_STARTED = re.compile(r"\d+ of \d+ START sql [a-z_ ]*model ")


def outcome(code: int, text: str, results: dict[str, tuple[str, str]]) -> tuple[str, list[str]]:
    """What one of the two builds did: success, refused (on-run-start saw the other's lease),
    guarded (its first model's lease guard stopped it), collided (a query error in on-run-start,
    no model started) or failed <code> (anything else: the test fails)."""
    wrote = sorted(node for node, (status, _m) in results.items() if node.startswith("model.") and status == "success")
    if code == 0:
        return "success", wrote
    if wrote:
        return f"failed {code}", wrote
    if REFUSED in text:
        return "refused", wrote
    if GUARDED in text:
        return "guarded", wrote
    started = any(node.startswith("model.") for node in results) or MODEL_STARTED.search(text)
    if QUERY_ERROR in text and not started:
        return "collided", wrote
    return f"failed {code}", wrote


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
        outcomes = [
            outcome(code, child.output.read_text(errors="replace"), child.results())
            for child, code in zip(children, codes, strict=True)
        ]
        report = "\n".join(
            f"build {n}: {o[0]}, models written {len(o[1])}\n{c.tail(1500)}"
            for n, (o, c) in enumerate(zip(outcomes, children, strict=True), 1)
        )
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


@pytest.mark.parametrize(
    ("code", "text", "results", "kind"),
    [
        (0, "Completed successfully", {"model.rerun_safe.m": ("success", "")}, "success"),
        (1, "another run (run 2) holds the warehouse ... wrote nothing", {}, "refused"),
        (1, "Error running query: [STAGE_MATERIALIZATION_MULTIPLE_FAILURES] awaitResult", {}, "collided"),
        # a query error after a model started is not a collision in on-run-start
        (1, "1 of 9 START sql incremental model main.stg ... [RUN]\nError running query: boom", {}, "failed 1"),
        (1, "Error running query: boom", {"model.rerun_safe.m": ("error", "boom")}, "failed 1"),
        # a build that wrote a model is never the loser, whatever its error says
        (1, "holds the warehouse", {"model.rerun_safe.m": ("success", "")}, "failed 1"),
        (2, "Compilation Error in macro", {}, "failed 2"),
    ],
)
def test_the_outcome_of_one_build_is_read_from_where_it_stopped(code, text, results, kind) -> None:
    assert outcome(code, text, results)[0] == kind
