"""A Spark build killed in the middle of a write (SIGKILL to dbt and its JVM at once), then the
next build: it either repairs (the tables equal a clean build's) or stops with the documented
repair command, and the repair gives the clean tables.

The harness's `crash` check cannot drive Spark (it snapshots and restores DuckDB files), so this
test kills a real `dbt build --target spark`, run by dbt's Python API in a child process. Every
build here runs in a child process, on a warehouse folder of its own: the Derby metastore admits
one process at a time, so this module never opens the in-process session of
tests/spark/conftest.py. Two child processes, one JVM each (a JVM costs 15-20 s to start): one
runs the first build and then the build that gets killed; the other runs the rerun, the repair
if needed, and the dump of the tables. Both run dbt through tests/spark/dump_tables.py.

The kill lands while int_event_copies_classified runs its partition rewrite (found in dbt's
debug log: the statement is logged just before Spark runs it). That is the model whose rerun
cannot simply redo its write (it folds new staged rows into its old copies): if the rewrite
committed before the kill, the rerun's balance check stops it with the repair command; if it
had not, the rerun redoes it. Which of the two happened depends on timing; both are checked.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from pipeline_demo.generate import GeneratorConfig, generate
from tests.pipeline.project import PROJECT_DIR, Pipeline, deliveries_by_day, engine_state
from tests.spark.conftest import _missing
from tests.spark.scenarios.repair import REPAIR, comparable

pytestmark = pytest.mark.spark

COPIES_WRITE = re.compile(r"insert overwrite table \S*int_event_copies_classified\S* partition \(revenue_date\)")
NO_TESTS = ("--exclude", "resource_type:test", "resource_type:unit_test")


class SparkChild:
    """dbt (and the table dump) on Spark in child processes, on one warehouse folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.landing = root / "landing"
        self.landing.mkdir(parents=True)
        self.spark_dir = Path(tempfile.mkdtemp(prefix="rerun_safe_spark_kill_"))
        self.env = {
            **os.environ,
            "RERUN_SAFE_SPARK_DIR": str(self.spark_dir),
            "RERUN_SAFE_SPARK_SCHEMA": "t_" + uuid.uuid4().hex[:12],
            "TZ": "UTC",
        }
        self.builds = 0

    def args(self, *args: str, landing: Path | None = None) -> tuple[list[str], Path]:
        """`dbt build`'s arguments for the next build, and its folder (target/ and logs/)."""
        self.builds += 1
        folder = self.root / f"build{self.builds}"
        landing_path = str(landing or self.landing)
        return [
            "--target",
            "spark",
            "--project-dir",
            str(PROJECT_DIR),
            "--profiles-dir",
            str(PROJECT_DIR),
            "--target-path",
            str(folder / "target"),
            "--log-path",
            str(folder / "logs"),
            "--vars",
            json.dumps({"landing_path": landing_path}),
            *NO_TESTS,
            *args,
        ], folder

    def build_then_killed_at(self, first_landing: Path, statement: re.Pattern) -> float:
        """One child process (one JVM) runs two builds back to back: the first of `first_landing`
        (day 1), then one of the landing folder (days 1 and 2), whose process group (dbt and the
        JVM) gets SIGKILL as soon as dbt's log shows `statement` being sent to Spark. Returns the
        seconds from the second build's start to the kill. (Two landing folders, because the
        parent cannot land day 2 between the child's builds; a file's id is its name and
        content, not its folder.)"""
        (first, first_folder), (second, folder) = self.args(landing=first_landing), self.args()
        builds = [
            {"args": first, "target_path": str(first_folder / "target")},
            {"args": second, "target_path": str(folder / "target")},
        ]
        output = self.root / "killed_child.log"  # the child's own lines, for the asserts' messages
        never_written = self.root / "killed_child.json"  # the child dies before it writes its report
        with output.open("wb") as sink:
            child = subprocess.Popen(
                [sys.executable, "-m", "tests.spark.dump_tables", str(never_written), json.dumps(builds)],
                env=self.env,
                cwd=PROJECT_DIR,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

        def tail() -> str:
            return output.read_text(errors="replace")[-3000:]

        log = folder / "logs" / "dbt.log"  # created when the second build starts
        first_results = first_folder / "target" / "run_results.json"
        child_started = time.monotonic()
        try:
            while not log.exists():
                assert child.poll() is None, f"the child ended ({child.returncode}) in its first build:\n{tail()}"
                assert time.monotonic() - child_started < 900, "the first build took more than 900 s"
                time.sleep(0.1)
            assert first_results.exists(), f"the first build wrote no run_results.json:\n{tail()}"
            statuses = {row["status"] for row in json.loads(first_results.read_text())["results"]}
            assert statuses and statuses <= {"success", "pass"}, f"the first build failed: {statuses}\n{tail()}"
            started = time.monotonic()
            while True:
                if statement.search(log.read_text(errors="replace")):
                    os.killpg(child.pid, signal.SIGKILL)
                    break
                assert child.poll() is None, (
                    f"the build ended ({child.returncode}) before {statement.pattern}:\n{tail()}"
                )
                assert time.monotonic() - started < 900, f"no {statement.pattern} in {log} after 900 s"
                time.sleep(0.02)
        finally:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        killed_after = time.monotonic() - started
        for _ in range(200):  # the JVM of the group goes too
            try:
                os.killpg(child.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the killed build's process group is still alive")
        return killed_after

    def rerun_then_tables(self) -> dict:
        """In one child process (one JVM): the next build; if it fails, the repair build; then
        the tables (tests/spark/dump_tables.py). Its report: each build's success and failed
        nodes' messages, and the tables."""
        (rerun, rerun_folder), (repair, repair_folder) = self.args(), self.args(*REPAIR)
        out = self.root / "child.json"
        builds = [
            {"args": rerun, "target_path": str(rerun_folder / "target")},
            {"args": repair, "target_path": str(repair_folder / "target"), "if_failed": True},
        ]
        child = subprocess.run(
            [sys.executable, "-m", "tests.spark.dump_tables", str(out), json.dumps(builds)],
            env=self.env,
            cwd=PROJECT_DIR,
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
        assert child.returncode == 0, child.stdout[-3000:] + child.stderr[-3000:]
        return json.loads(out.read_text())


@pytest.fixture
def spark_available() -> None:
    missing = _missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}: the Spark target is NOT tested.", pytrace=False)
        pytest.skip(f"SKIPPED LOUDLY: {missing}: the Spark target is NOT tested.")


def test_a_build_killed_mid_write_is_repaired(tmp_path: Path, spark_available: None) -> None:
    deliveries = tmp_path / "deliveries"
    generate(GeneratorConfig(days=2, events_per_day=20), deliveries)
    days = deliveries_by_day(deliveries)
    duck = Pipeline(tmp_path / "duck")
    duck.deliver(*(path for day in days for path in day))
    assert duck.run().success
    clean = comparable(engine_state(duck))

    spark = SparkChild(tmp_path / "spark")
    try:
        first_landing = spark.root / "landing_day1"
        first_landing.mkdir()
        for path in days[0]:
            (first_landing / path.name).write_bytes(path.read_bytes())
        for path in days[0] + days[1]:
            (spark.landing / path.name).write_bytes(path.read_bytes())
        killed_after = spark.build_then_killed_at(first_landing, COPIES_WRITE)

        report = spark.rerun_then_tables()
        rerun, *repair = report["builds"]
        if not rerun["success"]:
            # the rewrite had committed: the rerun must stop on the balance, naming the repair
            message = "\n".join(rerun["failed"])
            assert "valid staged rows != rows in copies" in message, message[-3000:]
            assert " ".join(REPAIR) in message, message[-3000:]
            assert repair and repair[0]["success"], repair
            outcome = "stopped with the repair command; the repair gave the clean tables"
        else:
            assert not repair, "the repair ran after a rerun that succeeded"
            outcome = "repaired by the next build"
        state = report["tables"]
        assert state["runs"].count(["started"]) == 1, f"the killed run is not the one left started: {state['runs']}"
        got = comparable(state)
        for name in clean:
            assert got[name] == clean[name], f"{name} differs from a clean build ({outcome})"
        print(f"killed {killed_after:.1f} s into the build; the next build {outcome}")
    finally:
        import shutil

        shutil.rmtree(spark.spark_dir, ignore_errors=True)
