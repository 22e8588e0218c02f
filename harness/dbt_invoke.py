"""Run dbt in-process (dbtRunner) against a chosen warehouse file and landing folder."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import DbtError, InputError
from harness.target import WAREHOUSE_ENV, ScratchProfile

# The demo builds the user's own warehouse (make demo): its profile reads this env var.
WAREHOUSE_ENV_VAR = "DBT_DUCKDB_PATH"
# Statuses in run_results.json: a node that could not be built, a data test that failed (the
# project's own finding, not the check's), a node dbt skipped (after one of those).
ERROR_STATUSES = {"error", "runtime error"}
TEST_FAILURE_STATUSES = {"fail"}
SKIPPED_STATUSES = {"skipped"}


@dataclass(frozen=True)
class DbtSettings:
    """How to call dbt for one project: the dbt-style flags of the harness CLI."""

    project_dir: Path
    profiles_dir: Path | None = None
    target: str | None = None
    vars: dict[str, Any] = field(default_factory=dict)
    landing_var: str = "landing_path"
    show_dbt_output: bool = False
    # The harness's own profile (harness.target): every check builds through it, into scratch
    # locations. None only for the demo, which builds the warehouse it is given.
    scratch: ScratchProfile | None = None
    exclude: tuple[str, ...] = ()
    # dbt unit tests in the checks' builds (those through `scratch`; the demo's builds run them,
    # as dbt does): off by default. They read their fixtures, never the warehouse, so they give
    # the same result in every build of every lane; the project's own CI runs them once. (On
    # Spark they cost about 7 s a build.)
    unit_tests: bool = False
    state: Path | None = None  # --state DIR: a manifest to select state:modified against
    defer: bool = False
    threads: int | None = None


@dataclass(frozen=True)
class NodeResult:
    unique_id: str
    status: str
    message: str

    def line(self) -> str:
        return f"{self.unique_id}: {self.status}: {self.message}".rstrip(": ")


def _is_test(node: NodeResult) -> bool:
    """A data test: one that errors (its SQL fails) is reported like one that fails."""
    return node.unique_id.startswith("test.")


@dataclass
class DbtRun:
    command: str
    args: list[str]
    target_path: Path
    nodes: list[NodeResult]
    error: str | None
    duration_s: float
    log_excerpt: str = ""  # dbt's own error events, when the run failed without node errors
    # (the lane's schema, the target's schema) on a server: how its manifest names schemas
    rename: tuple[str, str] | None = None

    @property
    def problems(self) -> list[str]:
        """What stopped the build: nodes in error, or dbt itself (with dbt's own message).
        A failing data test and the nodes dbt skipped after it are not problems of the
        build: see `test_failures` and `skipped`."""
        found = [node.line() for node in self.nodes if node.status in ERROR_STATUSES and not _is_test(node)]
        if self.error:
            found.insert(
                0,
                self.error
                + (f" (dbt: {self.log_excerpt})" if self.log_excerpt and self.log_excerpt not in self.error else ""),
            )
        return found

    @property
    def test_failures(self) -> list[str]:
        return [
            node.line()
            for node in self.nodes
            if node.status in TEST_FAILURE_STATUSES or (node.status in ERROR_STATUSES and _is_test(node))
        ]

    @property
    def skipped(self) -> list[str]:
        return [node.unique_id for node in self.nodes if node.status in SKIPPED_STATUSES]

    def skip_causes(self) -> dict[str, str]:
        """Each node dbt skipped -> dbt's reason: the failed or erroring node upstream of it
        that caused the skip, with its status and message (from the run's manifest)."""
        skipped = self.skipped
        if not skipped:
            return {}
        failed = {node.unique_id: node for node in self.nodes if node.status in ERROR_STATUSES | TEST_FAILURE_STATUSES}
        try:
            manifest = json.loads((self.target_path / "manifest.json").read_text())
        except (OSError, ValueError):
            manifest = {}
        parents: dict[str, list[str]] = manifest.get("parent_map") or {}
        children: dict[str, list[str]] = manifest.get("child_map") or {}
        causes: dict[str, str] = {}
        for uid in skipped:
            # a model's ancestors, and the tests on them (dbt build skips what follows a failing test)
            queue, seen, found = list(parents.get(uid, [])), set(), ""
            while queue and not found:
                node = queue.pop(0)
                if node in seen:
                    continue
                seen.add(node)
                for candidate in [node, *children.get(node, [])]:
                    if candidate in failed and candidate != uid:
                        found = candidate
                        break
                queue += parents.get(node, [])
            if found:
                cause = failed[found]
                what = "failed" if cause.status in TEST_FAILURE_STATUSES else cause.status
                causes[uid] = f"skipped by dbt: upstream {found} {what}" + (
                    f": {cause.message}" if cause.message else ""
                )
            else:
                causes[uid] = "skipped by dbt" + (f": {self.error}" if self.error else "")
        return causes

    @property
    def built(self) -> set[str]:
        """Nodes the run built or ran without error (models, seeds, snapshots, tests)."""
        return {node.unique_id for node in self.nodes if node.status not in ERROR_STATUSES | SKIPPED_STATUSES}

    @property
    def ok(self) -> bool:
        return not self.problems


@contextlib.contextmanager
def _env(values: dict[str, str]) -> Iterator[None]:
    previous = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@dataclass
class Invocation:
    """What one in-process dbt command did."""

    success: bool  # dbt's own verdict: false on an error, and on a failing data test too
    error: str | None  # dbt's exception: it could not run (a compilation error, no connection)
    # this command's results: from its run_results.json, or with write_json=False from dbtRunner's
    # in-memory result (none if dbt stopped before running any node)
    nodes: list[NodeResult]
    wrote_results: bool  # whether there were results to read (the file, or the in-memory result)
    duration_s: float


def run_dbt(
    args: Sequence[str],
    *,
    target_path: Path,
    env: dict[str, str] | None = None,
    write_json: bool = True,
) -> Invocation:
    """Run one dbt command (`args`, which must write to `target_path`) in this process with
    `env` set, and read its outcome (from run_results.json by default). The one dbtRunner call that the
    harness and this repository's tests share.

    A previous run_results.json is removed first, so an outcome is never read twice; after
    the run the DuckDB database dbt-duckdb keeps open is closed (release_duckdb), so the
    caller, a child process or the next run can open the file.

    `write_json=False` passes `--no-write-json`: dbt then writes neither manifest.json nor
    run_results.json (writing the manifest twice was about 0.75 s of a 2.6 s `dbt run` of
    this project with nothing new), and the outcome is read from the result dbtRunner returns.
    For callers that read no artifact but the outcome (the tests' pipelines)."""
    from dbt.cli.main import dbtRunner  # imported late: `--help` stays fast

    target_path.mkdir(parents=True, exist_ok=True)
    run_results = target_path / "run_results.json"
    run_results.unlink(missing_ok=True)
    argv = list(args) if write_json else [*args, "--no-write-json"]
    started = time.monotonic()
    try:
        with _env(env or {}):
            outcome = dbtRunner().invoke(argv)
    finally:
        release_duckdb()
    if write_json:
        nodes, wrote = read_run_results(target_path), run_results.exists()
    else:
        results = getattr(outcome.result, "results", None)
        nodes, wrote = ([] if results is None else [_node_result(result) for result in results]), results is not None
    return Invocation(
        success=bool(outcome.success),
        error=str(outcome.exception).strip() if outcome.exception is not None else None,
        nodes=nodes,
        wrote_results=wrote,
        duration_s=time.monotonic() - started,
    )


def _node_result(result: Any) -> NodeResult:
    """A NodeResult from one of dbt's in-memory results, as run_results.json would give it."""
    status = getattr(result.status, "value", result.status)
    node = getattr(result, "node", None)  # run-operation's results carry unique_id themselves
    unique_id = node.unique_id if node is not None else result.unique_id
    return NodeResult(unique_id=unique_id, status=str(status or ""), message=str(result.message or ""))


@functools.cache
def dbt_has_unit_tests() -> bool:
    """dbt-core 1.8 added unit tests; an older dbt refuses the selector `resource_type:unit_test`."""
    # dbt.node_types re-exports NodeType on every dbt version; its home (dbt.artifacts) is 1.8+.
    from dbt.node_types import NodeType  # type: ignore[attr-defined]

    return "unit_test" in {node_type.value for node_type in NodeType}


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
        "--project-dir",
        str(settings.project_dir),
        "--target-path",
        str(target_path),
        "--log-path",
        str(target_path / "logs"),
        "--vars",
        json.dumps(run_vars),
    ]
    if settings.scratch is not None:
        # The harness's own profile: one target, its location a scratch file (harness.target).
        args += ["--profiles-dir", str(settings.scratch.profiles_dir)]
    else:
        if settings.profiles_dir is not None:
            args += ["--profiles-dir", str(settings.profiles_dir)]
        if settings.target:
            args += ["--target", settings.target]
        if settings.threads is not None:
            args += ["--threads", str(settings.threads)]
    if select:
        args += ["--select", *select]
    excluded = list(settings.exclude) if command != "parse" else []
    if (
        command in ("build", "test")
        and settings.scratch is not None
        and not settings.unit_tests
        and dbt_has_unit_tests()
    ):
        excluded.append("resource_type:unit_test")
    if excluded:
        args += ["--exclude", *excluded]
    if settings.state is not None and command != "parse":
        args += ["--state", str(settings.state)]
        if settings.defer and command in ("build", "run", "test", "seed", "snapshot"):
            args.append("--defer")
        if settings.defer and command in ("build", "test"):
            # A test that also reads a node the selection left out (a `relationships` test to an
            # unchanged model) would read it from the base state, which the harness's scratch
            # warehouse never built: it errors, and is no finding of the change. dbt's `cautious`
            # selection runs only the tests whose every parent is selected.
            args += ["--indirect-selection", "cautious"]
    if full_refresh:
        args.append("--full-refresh")
    if not settings.show_dbt_output:
        # Errors reach the report through run_results.json; dbt's own lines would bury it.
        args += ["--log-level", "none"]
    if log_level_file:
        # A child process's own log file: what it was doing when killed, why it failed.
        args += ["--log-level-file", log_level_file]
    # The log file is read as dbt's structured events (harness.childlog), never as its text.
    # A flag on the command line beats dbt's env vars (DBT_LOG_FORMAT_FILE, and DBT_LOG_FORMAT,
    # which the file's format follows only when --log-format-file is not given) and the
    # project's `flags:`, so a user's own log settings cannot turn the file back into text.
    args += ["--log-format-file", "json"]
    return args


def invoke(
    settings: DbtSettings,
    command: str,
    *,
    warehouse: Path | None = None,
    target_path: Path,
    landing: Path | None,
    select: Sequence[str] = (),
    full_refresh: bool = False,
    extra_vars: dict[str, Any] | None = None,
    location: dict[str, str] | None = None,
) -> DbtRun:
    """Run one dbt command of a check in this process (run_dbt) with the harness's flags.
    Where it builds: `location` (env vars from a harness.engines place), or the `warehouse`
    file."""
    args = build_args(
        settings,
        command,
        target_path=target_path,
        landing=landing,
        select=select,
        full_refresh=full_refresh,
        extra_vars=extra_vars,
    )
    log_file = target_path / "logs" / "dbt.log"
    log_file.unlink(missing_ok=True)  # dbt appends; keep this run's lines only
    outcome = run_dbt(args, target_path=target_path, env=location_env(settings, warehouse, location))
    error, nodes, duration = outcome.error, outcome.nodes, outcome.duration_s
    if not outcome.wrote_results and error is None:
        error = f"dbt {command} wrote no run_results.json in {target_path}"
    if error is None and not nodes:
        raise DbtError(
            f"dbt {command} {' '.join(select) or '(whole project)'} selected no node: the selection matched nothing"
        )
    run = DbtRun(command, args, target_path, nodes, error, duration)
    if error is not None:
        from harness.childlog import error_message

        run.log_excerpt = error_message(log_file)[:1500]
    return run


def location_env(settings: DbtSettings, warehouse: Path | None, location: dict[str, str] | None) -> dict[str, str]:
    if location is not None:
        return dict(location)
    if warehouse is None:
        raise InputError("dbt needs a warehouse file or a location")
    return {warehouse_env(settings): str(warehouse)}


def warehouse_env(settings: DbtSettings) -> str:
    """The env var that carries the warehouse file: the harness's own profile reads
    WAREHOUSE_ENV; the demo's (the user's) profile reads DBT_DUCKDB_PATH."""
    return WAREHOUSE_ENV if settings.scratch is not None else WAREHOUSE_ENV_VAR


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
    warehouse: Path | None = None,
    target_path: Path,
    landing: Path | None,
    select: Sequence[str] = (),
    full_refresh: bool = False,
    extra_vars: dict[str, Any] | None = None,
    log_level_file: str | None = "info",
    location: dict[str, str] | None = None,
) -> tuple[list[str], dict[str, str]]:
    """argv and environment to run the same dbt command in a child process (to kill it, or to
    run two at once); read its outcome with `read_run_results(target_path)`, and what it did
    (or why it failed before writing any result) from `target_path / "logs" / "dbt.log"`, dbt's
    JSON log (harness.childlog)."""
    argv = [sys.executable, "-c", "from dbt.cli.main import cli; cli()"]
    argv += build_args(
        settings,
        command,
        target_path=target_path,
        landing=landing,
        select=select,
        full_refresh=full_refresh,
        extra_vars=extra_vars,
        log_level_file=log_level_file,
    )
    env = dict(os.environ)
    env.update(location_env(settings, warehouse, location))
    return argv, env


