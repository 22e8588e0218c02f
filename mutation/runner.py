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
"kill" would be meaningless and the run stops.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
MUTANTS_FILE = Path(__file__).resolve().parent / "mutants.yml"
RULES_FILE = Path(__file__).resolve().parent / "rules.yml"
AREAS_FILE = Path(__file__).resolve().parent / "areas.yml"
REPORT = ROOT / "docs" / "testing.md"
# Not copied: the environment, build output, data, VCS metadata, caches.
SKIP_AT_ROOT = {".venv", "target", "data", ".git", "logs", "reports", "dbt_packages", ".pytest_cache"}
SKIP_ANYWHERE = {"__pycache__", ".pytest_cache"}
FAILED_LINE = re.compile(r"^(FAILED|ERROR) (\S+)")


@dataclass
class Mutant:
    id: str
    klass: str
    file: str
    description: str
    replacements: list[tuple[str, str]]
    tests: list[str]
    rule: str = ""
    equivalent: str | None = None
    note: str | None = None
    status: str = "pending"  # killed | survived | not applicable | timeout | error
    killed_by: list[str] = field(default_factory=list)
    seconds: float = 0.0
    detail: str = ""
    text_sha: str = ""  # of the mutated file as this run made it (set when the copy is made)
    earlier: list[str] = field(default_factory=list)  # verdicts of earlier parts (results file)


def load_mutants(path: Path = MUTANTS_FILE) -> list[Mutant]:
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    mutants, seen = [], set()
    for entry in entries:
        if entry["id"] in seen:
            raise SystemExit(f"duplicate mutant id {entry['id']}")
        seen.add(entry["id"])
        pairs = entry.get("replacements") or [{"original": entry["original"], "replacement": entry["replacement"]}]
        mutants.append(Mutant(
            id=entry["id"], klass=entry["class"], file=entry["file"], description=entry["description"],
            replacements=[(pair["original"], pair["replacement"]) for pair in pairs],
            tests=list(entry["tests"]), rule=entry["rule"], equivalent=entry.get("equivalent"), note=entry.get("note"),
        ))
    return mutants


@dataclass
class Rule:
    id: str
    doc: str
    quote: str
    tests: list[str]


def load_rules(path: Path = RULES_FILE) -> list[Rule]:
    """The rules of rules.yml, in order; each mutant of mutants.yml names one (`rule:`)."""
    return [Rule(id=e["id"], doc=e["doc"], quote=e["quote"], tests=list(e["tests"]))
            for e in yaml.safe_load(path.read_text(encoding="utf-8"))]


def rule_rows(rules: list[Rule], mutants: list[Mutant]) -> list[str]:
    """docs/testing.md's rule table: each rule, the tests that pin it, its mutants and their
    verdicts. A rule no mutant breaks, or whose every mutant survived, is marked a gap."""
    lines = ["| rule | stated in | pinned by | mutants | verdict |", "|---|---|---|---|---|"]
    for rule in rules:
        own = [m for m in mutants if m.rule == rule.id]
        killed = [m for m in own if m.status in ("killed", "timeout")]
        verdict = "**gap: no mutant breaks it**" if not own else (
            f"{len(killed)}/{len(own)} killed" if killed else "**gap: no mutant killed**")
        tests = "<br>".join(f"`{t.split('/')[-1]}`" for t in rule.tests)
        found = "<br>".join(f"{m.id}: {m.status}" for m in own)
        lines.append(f"| {_cell(rule.quote)} | `{rule.doc}` | {tests} | {found} | {verdict} |")
    return lines


