"""A build on the cluster killed in the middle of a write, then the next build: it either
repairs (the tables equal a clean build's) or stops with the documented repair command, and
the repair gives the clean tables.

On the cluster dbt is a client of the Thrift server: the test runs `dbt run --target
spark_thrift` as a child process and sends SIGKILL to its process group as soon as dbt's debug
log shows the copies model's partition rewrite being sent (the statement is logged just before
it goes out). The statement itself runs in the Thrift server: killing the client does not stop
it. With `spark.sql.hive.thriftServer.async=false` (profiles.yml) the server runs it in the
connection's own handler thread and notices the dead client only when it answers, so the
rewrite runs to its end; the test waits until the driver runs no job any more, then runs the
next build (in-process, as the other tests do). What the rerun then sees is the committed
rewrite with no run-log row behind it: the copies balance (valid staged rows = rows in copies)
stops it with the repair command, and the repair gives the clean tables. If the rewrite had
not committed (a server that cancels its statements when the client goes), the rerun redoes
it; both outcomes are checked, and which one happened is printed.

The same warehouse then gets a third day whose copies model fails after its write (an injected
fault): the balance stops the rerun and the repair gives a clean build's tables
(engine_equality.failure_after_the_write_then_repair; one cluster schema, seeded and built once,
serves both failures).
"""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import pytest

from pipeline_demo.generate import GeneratorConfig, generate
from tests.pipeline.project import Pipeline, deliveries_by_day, engine_state
from tests.spark.children import DbtChild
from tests.spark.project import ClusterPipeline
from tests.spark.scenarios.engine_equality import failure_after_the_write_then_repair
from tests.spark.scenarios.repair import REPAIR, comparable

pytestmark = pytest.mark.spark

COPIES_WRITE = re.compile(r"insert overwrite table \S*int_event_copies_classified\S* partition \(revenue_date\)")


def killed_at(spark: ClusterPipeline, folder: Path, statement: re.Pattern) -> float:
    """`dbt run` of the landing folder in a child process, SIGKILLed (its whole group) when its
    log shows `statement`; the seconds from its start to the kill."""
    child = DbtChild(spark, folder, "run")
    started = time.monotonic()
    try:
        while True:
            if child.log.exists() and statement.search(child.log.read_text(errors="replace")):
                os.killpg(child.process.pid, signal.SIGKILL)
                break
            assert child.process.poll() is None, (
                f"the build ended ({child.process.returncode}) before {statement.pattern}:\n{child.tail()}"
            )
            assert time.monotonic() - started < 900, f"no {statement.pattern} in {child.log} after 900 s"
            time.sleep(0.02)
    finally:
        if child.process.poll() is None:
            os.killpg(child.process.pid, signal.SIGKILL)
        child.wait(60)
    return time.monotonic() - started


def test_a_build_killed_mid_write_is_repaired(tmp_path: Path, spark_cluster) -> None:
    deliveries = tmp_path / "deliveries"
    generate(GeneratorConfig(days=3, events_per_day=20), deliveries)
    days = deliveries_by_day(deliveries)
    assert len(days) == 3, [len(day) for day in days]
    duck = Pipeline(tmp_path / "duck")
    duck.deliver(*(path for day in days[:2] for path in day))
    assert duck.run().success
    clean = comparable(engine_state(duck))
    duck_three_days = Pipeline(tmp_path / "duck_three_days")
    duck_three_days.deliver(*(path for day in days for path in day))
    assert duck_three_days.run().success

    spark = ClusterPipeline(tmp_path / "spark", spark_cluster)
    try:
        spark.deliver(*days[0])
        spark.run_ok()
        spark.deliver(*days[1])
        killed_after = killed_at(spark, tmp_path / "killed", COPIES_WRITE)
        left_running = spark_cluster.wait_for_no_running_job(timeout=300)
        rerun = spark.run()
        if not rerun.success:
            # the rewrite had committed: the rerun must stop on the balance, naming the repair
            message = "\n".join(str(m) for m in rerun.messages.values())
            assert "valid staged rows != rows in copies" in message, message[-3000:]
            assert " ".join(REPAIR) in message, message[-3000:]
            spark.run_ok(*REPAIR)
            outcome = "stopped with the repair command; the repair gave the clean tables"
        else:
            outcome = "repaired by the next build"
        runs = sorted(spark.query("select status from rerun_safe_runs"))
        assert runs.count(("started",)) == 1, f"the killed run is not the one left started: {runs}"
        got = comparable(engine_state(spark))
        for name in clean:
            assert got[name] == clean[name], f"{name} differs from a clean build ({outcome})"
        print(
            f"killed {killed_after:.1f} s into the build; the server ran its statement on for"
            f" {left_running:.1f} s; the next build {outcome}"
        )
        failure_after_the_write_then_repair(spark, days[2], duck_three_days)
    finally:
        spark.close()
