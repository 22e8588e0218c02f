"""Run dbt in-process (dbtRunner) against a chosen warehouse file and landing folder."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WAREHOUSE_ENV_VAR = "DBT_DUCKDB_PATH"
# Statuses in run_results.json that mean the build did not do what it should.
PROBLEM_STATUSES = {"error", "fail", "runtime error", "skipped"}


@dataclass(frozen=True)
class DbtSettings:
    """How to call dbt for one project: the dbt-style flags of the harness CLI."""

    project_dir: Path
    profiles_dir: Path | None = None
    target: str | None = None
    vars: dict[str, Any] = field(default_factory=dict)
    landing_var: str = "landing_path"
    show_dbt_output: bool = False


@dataclass(frozen=True)
class NodeResult:
    unique_id: str
    status: str
    message: str


@dataclass
class DbtRun:
    command: str
    args: list[str]
    target_path: Path
    nodes: list[NodeResult]
    error: str | None
    duration_s: float

    @property
    def problems(self) -> list[str]:
        found = [
            f"{node.unique_id}: {node.status}: {node.message}".rstrip(": ")
            for node in self.nodes
            if node.status in PROBLEM_STATUSES
        ]
        if self.error:
            found.insert(0, self.error)
        return found

    @property
    def ok(self) -> bool:
        return not self.problems


class DbtError(RuntimeError):
    """dbt could not run at all, or a selection matched nothing."""


@contextlib.contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    previous = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


def build_args(
    settings: DbtSettings,
    command: str,
    *,
    target_path: Path,
    landing: Path | None,
    select: Sequence[str] = (),
    full_refresh: bool = False,
    extra_vars: dict[str, Any] | None = None,
    log_level_file: str | None = None,
) -> list[str]:
    run_vars = dict(settings.vars)
    if landing is not None:
        run_vars[settings.landing_var] = str(landing)
    run_vars.update(extra_vars or {})
    args = [
        command,
        "--project-dir", str(settings.project_dir),
        "--target-path", str(target_path),
        "--log-path", str(target_path / "logs"),
        "--vars", json.dumps(run_vars),
    ]
    if settings.profiles_dir is not None:
        args += ["--profiles-dir", str(settings.profiles_dir)]
    if settings.target:
        args += ["--target", settings.target]
    if select:
        args += ["--select", *select]
    if full_refresh:
        args.append("--full-refresh")
    if not settings.show_dbt_output:
        # Errors reach the report through run_results.json; dbt's own lines would bury it.
        args += ["--log-level", "none"]
    if log_level_file:
        # A child process's own log file: what it was doing when killed, why it failed.
        args += ["--log-level-file", log_level_file]
    return args


def invoke(
    settings: DbtSettings,
    command: str,
    *,
    warehouse: Path,
    target_path: Path,
    landing: Path | None,
    select: Sequence[str] = (),
    full_refresh: bool = False,
    extra_vars: dict[str, Any] | None = None,
) -> DbtRun:
    """Run one dbt command in this process and read its outcome from run_results.json."""
    from dbt.cli.main import dbtRunner  # imported late: `--help` stays fast

    args = build_args(
        settings, command, target_path=target_path, landing=landing,
        select=select, full_refresh=full_refresh, extra_vars=extra_vars,
    )
    target_path.mkdir(parents=True, exist_ok=True)
    run_results = target_path / "run_results.json"
    run_results.unlink(missing_ok=True)  # never read a previous run's outcome
    started = time.monotonic()
    try:
        with _env(WAREHOUSE_ENV_VAR, str(warehouse)):
            outcome = dbtRunner().invoke(args)
    finally:
        release_duckdb()
    duration = time.monotonic() - started
    error = str(outcome.exception) if outcome.exception is not None else None
    nodes = read_run_results(target_path)
    if not run_results.exists() and error is None:
        error = f"dbt {command} wrote no run_results.json in {target_path}"
    if error is None and not nodes:
        raise DbtError(
            f"dbt {command} {' '.join(select) or '(whole project)'} selected no node: "
            "the selection matched nothing"
        )
    return DbtRun(command, args, target_path, nodes, error, duration)


def release_duckdb() -> None:
    """Close the DuckDB database dbt-duckdb keeps open in this process after a run.

    dbt-duckdb (`keep_open`, the default) holds the warehouse file, and its writer lock, in a
    class attribute until the next run opens another file. A child dbt on the same file would
    then fail with "Could not set lock on file", and a checkpoint restored over the open file
    would be overwritten under a live connection. Closing also checkpoints the WAL into the
    file. A private attribute of dbt-duckdb: on another adapter, or if it moves, do nothing.
    """
    try:
        from dbt.adapters.duckdb.connections import DuckDBConnectionManager
    except ImportError:
        return
    with DuckDBConnectionManager._LOCK:
        env = getattr(DuckDBConnectionManager, "_ENV", None)
        if env is None:
            return
        close = getattr(env, "close", None)
        if callable(close):
            close()
        DuckDBConnectionManager._ENV = None


def subprocess_command(
    settings: DbtSettings,
    command: str,
    *,
    warehouse: Path,
    target_path: Path,
    landing: Path | None,
    select: Sequence[str] = (),
    full_refresh: bool = False,
    extra_vars: dict[str, Any] | None = None,
    log_level_file: str | None = "info",
) -> tuple[list[str], dict[str, str]]:
    """argv and environment to run the same dbt command in a child process (to kill it, or to
    run two at once); read its outcome with `read_run_results(target_path)`, and what it did
    (or why it failed before writing any result) from `target_path / "logs" / "dbt.log"`."""
    argv = [sys.executable, "-c", "from dbt.cli.main import cli; cli()"]
    argv += build_args(
        settings, command, target_path=target_path, landing=landing,
        select=select, full_refresh=full_refresh, extra_vars=extra_vars,
        log_level_file=log_level_file,
    )
    env = dict(os.environ)
    env[WAREHOUSE_ENV_VAR] = str(warehouse)
    return argv, env


def read_run_results(target_path: Path) -> list[NodeResult]:
    run_results = target_path / "run_results.json"
    if not run_results.exists():
        return []
    return [
        NodeResult(
            unique_id=entry["unique_id"],
            status=str(entry.get("status", "")),
            message=str(entry.get("message") or ""),
        )
        for entry in json.loads(run_results.read_text()).get("results", [])
    ]
