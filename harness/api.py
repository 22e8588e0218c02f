"""The harness's entry points from Python, re-exported by `harness` (harness/__init__.py).

`diff_tables` compares two relations of one connection the way every check does (harness.diff:
a multiset, keyed, null-safe diff computed in the warehouse). `run_checks` runs checks on a dbt
project as `rerun-safe` does: the CLI (harness.cli) parses its flags and calls `execute` below,
so the command line and Python take one path.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from harness import checks as _checks
from harness.checks.base import Check
from harness.compat import require_supported_dbt
from harness.dbt_invoke import DbtSettings
from harness.deliveries import DEFAULT_BATCH_PATTERN
from harness.diff import Side, diff_sides
from harness.engines.base import Sql
from harness.engines.duckdb import as_sql
from harness.errors import NotFound, NothingSelected, UsageError
from harness.report import overall_exit_code, selection_lines
from harness.results import CheckResult, Status, TableDiff
from harness.runner import run_checks as run_each
from harness.session import open_session

PathLike = str | os.PathLike[str]
Progress = Callable[[str], None]


@dataclass(frozen=True)
class RunOptions:
    """What every check of a run shares (the CLI's flags outside the dbt group and the checks'
    own groups); each default is here once, the CLI's flags default to these."""

    select: tuple[str, ...] = ()  # dbt selectors of the nodes judged (--select)
    deliveries: Path | None = None  # folder of delivery files (--deliveries)
    split_source: tuple[str, ...] = ()  # seeds or files cut into deliveries (--split-source)
    split_by: tuple[str, ...] = ()  # their time column(s) (--by)
    split_batches: int = 3  # how many deliveries --split-source makes (--batches)
    batch_pattern: str = DEFAULT_BATCH_PATTERN  # file-name regex of the batch key
    load_sources: bool = False  # deliveries are rows for the source() tables
    sample_size: int = 5  # differing rows shown per table
    work_dir: Path | None = None  # where the run's temporary folder goes
    keep_work_dir: bool = False  # keep warehouses and snapshots


def _silent(message: str) -> None:
    del message


def _relation(text: str) -> str:
    """A relation as SQL that can follow `from`: a query (select/with ...) in parentheses."""
    stripped = text.strip()
    words = stripped.split(None, 1)
    if words and words[0].lower() in ("select", "with"):
        return f"({stripped})"
    return stripped


def diff_tables(
    con: duckdb.DuckDBPyConnection | Sql,
    left: str,
    right: str,
    *,
    key: Sequence[str] = (),
    exclude: Sequence[str] = (),
    sample_size: int = 5,
    name: str = "",
) -> TableDiff:
    """How `right` differs from `left`, two relations of one connection: table names
    (`before`, `a.main.orders`) or queries (`select id, amount from orders`).

    Rows are a multiset: a duplicated row is a difference and NULL equals NULL. Columns are
    matched by name (`exclude` leaves some out); a column on one side only or of another type
    is a schema change. With `key`, the result also counts keys added, removed and changed, and
    which columns changed. `sample_size` differing rows are shown in `sample` (0: none)."""
    sql = as_sql(con)
    left_sql, right_sql = _relation(left), _relation(right)
    return diff_sides(
        sql,
        name or left.strip(),
        Side(left_sql, sql.columns(left_sql)),
        Side(right_sql, sql.columns(right_sql)),
        key=tuple(key),
        excluded=tuple(exclude),
        sample_size=sample_size,
    )


@dataclass
class RunResult:
    """What one run of checks found: one CheckResult per check, in the order they ran."""

    results: list[CheckResult]
    # what a --state selection judged and what it deferred (the reports' first lines)
    selection: list[str] = field(default_factory=list)
    work_dir: Path | None = None  # the run's work folder when kept (keep_work_dir), else None

    @property
    def exit_code(self) -> int:
        """`rerun-safe`'s exit status: 0 every check passed or was skipped, 1 one failed or
        exercised nothing, 2 one could not run."""
        return overall_exit_code(self.results)

    @property
    def passed(self) -> bool:
        return self.exit_code == 0

    def result(self, check: str) -> CheckResult:
        for result in self.results:
            if result.name == check:
                return result
        raise NotFound(f"{check} did not run (ran: {', '.join(r.name for r in self.results)})")


def dbt_settings_for(
    project_dir: PathLike,
    *,
    profiles_dir: PathLike | None = None,
    target: str | None = None,
    vars: Mapping[str, Any] | None = None,
    landing_var: str = "landing_path",
    show_dbt_output: bool = False,
    exclude: Sequence[str] = (),
    unit_tests: bool = False,
    state: PathLike | None = None,
    defer: bool = False,
    threads: int | None = None,
) -> DbtSettings:
    """The DbtSettings of a project as the CLI's dbt flags give them; UsageError when they do
    not describe a usable project."""
    project = Path(project_dir).resolve()
    if not (project / "dbt_project.yml").exists():
        raise UsageError(f"no dbt_project.yml in {project}")
    profiles = Path(profiles_dir) if profiles_dir is not None else None
    if profiles is None and (project / "profiles.yml").exists():
        profiles = project
    if defer and state is None:
        raise UsageError("--defer needs --state DIR")
    if state is not None and not (Path(state) / "manifest.json").exists():
        raise UsageError(f"--state {state} has no manifest.json (dbt parse --target-path DIR makes one)")
    return DbtSettings(
        project_dir=project,
        profiles_dir=profiles.resolve() if profiles else None,
        target=target,
        vars=dict(vars or {}),
        landing_var=landing_var,
        show_dbt_output=show_dbt_output,
        exclude=tuple(exclude),
        unit_tests=unit_tests,
        state=Path(state).resolve() if state is not None else None,
        defer=defer,
        threads=threads,
    )


