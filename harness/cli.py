"""`rerun-safe <check>` / `python -m harness <check>`: prove that re-running a dbt project is safe.

Exit status: 0 when every check passed, 1 when a check failed, 2 when a check could not run
(or the command line was wrong).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from harness import checks, init_ci
from harness._version import __version__
from harness.api import RunOptions, dbt_settings_for, execute
from harness.checks.base import Check
from harness.dbt_invoke import DbtSettings
from harness.errors import DbtError, Refused, UsageError
from harness.report import overall_exit_code, render_terminal, write_junit, write_markdown


def parse_vars(text: str | None) -> dict[str, Any]:
    """`--vars` the way dbt reads it: a YAML (or JSON) mapping."""
    if not text:
        return {}
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise argparse.ArgumentTypeError(f"--vars is not valid YAML/JSON: {exc}") from exc
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("--vars must be a YAML/JSON mapping, e.g. '{key: value}'")
    return value


def dbt_arguments() -> argparse.ArgumentParser:
    """The dbt flags (`--project-dir`, `--target`, `--vars`, ...) as an argparse parent, for
    the checks and for a project's own tools that drive dbt the same way (`dbt_settings`)."""
    common = argparse.ArgumentParser(add_help=False)
    dbt = common.add_argument_group("dbt")
    dbt.add_argument("--project-dir", type=Path, default=Path("."), help="dbt project folder (default: .)")
    dbt.add_argument(
        "--profiles-dir",
        type=Path,
        default=None,
        help="folder with profiles.yml (default: the project dir if it has one, else dbt's default)",
    )
    dbt.add_argument("--target", "-t", default=None, help="dbt target")
    dbt.add_argument(
        "--select",
        "-s",
        nargs="+",
        default=[],
        metavar="SELECTOR",
        help="dbt selection of the nodes to judge (default: the whole project); every build "
        "also builds their parents, so a selection of one model works",
    )
    dbt.add_argument("--exclude", nargs="+", default=[], metavar="SELECTOR", help="dbt --exclude")
    dbt.add_argument(
        "--unit-tests",
        action="store_true",
        help="run the project's dbt unit tests in every build of the checks too (default: not run; "
        "they read their fixtures, never the warehouse, so no check can find anything in them)",
    )
    dbt.add_argument("--threads", type=int, default=None, metavar="N", help="dbt threads")
    dbt.add_argument(
        "--state",
        type=Path,
        default=None,
        metavar="DIR",
        help="folder of a manifest.json (e.g. main's) for `--select state:modified+`",
    )
    dbt.add_argument(
        "--defer",
        action="store_true",
        help="passed to dbt with --state; the harness still builds the parents of the "
        "selection into its scratch warehouse from the deliveries, so nothing is read from "
        "the state's warehouse",
    )
    dbt.add_argument("--vars", type=parse_vars, default={}, help="dbt vars, YAML or JSON, like dbt")
    dbt.add_argument(
        "--landing-var",
        default="landing_path",
        help="dbt var naming the landing folder (default: landing_path)",
    )
    dbt.add_argument("--show-dbt-output", action="store_true", help="show dbt's own log lines")
    return common


def _common_arguments() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False, parents=[dbt_arguments()])
    data = common.add_argument_group("deliveries")
    data.add_argument("--deliveries", type=Path, default=None, metavar="DIR", help="folder of CSV delivery files")
    data.add_argument(
        "--load-sources",
        action="store_true",
        help="deliveries are batches of rows for the project's source() tables: the harness "
        "appends each file to its table before each build (file 2026-11-01_raw_orders.csv or "
        "raw_orders/batch=2026-11-01/*.parquet -> source table raw_orders), like an EL tool",
    )
    data.add_argument(
        "--split-source",
        nargs="+",
        default=None,
        metavar="SEED_OR_FILE",
        help="deliveries from data the project has: each seed of the project (by its exact name) or "
        "CSV/Parquet file (a literal path, never a pattern) cut into --batches deliveries by --by, "
        "written as <name>/batch=NNN/part-0.csv, .parquet for a Parquet file (with --load-sources: "
        "rows for the source table <name>); instead of --deliveries",
    )
    data.add_argument(
        "--by",
        nargs="+",
        default=None,
        metavar="COLUMN",
        help="--split-source: the time column that orders the rows into batches (one, or one per source)",
    )
    data.add_argument(
        "--batches",
        type=int,
        default=RunOptions.split_batches,
        metavar="N",
        help=f"--split-source: how many deliveries, 1 to 10000 (default: {RunOptions.split_batches})",
    )
    data.add_argument(
        "--batch-pattern",
        default=RunOptions.batch_pattern,
        metavar="REGEX",
        help=f"file-name regex whose first group is the batch key (default: {RunOptions.batch_pattern})",
    )
    out = common.add_argument_group("output")
    out.add_argument("--junit", type=Path, default=None, metavar="PATH", help="write a JUnit XML report")
    out.add_argument("--summary", type=Path, default=None, metavar="PATH", help="write a Markdown summary")
    out.add_argument(
        "--sample-size",
        type=int,
        default=RunOptions.sample_size,
        metavar="N",
        help="differing rows shown per table",
    )
    out.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    which = common.add_argument_group("which checks (all)")
    which.add_argument(
        "--skip",
        nargs="+",
        default=[],
        metavar="CHECK",
        choices=[c.name for c in checks.CHECKS],
        help="leave these checks out (listed as skipped, never failing)",
    )
    which.add_argument(
        "--only",
        nargs="+",
        default=[],
        metavar="CHECK",
        choices=[c.name for c in checks.CHECKS],
        help="run only these checks (the others are listed as skipped)",
    )
    work = common.add_argument_group("work folder")
    work.add_argument("--work-dir", type=Path, default=None, metavar="DIR", help="where temp folders go")
    work.add_argument("--keep-work-dir", action="store_true", help="keep warehouses and snapshots")
    return common


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rerun-safe",
        description="Prove that re-running a dbt project is safe: idempotency, convergence, "
        "replay, batch-split invariance, lateness.",
        epilog="Exit status: 0 all checks passed or skipped, 1 a check failed or exercised nothing, "
        "2 a check could not run.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="<command>")
    common = _common_arguments()
    for check in checks.CHECKS:
        sub = commands.add_parser(check.name, parents=[common], help=check.help, description=check.help)
        check.add_arguments(sub.add_argument_group(check.name))
    every = commands.add_parser(
        "all",
        parents=[common],
        help="every check above, one report",
        description="Run " + ", ".join(c.name for c in checks.CHECKS) + " and report once.",
    )
    for check in checks.CHECKS:
        check.add_arguments(every.add_argument_group(check.name))
    init_ci.add_parser(commands)
    return parser


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


