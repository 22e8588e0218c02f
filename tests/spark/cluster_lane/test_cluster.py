"""The cluster itself (tests/spark/cluster.py) and the `spark_thrift` target's profile.

- the cluster is what it claims: a master, two workers with one executor each (separate JVMs),
  the Thrift server as the driver of an application on that master; every socket its JVMs
  listen on is bound to 127.0.0.1;
- the landing door on a cluster: the executors read the deliveries (binaryFile scans run in
  their tasks) and no plan that reads a delivery's bytes sends them through the driver (a
  broadcast is collected on the driver first): checked on the plans the driver actually ran
  (its REST API), after a build;
- the profile's env vars are checked when it loads: a bad one fails naming it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from harness.dbt_invoke import run_dbt
from tests.pipeline.project import PROJECT_DIR, event
from tests.spark.cluster import WORKERS, _pgid
from tests.spark.project import ClusterPipeline

pytestmark = pytest.mark.spark

LOOPBACK = {"0100007F", "0000000000000000FFFF00000100007F", "00000000000000000000000001000000"}


def listening_sockets() -> dict[str, str]:
    """inode -> local address (hex, as /proc/net/tcp* give it) of every listening TCP socket."""
    found = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":  # LISTEN
                found[fields[9]] = fields[1]
    return found


def sockets_of(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def test_the_cluster_runs_separate_jvms_that_listen_on_loopback_only(spark_cluster) -> None:
    groups = set(spark_cluster.pids.values())
    members = [int(p) for p in os.listdir("/proc") if p.isdigit() and _pgid(int(p)) in groups]
    java = {pid: Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") for pid in members}
    java = {pid: argv for pid, argv in java.items() if argv and argv[0].endswith(b"java")}
    mains = sorted(
        next((a.decode() for a in argv if a.startswith(b"org.apache.spark.")), "?") for argv in java.values()
    )
    assert mains.count("org.apache.spark.deploy.master.Master") == 1, mains
    assert mains.count("org.apache.spark.deploy.worker.Worker") == WORKERS, mains
    assert mains.count("org.apache.spark.executor.CoarseGrainedExecutorBackend") == WORKERS, mains
    assert mains.count("org.apache.spark.deploy.SparkSubmit") == 1, mains  # the Thrift server
    state = spark_cluster.master_state()
    assert state["aliveworkers"] == WORKERS and [app["cores"] for app in state["activeapps"]] == [WORKERS], state
    listening = listening_sockets()
    bound = {pid: [listening[i] for i in sockets_of(pid) if i in listening] for pid in java}
    assert all(bound.values()), f"a JVM listens on nothing: {bound}"
    wide = {
        pid: addresses
        for pid, addresses in bound.items()
        if any(address.split(":")[0] not in LOOPBACK for address in addresses)
    }
    assert not wide, f"listening beyond 127.0.0.1: {wide}"
    ports = {int(address.split(":")[1], 16) for addresses in bound.values() for address in addresses}
    assert {spark_cluster.master_port, spark_cluster.thrift_port} <= ports, ports


def test_executors_read_the_deliveries_and_the_driver_never_holds_their_bytes(tmp_path: Path, spark_cluster) -> None:
    spark = ClusterPipeline(tmp_path / "spark", spark_cluster)
    try:
        spark.land("2026-11-01_001_a.csv", [event("a1", 100), event("a2", 200, order_item_id="i2")])
        spark.land("2026-11-01_002_b.csv", [event("b1", 300, order_item_id="i3")])
        spark.run_ok("--select", "stg_landing__deliveries", "stg_landing__events")
        assert spark.query("select count(*) from stg_landing__events") == [(3,)]
        executions = spark_cluster.driver_api("sql?details=true&planDescription=true&offset=0&length=100000")
        ours = [run for run in executions if spark.schema in str(run.get("description", ""))]
        reading = [run for run in ours if reads_content(run.get("planDescription", ""))]
        assert reading, (
            "no statement of the build read a delivery's bytes: "
            + json.dumps([run.get("description", "")[:200] for run in ours])[:3000]
        )
        broadcast = [
            run["description"][:300]
            for run in reading
            if "BroadcastExchange" in run["planDescription"] and _broadcasts_content(run["planDescription"])
        ]
        assert not broadcast, f"a plan broadcasts delivery bytes (collected on the driver first): {broadcast}"
    finally:
        spark.close()


def reads_content(plan: str) -> bool:
    """Whether a physical plan has a binaryFile scan that reads the `content` column (the bytes)."""
    return any("binaryFile" in block and "content" in block for block in _details(plan).values()) or any(
        "binaryFile" in line and "content" in line for line in plan.splitlines()
    )


def _details(plan: str) -> dict[str, str]:
    """A formatted plan's node details: node number -> its block ("(4) Scan binaryFile ...")."""
    blocks = re.split(r"\n(?=\(\d+\) )", plan)
    return {m.group(1): block for block in blocks if (m := re.match(r"\((\d+)\) ", block))}


def _broadcasts_content(plan: str) -> bool:
    """Whether a BroadcastExchange of the physical plan has a binaryFile scan reading `content`
    beneath it: the plan's tree (each node one line, children indented further), and for a
    formatted plan each node's details by its number."""
    details = _details(plan)
    lines = plan.splitlines()
    for index, line in enumerate(lines):
        if "BroadcastExchange" not in line or line.startswith("("):
            continue
        depth = len(line) - len(line.lstrip(" :+-"))
        for below in lines[index + 1 :]:
            if not below.strip() or len(below) - len(below.lstrip(" :+-")) <= depth:
                break
            if "binaryFile" in below and "content" in below:
                return True
            number = re.search(r"\((\d+)\)\s*$", below)
            if number and "binaryFile" in details.get(number.group(1), "") and "content" in details[number.group(1)]:
                return True
    return False


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("RERUN_SAFE_SPARK_THRIFT_PORT", "10000x"),
        ("RERUN_SAFE_SPARK_THRIFT_PORT", "70000"),
        ("RERUN_SAFE_SPARK_THRIFT_HOST", "a;b"),
        ("RERUN_SAFE_SPARK_THRIFT_USER", "a b"),
        ("RERUN_SAFE_SPARK_SCHEMA", "x-y"),
    ],
)
def test_a_bad_env_var_of_the_thrift_target_fails_naming_it(tmp_path: Path, name: str, value: str) -> None:
    invocation = run_dbt(
        [
            "parse",
            "--project-dir",
            str(PROJECT_DIR),
            "--profiles-dir",
            str(PROJECT_DIR),
            "--target",
            "spark_thrift",
            "--target-path",
            str(tmp_path / "target"),
        ],
        target_path=tmp_path / "target",
        env={name: value},
        write_json=False,
    )
    assert not invocation.success
    assert f"{name} must be" in str(invocation.error), invocation.error