def execute(
    settings: DbtSettings,
    selected: Sequence[Check[Any]],
    run: RunOptions,
    *,
    named: bool,
    skipped: Mapping[str, str] | None = None,
    options: Mapping[str, object] | None = None,
    progress: Progress = _silent,
    notice: Progress = _silent,
) -> RunResult:
    """Run the `selected` checks in one session, in a temporary work folder (under
    `run.work_dir`), removed afterwards unless `run.keep_work_dir` (`notice` says where it
    stays). `options`: check name -> its typed options (the others take their defaults).
    `named`: the checks were asked for by name (one that does not apply is an ERROR, not
    SKIPPED); `skipped`: check name -> why the user left it out.

    Raises UsageError (bad split arguments), harness.target.Refused (a target the harness will
    not build into) or DbtError (dbt could not list the project; NothingSelected: the selection
    matched nothing). A --state selection that matched nothing is no error: every check is
    SKIPPED (a pull request that changed no model)."""
    require_supported_dbt()  # an untested dbt-core is refused in one line, before dbt starts
    if run.work_dir is not None:
        run.work_dir.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="rerun-safe-", dir=run.work_dir))
    deliveries = run.deliveries
    ctx = None
    try:
        if run.split_source:
            from harness.split import split_sources

            if deliveries is not None or not run.split_by:
                raise UsageError("--split-source needs --by COLUMN and replaces --deliveries")
            try:
                deliveries = split_sources(
                    settings.project_dir,
                    list(run.split_source),
                    list(run.split_by),
                    run.split_batches,
                    workdir / "split_deliveries",
                )
            except (ValueError, duckdb.Error) as exc:
                raise UsageError(str(exc)) from exc
        try:
            ctx = open_session(
                settings,
                workdir,
                select=run.select,
                deliveries=deliveries.resolve() if deliveries else None,
                batch_pattern=run.batch_pattern,
                sample_size=run.sample_size,
                progress=progress,
                load_sources=run.load_sources,
            )
        except NothingSelected as exc:
            if not any("state:" in selector for selector in run.select):
                raise
            # A pull request that changed no model: nothing to check is not an error.
            reason = f"no node changed: {exc}"
            results = [CheckResult(name=c.name, status=Status.SKIPPED, reason=reason) for c in selected]
        else:
            results = run_each(selected, ctx, options=options, skipped=skipped, named=named)
    finally:
        if ctx is not None:  # a server's scratch schemas (harness.engines)
            ctx.store.close(keep=run.keep_work_dir)
            if run.keep_work_dir and ctx.store.adapter != "duckdb":
                notice(f"scratch schemas kept: {getattr(ctx.store, 'prefix', '')}_*")
        if run.keep_work_dir:
            notice(f"work folder kept: {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return RunResult(results=results, selection=selection_lines(ctx), work_dir=workdir if run.keep_work_dir else None)


def run_checks(
    project_dir: PathLike = ".",
    checks: Sequence[str] | None = None,
    *,
    deliveries: PathLike | None = None,
    select: Sequence[str] = (),
    exclude: Sequence[str] = (),
    profiles_dir: PathLike | None = None,
    target: str | None = None,
    vars: Mapping[str, Any] | None = None,
    load_sources: bool = False,
    batch_pattern: str = RunOptions.batch_pattern,
    sample_size: int = RunOptions.sample_size,
    options: Mapping[str, Any] | None = None,
    work_dir: PathLike | None = None,
    keep_work_dir: bool = False,
    progress: Progress | None = None,
) -> RunResult:
    """Run checks on a dbt project, as `rerun-safe <check>` (or `all`) does, and return what
    they found; nothing is printed and no report written (harness.report renders them).

    `checks`: names (`["keys", "idempotency"]`), each run as if named on the command line (one
    that does not apply is an ERROR); None: every check, as `rerun-safe all` (one that does not
    apply is SKIPPED). `options`: the checks' own options by their flag's name with
    underscores (`{"per_model": True}` for `--per-model`), made into each check's typed options
    (`Check.options_from_mapping`); the others take their defaults, and a name no selected
    check takes is a UsageError. `progress` receives the progress lines `rerun-safe` prints on
    stderr. Raises UsageError, harness.Refused or harness.DbtError as `rerun-safe` exits 2 for
    them."""
    known = _checks.by_name()
    unknown = [name for name in checks or () if name not in known]
    if unknown:
        raise UsageError(f"unknown check(s) {', '.join(unknown)}; the checks: {', '.join(known)}")
    selected = list(_checks.CHECKS) if checks is None else [known[name] for name in checks]
    given = dict(options or {})
    taken = frozenset().union(*(check.option_names() for check in selected))
    foreign = sorted(name for name in given if name not in taken)
    if foreign:
        raise UsageError(f"no check of {', '.join(c.name for c in selected)} takes the option(s) {', '.join(foreign)}")
    settings = dbt_settings_for(project_dir, profiles_dir=profiles_dir, target=target, vars=vars, exclude=exclude)
    run = RunOptions(
        select=tuple(select),
        deliveries=Path(deliveries) if deliveries is not None else None,
        batch_pattern=batch_pattern,
        load_sources=load_sources,
        sample_size=sample_size,
        work_dir=Path(work_dir) if work_dir is not None else None,
        keep_work_dir=keep_work_dir,
    )
    return execute(
        settings,
        selected,
        run,
        named=checks is not None,
        options={check.name: check.options_from_mapping(given) for check in selected},
        progress=progress or _silent,
    )