def load_areas(path: Path = AREAS_FILE) -> dict[str, list[str]]:
    """Path prefix -> the test modules of that area of the code (mutation/areas.yml)."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {str(prefix): [str(module) for module in modules] for prefix, modules in entries.items()}


def area_of(file: str, areas: dict[str, list[str]]) -> str | None:
    """The area of a file: the longest prefix of areas.yml it starts with, or None."""
    matching = [prefix for prefix in areas if file.startswith(prefix)]
    return max(matching, key=len) if matching else None


def area_tests(mutant: Mutant, areas: dict[str, list[str]]) -> list[str]:
    """The modules of the mutant's area that its own tests do not already run whole."""
    area = area_of(mutant.file, areas)
    if area is None or mutant.equivalent:
        return []
    whole = {test for test in mutant.tests if "::" not in test}
    return [module for module in areas[area] if module not in whole]


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


def mutated_text(mutant: Mutant, project: Path) -> tuple[str | None, str | None]:
    """The mutant's file in `project` with every replacement made, or why it cannot be made."""
    path = project / mutant.file
    if not path.is_file():
        return None, f"{mutant.file} does not exist"
    text = path.read_text(encoding="utf-8")
    for original, replacement in mutant.replacements:
        found = text.count(original)
        if found != 1:
            return None, f"original text found {found} times in {mutant.file} (must be exactly once): {original[:80]!r}"
        text = text.replace(original, replacement)
    return text, None


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
        done = subprocess.run(pytest_command(tests, workers), cwd=project, env=env, capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        out = (expired.stdout or b"")
        out = out.decode(errors="replace") if isinstance(out, bytes) else out
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
        cwd=project, capture_output=True, text=True, check=True,
    )
    seen = Path(probe.stdout.strip()).resolve()
    if seen != project.resolve():
        raise SystemExit(f"the copy's tests would run the models of {seen}, not of the copy {project}")


