"""A standalone Spark cluster on this machine, behind the Spark Thrift server.

Four JVMs from pyspark's own jars (requirements-spark.txt), each in a process group of its own:

- a standalone master (`spark-class org.apache.spark.deploy.master.Master`);
- two workers (`...deploy.worker.Worker`), one core and `WORKER_MEMORY` each; each launches
  one executor JVM for the Thrift server's application (a child in the worker's group);
- the Thrift server (`spark-submit --class ...HiveThriftServer2 spark-internal`): the driver of
  that application, connected to the master. It holds the embedded Derby metastore, so every
  dbt process that connects shares one catalog (not one process per metastore, as with the
  `spark` target).

Everything listens on 127.0.0.1 only (SPARK_LOCAL_IP, SPARK_MASTER_HOST, the hosts given on
the command lines, hive.server2.thrift.bind.host), on ports found free at start. Logs, the
workers' folders, the warehouse and the metastore live under one folder (target/...,
gitignored). Executors read the landing folder and write the warehouse as local paths: on one
machine every executor sees them (on a real cluster they are object storage, docs/engines.md).

`python -m tests.spark.cluster start DIR` starts it and prints the environment for the
`spark_thrift` target of profiles.yml (make spark-cluster); `stop DIR` stops what a `start` of
DIR recorded in DIR/cluster.json (make spark-cluster-stop). tests/spark/conftest.py starts one
per test session and stops it in its teardown.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

HOST = "127.0.0.1"
WORKERS = 2
WORKER_MEMORY = "1g"  # what each worker offers its executor (spark.executor.memory is the same)
DAEMON_MEMORY = "256m"  # the master's and the workers' own heaps
DRIVER_MEMORY = "3g"  # the Thrift server plans every statement (the session target uses 4g)
RETAINED_EXECUTIONS = 50_000  # SQL executions the driver's UI keeps (see _thrift_command)
START_TIMEOUT = 180.0
THRIFT_SERVER = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"
# Every JVM of the cluster (the daemons, the driver, the executors) compiles with C1 only and
# collects with the serial GC. The tests' data is tiny and each statement's plan is new
# generated code: the server spent half its CPU in the C2 compiler. Measured on the engine
# comparison (test_cluster_target, 2 days), CPU seconds of the JVMs: 272 -> 191 for the test,
# 59 -> 24 for the start. A cluster with a real workload wants the default JIT.
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
# The tests' own connections (queries): as the spark_thrift profile's sessions. The Thrift server
# applies a session's configuration to Spark only for keys prefixed set:hiveconf: (others are
# set on the session's HiveConf, which Spark does not read).
SESSION = {
    f"set:hiveconf:{key}": value
    for key, value in {
        "spark.sql.hive.thriftServer.async": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.ansi.enabled": "false",
    }.items()
}


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def listening(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex((HOST, port)) == 0


@dataclass
class Cluster:
    root: Path
    master_port: int = 0
    master_ui_port: int = 0
    thrift_port: int = 0
    driver_ui_port: int = 0  # the Thrift server's UI: its REST API tells which statements run
    pids: dict[str, int] = field(default_factory=dict)  # name -> pid (= its process group)
    started_seconds: float = 0.0

    @property
    def state_file(self) -> Path:
        return self.root / "cluster.json"

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    def env(self, schema: str | None = None) -> dict[str, str]:
        """What the `spark_thrift` target of profiles.yml reads."""
        found = {"RERUN_SAFE_SPARK_THRIFT_HOST": HOST, "RERUN_SAFE_SPARK_THRIFT_PORT": str(self.thrift_port)}
        if schema is not None:
            found["RERUN_SAFE_SPARK_SCHEMA"] = schema
        return found

    # --- start --------------------------------------------------------------------------

    def start(self) -> Cluster:
        """Start the master, the workers and the Thrift server; return when a statement has
        run on the executors of both workers. On any failure, stop what was started."""
        began = time.monotonic()
        stop_recorded(self.root)  # a previous start of this folder that was never stopped
        self.root = self.root.resolve()
        for folder in (self.logs, self.warehouse, self.root / "conf", self.root / "tmp"):
            folder.mkdir(parents=True, exist_ok=True)
        self.master_port, self.master_ui_port, self.thrift_port = free_port(), free_port(), free_port()
        self.driver_ui_port = free_port()
        try:
            self._spawn(
                "master",
                [
                    str(spark_home() / "bin" / "spark-class"),
                    "org.apache.spark.deploy.master.Master",
                    "--host",
                    HOST,
                    "--port",
                    str(self.master_port),
                    "--webui-port",
                    str(self.master_ui_port),
                ],
            )
            self._wait(lambda: listening(self.master_port), "master", began)
            master_url = f"spark://{HOST}:{self.master_port}"
            for number in range(1, WORKERS + 1):
                work = self.root / f"worker{number}"
                work.mkdir(exist_ok=True)
                self._spawn(
                    f"worker{number}",
                    [
                        str(spark_home() / "bin" / "spark-class"),
                        "org.apache.spark.deploy.worker.Worker",
                        "--host",
                        HOST,
                        "--port",
                        str(free_port()),
                        "--webui-port",
                        str(free_port()),
                        "--cores",
                        "1",
                        "--memory",
                        WORKER_MEMORY,
                        "--work-dir",
                        str(work),
                        master_url,
                    ],
                )
            # the launcher sizes the Thrift server's heap by SPARK_DAEMON_MEMORY before spark.driver.memory
            self._spawn("thrift", self._thrift_command(master_url), daemon_memory=DRIVER_MEMORY)
            self._wait(lambda: self.alive_workers() == WORKERS, "two workers registered", began)
            self._wait(lambda: listening(self.thrift_port), "Thrift server", began)
            self._wait(self._executors_ready, "both executors", began)
        except BaseException:
            self.stop()
            raise
        self.started_seconds = time.monotonic() - began
        self.state_file.write_text(json.dumps({**asdict(self), "root": str(self.root)}, indent=2))
        return self

    def _thrift_command(self, master_url: str) -> list[str]:
        confs = {
            "spark.master": master_url,
            "spark.app.name": "rerun_safe_thrift",
            "spark.driver.host": HOST,
            "spark.driver.bindAddress": HOST,
            "spark.driver.memory": DRIVER_MEMORY,
            "spark.executor.memory": WORKER_MEMORY,
            "spark.executor.cores": "1",
            "spark.cores.max": str(WORKERS),
            "spark.ui.enabled": "true",
            "spark.ui.port": str(self.driver_ui_port),
            "spark.ui.showConsoleProgress": "false",
            # The tests ask the driver's REST API which SQL executions still run (`running_statements`).
            # Past spark.sql.ui.retainedExecutions (1000 by default) the UI evicts old executions,
            # and in a lane it was seen to keep the two oldest executions with their plan graphs
            # deleted: from then on every listing fails with HTTP 404 "no such app" (Spark's
            # withUI turns the missing graph into that answer). A test session sends a few thousand
            # statements, so nothing is evicted before the cluster stops.
            "spark.sql.ui.retainedExecutions": str(RETAINED_EXECUTIONS),
            # nothing a session sets: the spark_thrift profile sets its own (set:hiveconf:...),
            # so the tests prove that the profile's settings take effect
            "spark.sql.warehouse.dir": str(self.warehouse),
            "spark.hadoop.javax.jdo.option.ConnectionURL": (
                f"jdbc:derby:;databaseName={self.root / 'metastore_db'};create=true"
            ),
            "spark.driver.extraJavaOptions": (
                f"-Dderby.system.home={self.root} -Djava.io.tmpdir={self.root / 'tmp'} {JVM_OPTIONS}"
            ),
            "spark.executor.extraJavaOptions": JVM_OPTIONS,
            "spark.local.dir": str(self.root / "tmp"),
            "spark.hadoop.hive.exec.scratchdir": str(self.root / "tmp" / "hive"),
            "spark.hadoop.hive.exec.local.scratchdir": str(self.root / "tmp" / "hive-local"),
            "spark.hadoop.hive.downloaded.resources.dir": str(self.root / "tmp" / "resources"),
        }
        command = [str(spark_home() / "bin" / "spark-submit"), "--class", THRIFT_SERVER]
        for key, value in confs.items():
            command += ["--conf", f"{key}={value}"]
        return [
            *command,
            "spark-internal",
            "--hiveconf",
            f"hive.server2.thrift.bind.host={HOST}",
            "--hiveconf",
            f"hive.server2.thrift.port={self.thrift_port}",
        ]

    def _spawn(self, name: str, command: list[str], daemon_memory: str = DAEMON_MEMORY) -> None:
        env = {
            **os.environ,
            "SPARK_HOME": str(spark_home()),
            "SPARK_LOCAL_IP": HOST,
            "SPARK_MASTER_HOST": HOST,
            "SPARK_CONF_DIR": str(self.root / "conf"),  # none of the user's spark-defaults.conf
            "SPARK_LOG_DIR": str(self.logs),
            "SPARK_WORKER_DIR": str(self.root / name),
            "SPARK_DAEMON_MEMORY": daemon_memory,
            "HIVE_SERVER2_THRIFT_BIND_HOST": HOST,
            "HIVE_SERVER2_THRIFT_PORT": str(self.thrift_port),
            "PYSPARK_PYTHON": sys.executable,
        }
        env.pop("SPARK_MASTER_PORT", None)
        # the master's REST submission server would listen on a fixed port (6066): not needed
        env["SPARK_MASTER_OPTS"] = "-Dspark.master.rest.enabled=false"
        env["SPARK_DAEMON_JAVA_OPTS"] = JVM_OPTIONS
        with (self.logs / f"{name}.log").open("ab") as log:
            child = subprocess.Popen(
                command,
                cwd=self.root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.pids[name] = child.pid
        self.state_file.write_text(json.dumps({**asdict(self), "root": str(self.root)}, indent=2))

    def _wait(self, ready, what: str, began: float) -> None:
        while not ready():
            for name, pid in self.pids.items():
                if not alive(pid):
                    raise RuntimeError(
                        f"Spark cluster: the {name} JVM exited while waiting for {what}; its log:\n"
                        + self.log_tail(name)
                    )
            if time.monotonic() - began > START_TIMEOUT:
                raise RuntimeError(
                    f"Spark cluster: no {what} after {START_TIMEOUT:.0f} s; logs in {self.logs}\n"
                    + "\n".join(self.log_tail(name, 1500) for name in self.pids)
                )
            time.sleep(0.25)

    def log_tail(self, name: str, chars: int = 3000) -> str:
        path = self.logs / f"{name}.log"
        return f"--- {path}\n" + (path.read_text(errors="replace")[-chars:] if path.exists() else "(no log)")

    def master_state(self) -> dict:
        with urllib.request.urlopen(f"http://{HOST}:{self.master_ui_port}/json/", timeout=2) as answer:
            return json.loads(answer.read())

    def alive_workers(self) -> int:
        try:
            return int(self.master_state().get("aliveworkers", 0))
        except OSError:
            return 0

    def _executors_ready(self) -> bool:
        """Both workers run an executor of the Thrift server's application (its cores are in use)."""
        try:
            apps = self.master_state().get("activeapps", [])
        except OSError:
            return False
        return any(app.get("cores", 0) >= WORKERS for app in apps)

    def driver_api(self, path: str) -> object:
        """The Thrift server's REST API (`/api/v1/applications/<its app>/<path>`)."""
        base = f"http://{HOST}:{self.driver_ui_port}/api/v1/applications"
        with urllib.request.urlopen(base, timeout=30) as answer:
            (app,) = json.loads(answer.read())
        try:
            with urllib.request.urlopen(f"{base}/{app['id']}/{path}", timeout=60) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as error:
            raise RuntimeError(
                f"the driver's REST API answered {error.code} to {path}: {error.read()[:300]!r}; 'no such app' on"
                " .../sql means an execution lost its plan graph (spark.sql.ui.retainedExecutions, _thrift_command)"
            ) from error

    def running_statements(self) -> list[str]:
        """The SQL executions the driver has not finished (a command runs until its commit)."""
        runs = self.driver_api("sql?details=false&offset=0&length=100000")
        assert isinstance(runs, list), runs
        return [str(run.get("description", ""))[:200] for run in runs if run.get("status") == "RUNNING"]

    def wait_for_no_running_job(self, timeout: float) -> float:
        """Wait until the driver runs no SQL execution; the seconds it took."""
        began = time.monotonic()
        while running := self.running_statements():
            assert time.monotonic() - began < timeout, f"still running after {timeout:.0f} s: {running}"
            time.sleep(0.2)
        return time.monotonic() - began

    def connect(self, schema: str | None = None):
        """A PyHive connection to the Thrift server (the driver); `schema` as its database."""
        from pyhive import hive

        return hive.connect(
            host=HOST, port=self.thrift_port, username="rerun_safe", database=schema or "default", configuration=SESSION
        )

    # --- stop ---------------------------------------------------------------------------

    def stop(self) -> None:
        """SIGTERM to every process group started here (Thrift server first), SIGKILL to what
        is still there after 10 s; the groups include the executors the workers launched."""
        order = ["thrift"] + [n for n in self.pids if n.startswith("worker")] + ["master"]
        groups = [self.pids[name] for name in order if name in self.pids]
        for pid in groups:
            signal_group(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(group_alive(pid) for pid in groups):
            time.sleep(0.2)
        for pid in groups:
            signal_group(pid, signal.SIGKILL)
        for pid in groups:
            for _ in range(100):
                if not group_alive(pid):
                    break
                time.sleep(0.05)
            with contextlib.suppress(ChildProcessError):  # reap our own children (a `start` here)
                os.waitpid(pid, os.WNOHANG)
        self.pids = {}
        if self.state_file.exists():
            self.state_file.unlink()


def alive(pid: int) -> bool:
    try:
        done, _status = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    except ChildProcessError:
        pass  # not our child (a cluster started by another process): ask the kernel
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return _state(pid) != "Z"


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a group whose only member is our unreaped zombie is gone
    members = [p for p in os.listdir("/proc") if p.isdigit() and _pgid(int(p)) == pgid]
    return any(_state(int(p)) not in ("Z", "") for p in members)


def _pgid(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[2])
    except (OSError, IndexError, ValueError):
        return -1


def signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def stop_recorded(root: Path) -> bool:
    """Stop the cluster a `start` of `root` recorded, if any of it is still running. Only
    groups whose leader runs a command line naming `root` are signalled (a recycled pid is
    left alone)."""
    state_file = root / "cluster.json"
    if not state_file.exists():
        return False
    state = json.loads(state_file.read_text())
    cluster = Cluster(Path(state["root"]))
    resolved = str(Path(state["root"]))
    for name, pid in state.get("pids", {}).items():
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if resolved in command:
            cluster.pids[name] = pid
    cluster.stop()
    state_file.unlink(missing_ok=True)
    return True


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: python -m tests.spark.cluster start|stop DIR", file=sys.stderr)
        return 2
    root = Path(argv[1])
    if argv[0] == "stop":
        print("stopped" if stop_recorded(root) else f"no cluster recorded in {root / 'cluster.json'}")
        return 0
    cluster = Cluster(root).start()
    print(
        f"Spark cluster up in {cluster.started_seconds:.1f} s: master spark://{HOST}:{cluster.master_port}"
        f" (UI http://{HOST}:{cluster.master_ui_port}), {WORKERS} workers, Thrift server {HOST}:{cluster.thrift_port}"
    )
    print(f"logs, warehouse and metastore in {cluster.root}; stop it with: make spark-cluster-stop")
    print("for dbt --target spark_thrift:")
    for key, value in cluster.env().items():
        print(f"  export {key}={value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
