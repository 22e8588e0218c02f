"""A throw-away PostgreSQL server for the tests in this folder.

One cluster per pytest process (so per xdist worker): initdb in a temporary folder, a free
port on 127.0.0.1, stopped and deleted at the end of the session. The server reads the
landing folders itself (pg_read_binary_file), so every landing folder lives under the
cluster's temporary folder, which the server's OS user can read.

Root cannot run initdb: as root the server runs as the `postgres` user (as on the CI image).
Without PostgreSQL binaries the tests are skipped with a loud reason, or fail when CI is set:
CI must install them (`apt-get install -y postgresql`).
"""
from __future__ import annotations

import glob
import importlib.util
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

SERVER_USER = "postgres"


def _find_bin_dir() -> Path | None:
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(os.path.realpath(on_path)).parent
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    return Path(candidates[-1]).parent if candidates else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class PostgresServer:
    host: str
    port: int
    user: str
    dbname: str
    landing_root: Path

    def connect(self):
        """A psycopg2 connection to the test database, in autocommit (the caller closes it)."""
        import psycopg2

        con = psycopg2.connect(host=self.host, port=self.port, user=self.user, dbname=self.dbname)
        con.autocommit = True
        return con

    def query(self, sql: str) -> list[tuple]:
        con = self.connect()
        try:
            with con.cursor() as cur:
                cur.execute(sql)
                return cur.fetchall()
        finally:
            con.close()

    def new_landing(self) -> Path:
        """A fresh landing folder the server can read."""
        folder = self.landing_root / uuid.uuid4().hex[:12]
        folder.mkdir(mode=0o755)
        folder.chmod(0o755)
        return folder


def _as_server_user(command: list[str], as_root: bool) -> list[str]:
    if not as_root:
        return command
    return ["su", SERVER_USER, "-s", "/bin/sh", "-c", shlex.join(command)]


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    if importlib.util.find_spec("dbt.adapters.postgres") is None or importlib.util.find_spec("psycopg2") is None:
        message = "dbt-postgres (with psycopg2) is not installed: the Postgres target is NOT tested."
        if os.environ.get("CI"):
            pytest.fail(message + " It is in requirements.txt; reinstall the environment.", pytrace=False)
        pytest.skip("SKIPPED LOUDLY: " + message)
    bin_dir = _find_bin_dir()
    if bin_dir is None:
        message = (
            "PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or under "
            "/usr/lib/postgresql/*/bin: the Postgres target is NOT tested. "
            "Install them with `apt-get install -y postgresql`."
        )
        if os.environ.get("CI"):
            pytest.fail(message + " CI must install them (.ci/run).", pytrace=False)
        pytest.skip("SKIPPED LOUDLY: " + message)

    as_root = os.geteuid() == 0
    if as_root:
        try:
            import pwd
            server_uid = pwd.getpwnam(SERVER_USER).pw_uid
        except KeyError:
            pytest.fail(f"running as root but there is no `{SERVER_USER}` user to run the server as", pytrace=False)

    root = Path(tempfile.mkdtemp(prefix="rerun_safe_pg_"))
    root.chmod(0o755)
    data_dir = root / "data"
    landing_root = root / "landing"
    landing_root.mkdir(mode=0o755)
    log_file = root / "server.log"
    if as_root:
        os.chown(root, server_uid, -1)
    port = _free_port()
    pg_ctl = str(bin_dir / "pg_ctl")

    def run(command: list[str]) -> None:
        completed = subprocess.run(
            _as_server_user(command, as_root), capture_output=True, text=True, timeout=120,
        )
        if completed.returncode != 0:
            log = log_file.read_text() if log_file.exists() else ""
            raise RuntimeError(
                f"{command[0]} failed ({completed.returncode}):\n{completed.stdout}\n{completed.stderr}\n{log}"
            )

    started = False
    try:
        run([str(bin_dir / "initdb"), "-D", str(data_dir), "-A", "trust", "-U", SERVER_USER,
             "-E", "UTF8", "--locale=C", "--no-sync"])
        options = (
            f"-p {port} -k {root} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        run([pg_ctl, "-D", str(data_dir), "-l", str(log_file), "-o", options, "-w", "-t", "60", "start"])
        started = True
        yield PostgresServer(host="127.0.0.1", port=port, user=SERVER_USER, dbname="postgres",
                             landing_root=landing_root)
    finally:
        if started:
            try:
                run([pg_ctl, "-D", str(data_dir), "-m", "immediate", "-w", "stop"])
            except (RuntimeError, subprocess.TimeoutExpired):
                pass
        shutil.rmtree(root, ignore_errors=True)