def run_mutant(mutant: Mutant, scratch: Path, timeout: float, area: list[str] | None = None,
               baselines: AreaBaselines | None = None) -> Mutant:
    """Run the mutant's own tests; when they pass, the modules of its area (`area`), once the
    unmutated copy passes them (`baselines`)."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"{mutant.id}_", dir=scratch) as folder:
        project = copy_project(Path(folder) / "project")
        mutant.text_sha = _mutant_sha(mutant, project)
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


def score(mutants: list[Mutant]) -> dict:
    counted = [m for m in mutants if m.status not in ("not applicable", "pending")]
    killed = [m for m in counted if m.status in ("killed", "timeout")]
    survived = [m for m in counted if m.status == "survived"]
    equivalent = [m for m in survived if m.equivalent]
    non_equivalent = len(counted) - len(equivalent)
    return {
        "total": len(mutants),
        "counted": len(counted),
        "killed": len(killed),
        "survived": len(survived),
        "equivalent": len(equivalent),
        "not_applicable": len([m for m in mutants if m.status == "not applicable"]),
        "not_run": len([m for m in mutants if m.status == "pending"]),
        "errors": len([m for m in counted if m.status == "error"]),
        "score": 100.0 * len(killed) / len(counted) if counted else 0.0,
        "score_non_equivalent": 100.0 * len(killed) / non_equivalent if non_equivalent else 0.0,
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _change(mutant: Mutant) -> str:
    parts = []
    for original, replacement in mutant.replacements:
        parts.append(f"`{_cell(' '.join(original.split()))[:90]}` → `{_cell(' '.join(replacement.split()))[:90]}`")
    return "<br>".join(parts)


def _own_rule_rows(mutants: list[Mutant]) -> list[str]:
    """For a mutants file other than mutants.yml: its `rule:` texts are free text, not rules.yml
    ids, so the table has one row per distinct rule text, with its mutants and their verdicts."""
    lines = ["| rule | mutants | verdict |", "|---|---|---|"]
    for rule in dict.fromkeys(m.rule for m in mutants):
        own = [m for m in mutants if m.rule == rule]
        killed = [m for m in own if m.status in ("killed", "timeout")]
        verdict = f"{len(killed)}/{len(own)} killed" if killed else "**gap: no mutant killed**"
        lines.append(f"| {_cell(rule)} | {'<br>'.join(f'{m.id}: {m.status}' for m in own)} | {verdict} |")
    return lines


def write_report(mutants: list[Mutant], figures: dict, seconds: float, baseline_seconds: float, path: Path,
                 mutants_file: Path = MUTANTS_FILE, summed: bool = False) -> None:
    own_file = mutants_file.resolve() != MUTANTS_FILE
    if own_file:
        shown = mutants_file.resolve().relative_to(ROOT) if mutants_file.resolve().is_relative_to(ROOT) else mutants_file
        template = f"# Mutation round: `{shown}`\n\nRun with `python -m mutation --mutants {shown}`."
    else:
        template = (Path(__file__).resolve().parent / "report_intro.md").read_text(encoding="utf-8")
    lines = [template.rstrip(), "", "## Last run", ""]
    lines.append(
        f"**Score: {figures['killed']}/{figures['counted']} mutants killed ({figures['score']:.1f} %)**; "
        f"{figures['equivalent']} surviving mutant(s) are equivalent, so "
        f"{figures['score_non_equivalent']:.1f} % of the non-equivalent mutants are killed. "
        f"Not applicable: {figures['not_applicable']}; errors: {figures['errors']}"
        + (f"; not run: {figures['not_run']}." if figures["not_run"] else ".")
    )
    lines.append("")
    if own_file:
        if summed:
            lines.append(f"Reported from a results file: the mutants' own times add up to {seconds / 60:.1f} min "
                         f"(one pytest process each; parts may have run two at a time, or on a busy machine).")
        else:
            lines.append(f"The round took {seconds / 60:.1f} min on this machine (baseline {baseline_seconds:.0f} s).")
        lines += ["", "### Rules", "", "One row per `rule:` text of the file (free text, not `mutation/rules.yml` ids).", ""]
        lines += _own_rule_rows(mutants)
    else:
        lines.append(f"`make mutate` took {seconds / 60:.1f} min on this machine (baseline {baseline_seconds:.0f} s, "
                     f"then the mutants two at a time).")
        lines += ["", "### Rules", "",
                  "One row per rule of `mutation/rules.yml`, in the docs' own words (each quote is checked to be in "
                  "its page by `tests/test_mutation_rules.py`).", ""]
        lines += rule_rows(load_rules(), mutants)
    lines += ["", "### Mutants", "", "| id | class | file | change | result | killed by | s |", "|---|---|---|---|---|---|---|"]
    for m in mutants:
        killed_by = "<br>".join(f"`{t.split('::', 1)[-1]}`" for t in m.killed_by)
        result = ("not run" if m.status == "pending" else m.status) + (
            " (equivalent)" if m.status == "survived" and m.equivalent else "")
        lines.append(f"| {m.id} | {m.klass} | `{m.file}` | {_change(m)}<br>{_cell(m.description)} | {result} | "
                     f"{killed_by or _cell(m.detail)} | {m.seconds:.0f} |")
    lines += [""]
    survivors = [m for m in mutants if m.status == "survived"]
    lines += ["## Surviving mutants", ""]
    if not survivors:
        lines.append("None.")
    for m in survivors:
        reason = m.equivalent or "NOT marked equivalent: a missing test."
        lines.append(f"- **{m.id}** ({m.description}): {reason}")
    turned = [m for m in mutants if any(e.startswith(("survived", "timeout")) for e in m.earlier)]
    if turned:
        lines += ["", "## Survived or timed out in an earlier part", "",
                  "Each was run again after a test was added or its module list grew (outside.yml says which, "
                  "beside the mutant); the table above shows its last verdict.", ""]
        lines += [f"- **{m.id}** ({m.description}): {'; '.join(m.earlier)}; now {m.status}" for m in turned]
    pending = [m for m in mutants if m.status == "pending"]
    if pending:
        lines += ["", "## Not run", ""]
        lines += [f"- **{m.id}** (`{m.file}`): {m.description}" for m in pending]
    others = [m for m in mutants if m.status in ("not applicable", "error")]
    if others:
        lines += ["", "## Not applicable or errors", ""]
        lines += [f"- **{m.id}**: {m.status}: {_cell(m.detail)}" for m in others]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def record_result(mutant: Mutant, path: Path, commit: str) -> None:
    """Append one mutant's verdict as a JSON line, so that a round can be run in parts (several
    `--only` runs, several machines) and reported once from all of them (`--report-from-results`)."""
    entry = {"id": mutant.id, "status": mutant.status, "killed_by": mutant.killed_by,
             "seconds": round(mutant.seconds, 1), "detail": mutant.detail, "commit": commit,
             "file_text_sha": mutant.text_sha or _mutant_sha(mutant)}
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry, ensure_ascii=False) + "\n")


def _mutant_sha(mutant: Mutant, project: Path = ROOT) -> str:
    """Names the code a verdict is about: the mutated file's text (the copy's, when it ran)."""
    text, _ = mutated_text(mutant, project)
    return hashlib.sha256((text or "").encode("utf-8")).hexdigest()[:16]


def load_results(mutants: list[Mutant], path: Path) -> list[str]:
    """Set each mutant's verdict from the results file (the last line of an id wins). A result
    recorded for another text of the mutated file (the code or the mutant changed since) is not
    used: the mutant stays not run. Returns one line per result left out."""
    by_id = {m.id: m for m in mutants}
    latest: dict[str, dict] = {}
    history: dict[str, list[str]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as error:
                raise SystemExit(f"{path}:{number}: not a JSON line: {error}") from None
            if entry["id"] in latest:
                old = latest[entry["id"]]
                history.setdefault(entry["id"], []).append(f"{old['status']} at {old.get('commit', '?')}")
            latest[entry["id"]] = entry
    stale = []
    for mutant_id, entry in latest.items():
        mutant = by_id.get(mutant_id)
        if mutant is None:
            stale.append(f"{mutant_id}: no such mutant in this file")
        elif entry.get("file_text_sha") != _mutant_sha(mutant):
            stale.append(f"{mutant_id}: recorded at {entry.get('commit', '?')} for another text of {mutant.file}")
        else:
            mutant.status, mutant.killed_by = entry["status"], list(entry["killed_by"])
            mutant.seconds, mutant.detail = float(entry["seconds"]), entry.get("detail", "")
            mutant.earlier = history.get(mutant_id, [])
    return stale


def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() or "unknown (no git)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mutation", description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="mutant ids to run, in this order (default: all); no report is written")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at the same time (default 2)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per mutant's subset")
    parser.add_argument("--skip-baseline", action="store_true", help="do not run the unmutated baseline first")
    parser.add_argument("--no-areas", action="store_true",
                        help="run each mutant's own tests only, not the modules of its area (mutation/areas.yml)")
    parser.add_argument("--mutants", type=Path, default=MUTANTS_FILE,
                        help="the mutants file to run (default mutation/mutants.yml)")
    parser.add_argument("--report", type=Path, default=None,
                        help="where to write the table (default docs/testing.md for mutation/mutants.yml, "
                        "else <mutants file>-report.md beside it: another file never rewrites docs/testing.md)")
    parser.add_argument("--min-score", type=float, default=95.0,
                        help="fail (exit 1) below this share of killed mutants among the non-equivalent ones, in %% "
                        "(default 95); every equivalent survivor must say why in mutants.yml")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--results", type=Path, default=None,
                        help="append each mutant's verdict to this JSON-lines file as it finishes")
    parser.add_argument("--report-from-results", action="store_true",
                        help="run nothing: write the report from the --results file (mutants without a result "
                        "for today's text of their file are listed as not run)")
    args = parser.parse_args(argv)

    mutants = load_mutants(args.mutants)
    if args.report is None:
        args.report = REPORT if args.mutants.resolve() == MUTANTS_FILE else args.mutants.with_name(args.mutants.stem + "-report.md")
    if args.list:
        for m in mutants:
            print(f"{m.id:5} {m.klass:28} {m.file}: {m.description}")
        return 0
    if args.report_from_results:
        if args.results is None or not args.results.is_file():
            raise SystemExit("--report-from-results needs --results FILE, an existing JSON-lines file")
        for line in load_results(mutants, args.results):
            print(f"left out: {line}")
        figures = score(mutants)
        seconds = sum(m.seconds for m in mutants)
        write_report(mutants, figures, seconds, 0.0, args.report, args.mutants, summed=True)
        print(f"wrote {args.report}: {figures['killed']}/{figures['counted']} killed, {figures['not_run']} not run")
        return 0
    if args.only:
        unknown = set(args.only) - {m.id for m in mutants}
        if unknown:
            raise SystemExit(f"unknown mutant ids: {sorted(unknown)}")
        by_id = {m.id: m for m in mutants}
        mutants = [by_id[i] for i in dict.fromkeys(args.only)]  # in the order given

    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="rerun_safe_mutation_"))
    try:
        baseline_seconds = 0.0
        if not args.skip_baseline:
            print(f"baseline: the unmutated copy runs every subset ({len({t for m in mutants for t in m.tests})} tests)",
                  flush=True)
            baseline_seconds = baseline(mutants, scratch, args.timeout, workers=args.jobs)
            print(f"baseline passed in {baseline_seconds:.0f} s", flush=True)
        areas = {} if args.no_areas else load_areas()
        baselines = AreaBaselines(scratch, args.timeout)
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            commit = _commit()
            for m in pool.map(lambda mutant: run_mutant(mutant, scratch, args.timeout, area_tests(mutant, areas),
                                                        baselines), mutants):
                if args.results is not None:
                    record_result(m, args.results, commit)
                by = ", ".join(t.split("::", 1)[-1] for t in m.killed_by)
                print(f"{m.id:5} {m.status:15} {m.seconds:5.0f} s  {m.description}" + (f"  [{by}]" if by else "")
                      + (f"  {m.detail}" if m.detail else ""), flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    seconds = time.monotonic() - started
    figures = score(mutants)
    print(f"\nscore: {figures['killed']}/{figures['counted']} killed ({figures['score']:.1f} %), "
          f"{figures['equivalent']} equivalent survivor(s) -> {figures['score_non_equivalent']:.1f} % of non-equivalent; "
          f"not applicable {figures['not_applicable']}; {seconds / 60:.1f} min", flush=True)
    for m in mutants:
        if m.status == "survived":
            print(f"  survived {m.id}: {m.description}" + (f" (equivalent: {m.equivalent})" if m.equivalent else " (NOT equivalent)"))
    if not args.only:
        write_report(mutants, figures, seconds, baseline_seconds, args.report, args.mutants)
        print(f"wrote {args.report.relative_to(ROOT) if args.report.is_relative_to(ROOT) else args.report}")
    stale = figures["not_applicable"] + figures["errors"]
    if stale:
        print(f"FAIL: {stale} mutant(s) not applicable or in error: re-point them in mutation/mutants.yml")
    # The usual mutation score: equivalent mutants cannot be killed, so they are left out of the
    # share; each one's reason is in mutants.yml, and a survivor without one fails below.
    if figures["score_non_equivalent"] < args.min_score:
        print(f"FAIL: score {figures['score_non_equivalent']:.1f} % of the non-equivalent mutants is below "
              f"{args.min_score:.0f} %")
    unexplained = [m.id for m in mutants if m.status == "survived" and not m.equivalent]
    if unexplained:
        print(f"FAIL: surviving mutants not marked equivalent: {', '.join(unexplained)}")
    return 1 if stale or unexplained or figures["score_non_equivalent"] < args.min_score else 0


if __name__ == "__main__":
    sys.exit(main())
