"""A check's private folder: its warehouses, landing folders, dbt target paths, snapshots."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.dbt_invoke import DbtRun, DbtSettings, invoke, read_run_results, subprocess_command, warehouse_env
from harness.deliveries import land
from harness.engines.base import Snapshot, Store
from harness.engines.duckdb import DuckDBStore
from harness.keys import KeyCheck, check_keys
from harness.project import Project, load_manifest
from harness.sources import SourceLoader

Progress = Callable[[str], None]

# What a lane's landing folder reads as in a snapshot: a value holding a landed file's path
# (DuckDB's read_csv(..., filename = true)) compares equal across lanes.
LANDING_PLACEHOLDER = "<landing>"


@dataclass
class Spawned:
    command: str
    argv: list[str]
    process: subprocess.Popen[bytes]
    target_path: Path
    started: float
    output: Path  # the child's stdout and stderr

    @property
    def log_file(self) -> Path:
        """dbt's own log file of this child (JSON events, info level): node starts and ends,
        errors (read with harness.childlog)."""
        return self.target_path / "logs" / "dbt.log"


@dataclass
class Lane:
    """One warehouse with its own landing folder: an independent line of builds."""

    root: Path
    settings: DbtSettings
    progress: Progress
    runs: list[DbtRun] = field(default_factory=list)
    spawns: int = 0
    dbt_calls: int = 0
    judged: frozenset[str] | None = None  # nodes the check judges (None: all)
    project: Project | None = None  # from the lane's first run's manifest
    key_checks: list[KeyCheck] = field(default_factory=list)
    # --load-sources: deliveries are rows appended to source tables in the warehouse, not
    # files landed in a folder
    loader: SourceLoader | None = None
    rows_loaded: int = 0
    # where the lane's builds live (harness.engines): a scratch file on DuckDB (the default), a
    # scratch schema on a server
    store: Store = field(default_factory=DuckDBStore)
    place: str = ""
    # env vars every dbt call of this lane adds (the determinism check's engine settings)
    extra_env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.place:
            self.place = self.store.place(self.root)

    @property
    def location(self) -> dict[str, str]:
        """The env vars that point the harness's profile at this lane (a DuckDB lane built
        without the harness's profile, as in tests, uses the user's DBT_DUCKDB_PATH)."""
        if self.store.adapter == "duckdb":
            return {**self.store.env(self.place), warehouse_env(self.settings): self.place, **self.extra_env}
        return {**self.store.env(self.place), **self.extra_env}

    @property
    def rename(self) -> tuple[str, str] | None:
        return self.store.schema_map(self.place)

    def deliver(self, files: Sequence[Path] | Any) -> int:
        """Deliver files: land them (landing folder mode), or append their rows to the
        project's source tables (--load-sources). Returns how many files were delivered."""
        files = list(files)
        if self.loader is not None:
            self.rows_loaded += self.store.load_sources(self.place, self.loader.plan(files))
        else:
            land(files, self.landing)
        return len(files)

    def reset_deliveries(self, before: Sequence[Path], new: Sequence[Path]) -> None:
        """After `restore` of the checkpoint taken once `before` was delivered: deliver `new`.
        Source tables are part of the warehouse (the checkpoint holds `before`'s rows); a
        landing folder is not, so it is emptied and gets both."""
        if self.loader is not None:
            self.deliver(new)
        else:
            self.reset_landing([*before, *new])

    @property
    def warehouse(self) -> Path:
        """The lane's DuckDB file (DuckDB lanes only)."""
        if self.store.adapter != "duckdb":
            raise AttributeError(f"a {self.store.adapter} lane has no warehouse file: its place is {self.place}")
        return Path(self.place)

    @property
    def landing(self) -> Path:
        return self.root / "landing"

    def dbt(
        self,
        command: str = "build",
        *,
        select: Sequence[str] = (),
        full_refresh: bool = False,
        uses_landing: bool = True,
        extra_vars: dict[str, Any] | None = None,
        record: bool = True,
        target_name: str = "target",
        keys: bool | None = None,
    ) -> DbtRun:
        """Run dbt in this process. `extra_vars` are added to the lane's vars (give such runs
        their own `target_name`, so partial parsing still applies to both kinds of runs);
        `record=False` for a run that is meant to fail (a crash), so `problems()` skips it.
        After a build or run, every grain of the judged models it built is asserted unique
        (`keys`, default: `record`)."""
        self.dbt_calls += 1
        number = self.dbt_calls
        # One dbt target path per lane: the vars stay the same within a lane, so dbt's partial
        # parsing skips the re-parse (about 2.4 s -> 0.9 s per build on a tiny project). Each
        # run's artifacts are then archived to a folder of their own.
        target = self.root / target_name
        what = f"dbt {command}" + (" --full-refresh" if full_refresh else "")
        if select:
            what += " -s " + " ".join(select)
        if extra_vars:
            what += " --vars " + json.dumps(extra_vars)
        self.progress(f"{self.root.name}: {what} ...")
        run = invoke(
            self.settings,
            command,
            location=self.location,
            target_path=target,
            landing=self.landing if uses_landing and self.loader is None else None,
            select=select,
            full_refresh=full_refresh,
            extra_vars=extra_vars,
        )
        run = archive_artifacts(run, self.root / "runs" / f"{number:02d}_{command}")
        run.rename = self.rename
        if record:
            self.runs.append(run)
        verdict = "ok" if run.ok else f"{len(run.problems)} problem(s)"
        self.progress(f"{self.root.name}: {what}: {verdict} in {run.duration_s:.1f}s")
        if (record if keys is None else keys) and command in ("build", "run") and run.nodes:
            self.check_keys(run, f"{self.root.name} run {number} (dbt {what[4:]})")
        return run

    def check_keys(self, run: DbtRun, when: str) -> KeyCheck:
        if self.project is None and (run.target_path / "manifest.json").exists():
            self.project = load_manifest(run.target_path, self.rename)
        built = run.built if self.judged is None else run.built & self.judged
        checked = check_keys(self.store, self.place, self.project.models if self.project else (), built, when)
        self.key_checks.append(checked)
        return checked

    def test_failures(self) -> list[str]:
        return sorted({failure for run in self.runs for failure in run.test_failures})

    def skipped_nodes(self) -> list[str]:
        return sorted({node for run in self.runs for node in run.skipped})

    def spawn(
        self,
        command: str = "build",
        *,
        select: Sequence[str] = (),
        full_refresh: bool = False,
        target_name: str | None = None,
    ) -> Spawned:
        """Start dbt in a child process (to kill it mid-build, or to run two at once). Each
        spawn gets its own target path unless `target_name` names one to reuse (children run
        one after another can share one, so partial parsing applies); finish it with
        `collect`. The child writes dbt's JSON log file at info level (`Spawned.log_file`)."""
        self.spawns += 1
        number = self.spawns  # not len(runs): two spawns may be running at once
        target = self.root / (target_name or f"target_spawn_{number:02d}_{command}")
        (target / "run_results.json").unlink(missing_ok=True)  # never read an older outcome
        log_file = target / "logs" / "dbt.log"
        log_file.unlink(missing_ok=True)  # dbt appends; keep one child's lines per file
        argv, env = subprocess_command(
            self.settings,
            command,
            location=self.location,
            target_path=target,
            landing=self.landing if self.loader is None else None,
            select=select,
            full_refresh=full_refresh,
        )
        self.progress(f"{self.root.name}: dbt {command} (child process {number}) ...")
        output = self.root / f"spawn_{number:02d}.log"
        with output.open("w") as sink:
            process = subprocess.Popen(argv, env=env, stdout=sink, stderr=subprocess.STDOUT)
        return Spawned(
            command=command,
            argv=argv,
            process=process,
            target_path=target,
            started=time.monotonic(),
            output=output,
        )

    def collect(self, spawned: Spawned, timeout: float | None = None, record: bool = True) -> DbtRun:
        """Wait for a spawned dbt; a killed one is a run with an error. Pass record=False for
        a run killed on purpose, so `problems()` does not count it against the check."""
        returncode = spawned.process.wait(timeout=timeout)
        error = None if returncode in (0, 1) else f"dbt {spawned.command} exited with {returncode}"
        run = DbtRun(
            command=spawned.command,
            args=spawned.argv,
            target_path=spawned.target_path,
            nodes=read_run_results(spawned.target_path),
            error=error,
            duration_s=time.monotonic() - spawned.started,
            rename=self.rename,
        )
        if record:
            self.runs.append(run)
        return run

    def snapshot(self, label: str, project: Project | None = None) -> Snapshot:
        """Copy the warehouse; views that are models of `project` are frozen into tables (all
        views when no project is given)."""
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", label)
        freeze = None if project is None else set(project.by_relation())
        snapshot = self.store.snapshot(self.place, self.root / "snapshots" / slug, label, freeze)
        roots = dict.fromkeys(str(path) for path in (self.landing, self.landing.resolve()))
        self.store.unroot(snapshot, list(roots), LANDING_PLACEHOLDER)
        return snapshot

    def save_checkpoint(self, name: str) -> Any:
        """A copy of the lane's warehouse to `restore` later: the state between two builds, so
        a later scenario can start there without rebuilding the earlier batches."""
        return self.store.save_checkpoint(self.place, self.root / "checkpoints" / name)

    def restore(self, checkpoint: Any) -> None:
        """Make the warehouse the one saved in `checkpoint` (None: no warehouse at all)."""
        self.store.restore(self.place, checkpoint)

    def reset_landing(self, files: Sequence[Path]) -> None:
        """Empty the landing folder, then land `files` (names and mtimes kept)."""
        if self.landing.exists():
            shutil.rmtree(self.landing)
        land(files, self.landing)

    def problems(self) -> list[str]:
        return [
            f"{self.root.name} run {i} (dbt {run.command}): {problem}"
            for i, run in enumerate(self.runs, start=1)
            for problem in run.problems
        ]


BUILT_STATUSES = frozenset({"success", "pass", "warn", "fail"})
JUDGED_NODES = ("model.", "snapshot.")


def cannot_start(run: DbtRun) -> str:
    """dbt's error when a build built no model: dbt itself failed (parsing, a missing file, a
    profile or an extension it could not load) or every model errored or was skipped (a seed
    that loaded does not count: nothing is left to judge). "" when a model was built."""
    if any(node.status in BUILT_STATUSES for node in run.nodes if node.unique_id.startswith(JUDGED_NODES)):
        return ""
    problems = run.problems
    return problems[0] if problems else ""


ARTIFACTS = ("run_results.json", "manifest.json")


def archive_artifacts(run: DbtRun, archive: Path) -> DbtRun:
    """Copy a run's artifacts out of the shared target path; the run then points at the copy."""
    archive.mkdir(parents=True, exist_ok=True)
    for name in ARTIFACTS:
        source = run.target_path / name
        if source.exists():
            shutil.copy2(source, archive / name)
    return dataclasses.replace(run, target_path=archive)