def read_run_results(target_path: Path) -> list[NodeResult]:
    run_results = target_path / "run_results.json"
    if not run_results.exists():
        return []
    try:
        results = json.loads(run_results.read_text()).get("results", [])
    except json.JSONDecodeError:
        # a child dbt killed while it wrote the file (the crash check's kill points) leaves it
        # empty or cut short: that build reported nothing
        return []
    return [
        NodeResult(
            unique_id=entry["unique_id"],
            status=str(entry.get("status", "")),
            message=str(entry.get("message") or ""),
        )
        for entry in results
    ]


def list_nodes(
    settings: DbtSettings,
    *,
    target_path: Path,
    warehouse: Path | None = None,
    select: Sequence[str] = (),
    resource_types: Sequence[str] = ("model", "seed", "snapshot"),
    location: dict[str, str] | None = None,
) -> list[str]:
    """unique_ids of the nodes `dbt ls` selects (with the settings' --exclude and --state).
    `dbt ls` parses the project and writes manifest.json; it connects to no warehouse."""
    from dbt.cli.main import dbtRunner

    args = build_args(settings, "ls", target_path=target_path, landing=None, select=select)
    for kind in resource_types:
        args += ["--resource-type", kind]
    args += ["--output", "json", "--output-keys", "unique_id"]
    target_path.mkdir(parents=True, exist_ok=True)
    log_file = target_path / "logs" / "dbt.log"
    try:
        with _env(location_env(settings, warehouse, location)):
            outcome = dbtRunner().invoke(args)
    finally:
        release_duckdb()
    if not outcome.success:
        from harness.childlog import error_message

        detail = str(outcome.exception).strip() if outcome.exception else error_message(log_file)
        raise DbtError(f"dbt could not parse or select the project: {detail or 'no message'}")
    ids = []
    listed = outcome.result if isinstance(outcome.result, list) else []  # `dbt ls`: one JSON line per node
    for line in listed:
        try:
            ids.append(str(json.loads(line)["unique_id"]))
        except (ValueError, KeyError, TypeError):
            continue
    return ids
