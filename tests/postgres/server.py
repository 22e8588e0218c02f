"""A throw-away PostgreSQL server: initdb in a temporary folder, a free port on 127.0.0.1,
trust auth, stopped and deleted on exit. tests/postgres/conftest.py's session fixture is this
context manager; bench/postgres.py starts one the same way.

The server reads the landing folders itself (pg_read_binary_file), so a landing folder must be
one the server's OS user can read (`new_landing()` makes one under the cluster's folder). Root
cannot run initdb: as root the server runs as the `postgres` user (as on the CI image).
"""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SERVER_USER = "postgres"


class ServerUnavailable(Exception):
    """dbt-postgres or the server binaries are missing; `ci_hint` says what CI must do about it."""

    def __init__(self, message: str, ci_hint: str) -> None:
        super().__init__(message)
        self.ci_hint = ci_hint


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
    log_file: Path | None = None  # the server's log (pg_ctl -l), when this process started it

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


def server_binaries() -> Path:
    """The folder of initdb and pg_ctl; ServerUnavailable when they or dbt-postgres are missing."""
    if importlib.util.find_spec("dbt.adapters.postgres") is None or importlib.util.find_spec("psycopg2") is None:
        raise ServerUnavailable(
            "dbt-postgres (with psycopg2) is not installed: the Postgres target is NOT tested.",
            " It is in requirements.txt; reinstall the environment.",
        )
    bin_dir = _find_bin_dir()
    if bin_dir is None:
        raise ServerUnavailable(
            "PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or under "
            "/usr/lib/postgresql/*/bin: the Postgres target is NOT tested. "
            "Install them with `apt-get install -y postgresql`.",
            " CI must install them (.ci/run).",
        )
    return bin_dir


@contextlib.contextmanager
def throwaway_server(
    bin_dir: Path | None = None,
    prefix: str = "rerun_safe_pg_",
    settings: dict[str, str] | None = None,
) -> Iterator[PostgresServer]:
    """Start a cluster in a new temporary folder (`prefix`); stop it and delete the folder on exit.
    `settings`: more server settings (`-c name=value`), e.g. session_preload_libraries."""
    bin_dir = bin_dir or server_binaries()
    as_root = os.geteuid() == 0
    if as_root:
        import pwd

        try:
            server_uid = pwd.getpwnam(SERVER_USER).pw_uid
        except KeyError:
            raise RuntimeError(f"running as root but there is no `{SERVER_USER}` user to run the server as") from None

    root = Path(tempfile.mkdtemp(prefix=prefix))
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
            _as_server_user(command, as_root),
            capture_output=True,
            text=True,
            timeout=120,
        )
        if completed.returncode != 0:
            log = log_file.read_text() if log_file.exists() else ""
            raise RuntimeError(
                f"{command[0]} failed ({completed.returncode}):\n{completed.stdout}\n{completed.stderr}\n{log}"
            )

    started = False
    try:
        run(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(data_dir),
                "-A",
                "trust",
                "-U",
                SERVER_USER,
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ]
        )
        options = (
            f"-p {port} -k {root} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            + "".join(f" -c {name}={value}" for name, value in (settings or {}).items())
        )
        run([pg_ctl, "-D", str(data_dir), "-l", str(log_file), "-o", options, "-w", "-t", "60", "start"])
        started = True
        yield PostgresServer(
            host="127.0.0.1",
            port=port,
            user=SERVER_USER,
            dbname="postgres",
            landing_root=landing_root,
            log_file=log_file,
        )
    finally:
        if started:
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                run([pg_ctl, "-D", str(data_dir), "-m", "immediate", "-w", "stop"])
        shutil.rmtree(root, ignore_errors=True)
