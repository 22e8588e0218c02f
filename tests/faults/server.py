"""A PostgreSQL server of the fault campaign's own: tests/postgres/conftest.py's session server
is shared by every Postgres module of a worker, and this campaign stops it (`pg_ctl stop -m
immediate`) and starts it again, so it gets a cluster nobody else uses (same recipe: initdb in
a temporary folder, 127.0.0.1 and a Unix socket in that folder, a free port, trust auth; as root
the server runs as `postgres`). Deleted at the end of the module.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.postgres.server import SERVER_USER, PostgresServer, _as_server_user, _find_bin_dir, _free_port

WORK_DB = "fault_work"
CHECKPOINT_DB = "fault_checkpoint"


@dataclass
class FaultServer:
    bin_dir: Path
    root: Path
    port: int
    as_root: bool
    running: bool = False

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def log_file(self) -> Path:
        return self.root / "server.log"

    def _run(self, command: list[str], check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run(_as_server_user(command, self.as_root), capture_output=True, text=True, timeout=120)
        if check and done.returncode != 0:
            log = self.log_file.read_text()[-3000:] if self.log_file.exists() else ""
            raise RuntimeError(f"{command[0]} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}\n{log}")
        return done

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        self._run(
            [
                str(self.bin_dir / "pg_ctl"),
                "-D",
                str(self.data_dir),
                "-l",
                str(self.log_file),
                "-o",
                options,
                "-w",
                "-t",
                "60",
                "start",
            ]
        )
        self.running = True

    def crash(self) -> None:
        """`pg_ctl stop -m immediate`: every backend dies at once, no checkpoint (crash recovery
        on the next start)."""
        self._run([str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-m", "immediate", "-w", "stop"])
        self.running = False

    def server(self, dbname: str = WORK_DB) -> PostgresServer:
        landing_root = self.root / "landing"
        return PostgresServer(
            host="127.0.0.1", port=self.port, user=SERVER_USER, dbname=dbname, landing_root=landing_root
        )

    def admin(self, *statements: str) -> None:
        """Statements on the `postgres` database, in autocommit."""
        con = self.server("postgres").connect()
        try:
            with con.cursor() as cur:
                for sql in statements:
                    cur.execute(sql)
        finally:
            con.close()

    def kick(self, dbname: str) -> None:
        self.admin(
            f"select pg_terminate_backend(pid) from pg_stat_activity where datname = '{dbname}'"
            " and pid <> pg_backend_pid()"
        )

    def copy_database(self, source: str, dest: str) -> None:
        """`dest` := a copy of `source` (CREATE DATABASE ... TEMPLATE: tables, indexes, everything)."""
        self.admin(f"drop database if exists {dest} with (force)")
        for attempt in range(50):  # a backend of `source` still closing
            self.kick(source)
            try:
                self.admin(f"create database {dest} template {source}")
                return
            except Exception as exc:  # psycopg2.errors.ObjectInUse
                if "is being accessed by other users" not in str(exc) or attempt == 49:
                    raise
                time.sleep(0.1)


def fault_server() -> FaultServer:
    """Start a cluster of the campaign's own (the caller stops it with `stop_and_remove`)."""
    import importlib.util

    if importlib.util.find_spec("dbt.adapters.postgres") is None or importlib.util.find_spec("psycopg2") is None:
        message = "dbt-postgres (with psycopg2) is not installed: the Postgres fault campaign is NOT run."
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip("SKIPPED LOUDLY: " + message)
    bin_dir = _find_bin_dir()
    if bin_dir is None:
        message = "PostgreSQL server binaries not found: the Postgres fault campaign is NOT run."
        if os.environ.get("CI"):
            pytest.fail(message + " CI must install them (.ci/run).", pytrace=False)
        pytest.skip("SKIPPED LOUDLY: " + message)
    as_root = os.geteuid() == 0
    root = Path(tempfile.mkdtemp(prefix="rerun_safe_pg_faults_"))
    root.chmod(0o755)
    (root / "landing").mkdir(mode=0o755)
    if as_root:
        import pwd

        os.chown(root, pwd.getpwnam(SERVER_USER).pw_uid, -1)
    server = FaultServer(bin_dir, root, _free_port(), as_root)
    server._run(
        [
            str(bin_dir / "initdb"),
            "-D",
            str(server.data_dir),
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
    server.start()
    server.admin(f"create database {WORK_DB}")
    return server


def stop_and_remove(server: FaultServer) -> None:
    if server.running:
        server._run(
            [str(server.bin_dir / "pg_ctl"), "-D", str(server.data_dir), "-m", "immediate", "-w", "stop"], check=False
        )
    shutil.rmtree(server.root, ignore_errors=True)
