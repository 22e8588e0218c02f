"""A small mutation runner for the SQL-in-Jinja models and macros of this project.

Each mutant in mutants.yml is a literal text replacement (one or more `original` ->
`replacement` pairs) in one file. For each mutant the runner copies the project to a
temporary folder (without .venv, target, data, .git), applies the replacement there, and runs
the mutant's own pytest subset inside the copy, with this project's Python: the tests drive dbt
on the copy's models (tests/pipeline/project.py finds the project from its own path). A mutant
is killed when that subset fails. When it passes, the mutant runs the whole test modules of its
area (mutation/areas.yml, by the mutated file's path) and is killed when they fail, so a rule
pinned by another test of the area counts; it survives only when both pass. A replacement whose
original text is not found exactly once makes the mutant `not applicable`: a stale mutant never
counts as killed.

Before the mutants, the unmutated copy must pass every subset (the baseline); otherwise every
"kill" would be meaningless and the run stops. The report (mutation/report.py) is one TSV line per
mutant and per rule, and a short `## Last run` section of docs/testing.md.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from mutation.model import (
    MUTANTS_FILE,
    ROOT,
    Mutant,
    area_of,
    area_tests,
    load_areas,
    load_mutants,
    load_rules,
    mutated_text,
)
from mutation.report import load_results, mutant_sha, record_result, score, write_report

__all__ = [
    "MUTANTS_FILE",
    "ROOT",
    "AreaBaselines",
    "area_of",
    "area_tests",
    "load_areas",
    "load_mutants",
    "load_results",
    "load_rules",
    "main",
    "mutated_text",
    "record_result",
    "run_mutant",
]

REPORT = ROOT / "docs" / "testing.md"


# Not copied: the environment, build output, data, VCS metadata, caches.
SKIP_AT_ROOT = {".venv", "target", "data", ".git", "logs", "reports", "dbt_packages", ".pytest_cache"}


SKIP_ANYWHERE = {"__pycache__", ".pytest_cache"}
FAILED_LINE = re.compile(r"^(FAILED|ERROR) (\S+)")


class AreaBaselines:
    """Each area's modules on the unmutated copy, run once, the first time a mutant needs them:
    a module that fails unmutated cannot kill a mutant."""

    def __init__(self, scratch: Path, timeout: float) -> None:
        self.scratch, self.timeout = scratch, timeout
        self.lock = threading.Lock()
        self.problems: dict[tuple[str, ...], str | None] = {}

    def problem(self, tests: list[str]) -> str | None:
        key = tuple(tests)
        with self.lock:
            if key not in self.problems:
                with tempfile.TemporaryDirectory(prefix="area_baseline_", dir=self.scratch) as folder:
                    project = copy_project(Path(folder) / "project")
                    outcome, failed, tail = run_tests(project, tests, workers=1, timeout=self.timeout * 4)
                self.problems[key] = None if outcome == "passed" else f"{outcome} {failed}: {tail[-300:]}"
            return self.problems[key]


def copy_project(destination: Path) -> Path:
    def ignore(folder: str, names: list[str]) -> set[str]:
        skipped = {n for n in names if n in SKIP_ANYWHERE}
        if Path(folder).resolve() == ROOT:
            skipped |= {n for n in names if n in SKIP_AT_ROOT}
        if Path(folder).resolve() == ROOT / "bench":
            skipped |= {n for n in names if n == "out"}
        return skipped

    shutil.copytree(ROOT, destination, ignore=ignore, symlinks=True)
    return destination


def apply(mutant: Mutant, project: Path) -> str | None:
    """Apply every replacement; return why the mutant is not applicable, or None."""
    text, problem = mutated_text(mutant, project)
    if text is not None:
        (project / mutant.file).write_text(text, encoding="utf-8")
    return problem


def pytest_command(tests: list[str], workers: int) -> list[str]:
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-rfE", "-p", "no:cacheprovider", "--no-header"]
    if workers > 1:
        command += ["-n", str(workers)]
    command += tests
    if os.name == "posix" and shutil.which("nice"):
        command = ["nice", "-n", "10", *command]
    return command


def run_tests(project: Path, tests: list[str], workers: int, timeout: float) -> tuple[str, list[str], str]:
    """Run `tests` inside `project`; return (outcome, failed test ids, output tail)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DBT_DUCKDB_PATH", "PYTEST_ADDOPTS")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    try:
        done = subprocess.run(
            pytest_command(tests, workers), cwd=project, env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as expired:
        raw = expired.stdout or b""
        out = raw.decode(errors="replace") if isinstance(raw, bytes) else raw
        return "timeout", [], out[-2000:]
    output = done.stdout + done.stderr
    failed = []
    for line in output.splitlines():
        match = FAILED_LINE.match(line)
        if match and match.group(2) not in failed:
            failed.append(match.group(2))
    if done.returncode == 0:
        return "passed", [], output[-2000:]
    if done.returncode in (1,) or failed:
        return "failed", failed, output[-2000:]
    return f"error (pytest exit {done.returncode})", failed, output[-2000:]


def check_copy_runs_its_own_models(project: Path) -> None:
    """The copy's tests must drive the copy's dbt project, not this one."""
    probe = subprocess.run(
        [sys.executable, "-c", "import tests.pipeline.project as p; print(p.PROJECT_DIR)"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    seen = Path(probe.stdout.strip()).resolve()
    if seen != project.resolve():
        raise SystemExit(f"the copy's tests would run the models of {seen}, not of the copy {project}")


def run_mutant(
    mutant: Mutant, scratch: Path, timeout: float, area: list[str] | None = None, baselines: AreaBaselines | None = None
) -> Mutant:
    """Run the mutant's own tests; when they pass, the modules of its area (`area`), once the
    unmutated copy passes them (`baselines`)."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"{mutant.id}_", dir=scratch) as folder:
        project = copy_project(Path(folder) / "project")
        mutant.text_sha = mutant_sha(mutant, project)
        problem = apply(mutant, project)
        if problem:
            mutant.status, mutant.detail = "not applicable", problem
        else:
            outcome, failed, tail = run_tests(project, mutant.tests, workers=1, timeout=timeout)
            if outcome == "passed" and area:
                unmutated = baselines.problem(area) if baselines is not None else None
                if unmutated is not None:
                    outcome, tail = "error (its area fails unmutated)", unmutated
                else:
                    outcome, failed, tail = run_tests(project, area, workers=1, timeout=timeout)
                    if outcome == "failed":
                        mutant.detail = "killed by its area's modules, not by its own tests"
            if outcome == "failed":
                mutant.status, mutant.killed_by = "killed", failed or ["(failure without a test id)"]
            elif outcome == "passed":
                mutant.status = "survived"
            elif outcome == "timeout":
                mutant.status, mutant.detail = "timeout", f"subset still running after {timeout:.0f} s"
            else:
                mutant.status, mutant.detail = "error", f"{outcome}: {tail[-400:]}"
    mutant.seconds = time.monotonic() - started
    return mutant


def baseline(mutants: list[Mutant], scratch: Path, timeout: float, workers: int) -> float:
    tests = sorted({test for m in mutants for test in m.tests})
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="baseline_", dir=scratch) as folder:
        project = copy_project(Path(folder) / "project")
        check_copy_runs_its_own_models(project)
        outcome, failed, tail = run_tests(project, tests, workers=workers, timeout=timeout * 4)
    if outcome != "passed":
        raise SystemExit(f"baseline: the unmutated project fails its own subsets ({outcome}: {failed}):\n{tail}")
    return time.monotonic() - started


def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() or "unknown (no git)"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m mutation", description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--only", nargs="*", help="mutant ids to run, in this order (default: all); no report is written"
    )
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at the same time (default 2)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per mutant's subset")
    parser.add_argument("--skip-baseline", action="store_true", help="do not run the unmutated baseline first")
    parser.add_argument(
        "--no-areas",
        action="store_true",
        help="run each mutant's own tests only, not the modules of its area (mutation/areas.yml)",
    )
    parser.add_argument(
        "--mutants", type=Path, default=MUTANTS_FILE, help="the mutants file to run (default mutation/mutants.yml)"
    )
    parser.add_argument(
        "--report",
        type=Path,
        default=None,
        help="the Markdown page (default docs/testing.md, its `## Last run` section, for "
        "mutation/mutants.yml, else <mutants file>-report.md beside it)",
    )
    parser.add_argument(
        "--tables",
        type=Path,
        default=None,
        help="the folder of the TSV tables (default the mutants file's): <mutants stem>-verdicts.tsv, "
        "and rules-verdicts.tsv for mutation/mutants.yml",
    )
    parser.add_argument(
        "--min-score",
        type=float,
        default=95.0,
        help="fail (exit 1) below this share of killed mutants among the non-equivalent ones, in %% "
        "(default 95); every equivalent survivor must say why in mutants.yml",
    )
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument(
        "--results", type=Path, default=None, help="append each mutant's verdict to this JSON-lines file as it finishes"
    )
    parser.add_argument(
        "--report-from-results",
        action="store_true",
        help="run nothing: write the report from the --results file (mutants without a result "
        "for today's text of their file are listed as not run)",
    )
    return parser


def _shown(path: Path) -> Path:
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def _report_from_results(args: argparse.Namespace, mutants: list[Mutant]) -> int:
    if args.results is None or not args.results.is_file():
        raise SystemExit("--report-from-results needs --results FILE, an existing JSON-lines file")
    for line in load_results(mutants, args.results):
        print(f"left out: {line}")
    figures = score(mutants)
    timing = (
        f"Reported from a results file: the mutants' own times add up to "
        f"{sum(m.seconds for m in mutants) / 60:.1f} min (one pytest process each; parts may have run two "
        f"at a time, or on a busy machine)."
    )
    write_report(mutants, figures, timing, args.report, args.mutants, args.tables)
    print(f"wrote {args.report}: {figures['killed']}/{figures['counted']} killed, {figures['not_run']} not run")
    return 0


def _selected(mutants: list[Mutant], only: list[str] | None) -> list[Mutant]:
    if not only:
        return mutants
    unknown = set(only) - {m.id for m in mutants}
    if unknown:
        raise SystemExit(f"unknown mutant ids: {sorted(unknown)}")
    by_id = {m.id: m for m in mutants}
    return [by_id[i] for i in dict.fromkeys(only)]  # in the order given


def _run_all(args: argparse.Namespace, mutants: list[Mutant]) -> float:
    """The baseline, then every mutant (args.jobs at a time); returns the baseline's seconds."""
    scratch = Path(tempfile.mkdtemp(prefix="rerun_safe_mutation_"))
    try:
        baseline_seconds = 0.0
        if not args.skip_baseline:
            print(
                f"baseline: the unmutated copy runs every subset ({len({t for m in mutants for t in m.tests})} tests)",
                flush=True,
            )
            baseline_seconds = baseline(mutants, scratch, args.timeout, workers=args.jobs)
            print(f"baseline passed in {baseline_seconds:.0f} s", flush=True)
        areas = {} if args.no_areas else load_areas()
        baselines = AreaBaselines(scratch, args.timeout)
        commit = _commit()

        def one(mutant: Mutant) -> Mutant:
            return run_mutant(mutant, scratch, args.timeout, area_tests(mutant, areas), baselines)

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for m in pool.map(one, mutants):
                if args.results is not None:
                    record_result(m, args.results, commit)
                by = ", ".join(t.split("::", 1)[-1] for t in m.killed_by)
                print(
                    f"{m.id:5} {m.status:15} {m.seconds:5.0f} s  {m.description}"
                    + (f"  [{by}]" if by else "")
                    + (f"  {m.detail}" if m.detail else ""),
                    flush=True,
                )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return baseline_seconds


def _verdict(mutants: list[Mutant], figures: dict[str, Any], min_score: float) -> int:
    """Exit 1 when a mutant is stale or in error, a survivor is not marked equivalent, or the score
    of the non-equivalent mutants is below min_score (equivalent mutants cannot be killed, so they
    are left out of the share; each one's reason is in mutants.yml)."""
    for m in mutants:
        if m.status == "survived":
            print(
                f"  survived {m.id}: {m.description}"
                + (f" (equivalent: {m.equivalent})" if m.equivalent else " (NOT equivalent)")
            )
    stale = figures["not_applicable"] + figures["errors"]
    if stale:
        print(f"FAIL: {stale} mutant(s) not applicable or in error: re-point them in mutation/mutants.yml")
    if figures["score_non_equivalent"] < min_score:
        print(
            f"FAIL: score {figures['score_non_equivalent']:.1f} % of the non-equivalent mutants is below "
            f"{min_score:.0f} %"
        )
    unexplained = [m.id for m in mutants if m.status == "survived" and not m.equivalent]
    if unexplained:
        print(f"FAIL: surviving mutants not marked equivalent: {', '.join(unexplained)}")
    return 1 if stale or unexplained or figures["score_non_equivalent"] < min_score else 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    mutants = load_mutants(args.mutants)
    if args.report is None:
        own_file = args.mutants.resolve() != MUTANTS_FILE
        args.report = args.mutants.with_name(args.mutants.stem + "-report.md") if own_file else REPORT
    if args.list:
        for m in mutants:
            print(f"{m.id:5} {m.klass:28} {m.file}: {m.description}")
        return 0
    if args.report_from_results:
        return _report_from_results(args, mutants)
    mutants = _selected(mutants, args.only)
    started = time.monotonic()
    baseline_seconds = _run_all(args, mutants)
    seconds = time.monotonic() - started
    figures = score(mutants)
    print(
        f"\nscore: {figures['killed']}/{figures['counted']} killed ({figures['score']:.1f} %), "
        f"{figures['equivalent']} equivalent survivor(s) -> {figures['score_non_equivalent']:.1f} % of non-equivalent; "
        f"not applicable {figures['not_applicable']}; {seconds / 60:.1f} min",
        flush=True,
    )
    if not args.only:
        timing = (
            f"`make mutate` took {seconds / 60:.1f} min on this machine (baseline {baseline_seconds:.0f} s, "
            f"then the mutants {args.jobs} at a time)."
        )
        write_report(mutants, figures, timing, args.report, args.mutants, args.tables)
        print(f"wrote {_shown(args.report)}")
    return _verdict(mutants, figures, args.min_score)