def _progress(quiet: bool, started: float) -> Callable[[str], None]:
    def report(message: str) -> None:
        if not quiet:
            print(f"[{time.monotonic() - started:7.1f}s] {message}", file=sys.stderr, flush=True)

    return report


def dbt_settings(args: argparse.Namespace) -> DbtSettings | None:
    """The `DbtSettings` of parsed `dbt_arguments()`; None (after saying why on stderr) when
    they do not describe a usable project."""
    try:
        return dbt_settings_for(
            args.project_dir,
            profiles_dir=args.profiles_dir,
            target=args.target,
            vars=args.vars,
            landing_var=args.landing_var,
            show_dbt_output=args.show_dbt_output,
            exclude=tuple(getattr(args, "exclude", ()) or ()),
            unit_tests=bool(getattr(args, "unit_tests", False)),
            state=getattr(args, "state", None),
            defer=bool(getattr(args, "defer", False)),
            threads=getattr(args, "threads", None),
        )
    except UsageError as exc:
        print(f"rerun-safe: {exc}", file=sys.stderr)
        return None


def run_options(args: argparse.Namespace) -> RunOptions:
    """The options every check of the run shares, from the parsed command line."""
    return RunOptions(
        select=tuple(args.select),
        deliveries=args.deliveries,
        split_source=tuple(args.split_source or ()),
        split_by=tuple(args.by or ()),
        split_batches=args.batches,
        batch_pattern=args.batch_pattern,
        load_sources=args.load_sources,
        sample_size=args.sample_size,
        work_dir=args.work_dir,
        keep_work_dir=args.keep_work_dir,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.command == "init-ci":
        return init_ci.run(args)
    settings = dbt_settings(args)
    if settings is None:
        return 2
    named = args.command != "all"
    selected: list[Check[Any]] = list(checks.CHECKS) if not named else [checks.by_name()[args.command]]
    needing = [check.name for check in selected if check.needs_deliveries]
    if named and needing and args.deliveries is None and not args.split_source:
        print(f"rerun-safe: {', '.join(needing)} needs --deliveries DIR", file=sys.stderr)
        return 2
    skipped: dict[str, str] = {}
    if not named:
        for check in selected:
            if check.name in args.skip:
                skipped[check.name] = "skipped by --skip"
            elif args.only and check.name not in args.only:
                skipped[check.name] = "left out by --only"
    try:
        run = execute(
            settings,
            selected,
            run_options(args),
            named=named,
            skipped=skipped,
            options={check.name: check.options_from(args) for check in selected},
            progress=_progress(args.quiet, time.monotonic()),
            notice=_stderr,
        )
    except Refused as exc:
        print(f"rerun-safe: refused, nothing was built: {exc}", file=sys.stderr)
        return 2
    except (UsageError, DbtError) as exc:  # NothingSelected is a DbtError
        print(f"rerun-safe: {exc}", file=sys.stderr)
        return 2
    results = run.results
    preamble = run.selection
    print(render_terminal(results, preamble))
    if args.junit:
        write_junit(results, args.junit)
    if args.summary:
        write_markdown(results, args.summary, preamble)
    return overall_exit_code(results)
