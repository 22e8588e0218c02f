"""Render check results: a terminal report, JUnit XML for CI, Markdown for a pull request."""

from __future__ import annotations

import re
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from harness.results import CheckResult, Comparison, Status, TableDiff, Trial

if TYPE_CHECKING:
    from harness.context import CheckContext

MARK = {
    Status.PASS: "PASS",
    Status.FAIL: "FAIL",
    Status.ERROR: "ERROR",
    Status.NOT_EXERCISED: "NOT EXERCISED",
    Status.SKIPPED: "SKIPPED",
}


def overall_exit_code(results: Sequence[CheckResult]) -> int:
    """0 when every check passed (or was skipped), 1 when one failed or exercised nothing,
    2 when one could not run."""
    if any(r.status is Status.ERROR for r in results):
        return 2
    if any(r.status in (Status.FAIL, Status.NOT_EXERCISED) for r in results):
        return 1
    return 0


def _cell(result: CheckResult, table: str) -> str:
    """One cell of the models x checks table: DIFF, DUPLICATE KEYS, "= check" (differs as
    that earlier check already reported), ok, not judged, or "-" (not compared here)."""
    if result.status is Status.SKIPPED:
        return "skipped"
    short = table.split(".")[-1]
    if short in result.dbt_skipped:  # dbt's skip, with its reason in the check's findings
        return "dbt skipped"
    if result.status is Status.ERROR:
        return "ERROR"
    if result.status is Status.NOT_EXERCISED:
        return "not exercised"
    if result.status is Status.FAIL and _errored(result, short):
        return "ERROR"
    duplicate = any(v.table.split(".")[-1] == short and not v.explained_by for v in result.key_violations)
    seen = differs = warned = False
    explained = ""
    not_judged = False
    for comparison in result.comparisons:
        for diff in comparison.diffs:
            if diff.table.split(".")[-1] != short:
                continue
            seen = True
            if not diff.identical and not diff.explained_by and diff.warning:
                warned = True
            elif not diff.identical and not diff.explained_by:
                differs = True
            elif not diff.identical:
                explained = explained or diff.explained_by
        not_judged = not_judged or any(nj.table.split(".")[-1] == short for nj in comparison.not_judged)
    parts = []
    if differs:
        parts.append("DIFF")
    if duplicate:
        parts.append("DUPLICATE KEYS")
    if parts:
        return ", ".join(parts)
    if explained:
        return f"= {explained}"
    if warned:
        return "WARNING"
    for not_asserted in result.keys_not_asserted:
        if not_asserted.table.split(".")[-1] == short:
            return not_asserted.cell
    if seen or result.trials or result.name == "keys":
        return "ok"
    return "not judged" if not_judged else "-"


def _errored(result: CheckResult, short: str) -> bool:
    """Does a build error of the check (or of one of its trials) name this model?"""
    errors = [
        *result.errors,
        *(e for trial in result.trials for e in trial.errors),
        *(trial.outcome for trial in result.trials if not trial.survived),
    ]
    return any(
        re.search(rf"\b(?:model|seed|snapshot)\.\w+\.{re.escape(short)}: (?:error|runtime error)", e) for e in errors
    )


def model_tables(results: Sequence[CheckResult]) -> list[str]:
    tables: set[str] = set()
    for result in results:
        tables |= set(result.dbt_skipped)
        for comparison in result.comparisons:
            tables |= {diff.table for diff in comparison.diffs}
        tables |= {violation.table for violation in result.key_violations}
    by_name: dict[str, str] = {}
    for table in sorted(tables, key=lambda t: (t.split(".")[-1], "." not in t)):
        by_name.setdefault(table.split(".")[-1], table)
    return [by_name[name] for name in sorted(by_name)]


def matrix(results: Sequence[CheckResult]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the models x checks table ("= idempotency": that table's difference
    is reported under idempotency and not counted again)."""
    shown = [r for r in results if r.name != "lateness" and r.status is not Status.SKIPPED]
    header = ["model"] + [r.name for r in shown]
    rows = [[table.split(".")[-1]] + [_cell(r, table) for r in shown] for table in model_tables(results)]
    return header, rows


def _matrix_lines(results: Sequence[CheckResult]) -> list[str]:
    header, rows = matrix(results)
    if not rows:
        return []
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["models x checks:"]
    for row in [header, *rows]:
        lines.append("  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    return [*lines, ""]


def _finding_lines(result: CheckResult, indent: str = "  ") -> list[str]:
    lines = []
    if result.reason:
        lines.append(f"{indent}{'skipped' if result.status is Status.SKIPPED else 'not exercised'}: {result.reason}")
    if result.exercised:
        lines.append(f"{indent}exercised: " + ", ".join(f"{k} {v}" for k, v in result.exercised.items()))
    for violation in result.key_violations:
        if violation.explained_by:
            lines.append(f"{indent}duplicate keys in {violation.model}: already reported by {violation.explained_by}")
        else:
            lines.append(f"{indent}DUPLICATE KEYS {violation.line()}")
    reasons: dict[str, list[str]] = {}
    for not_asserted in result.keys_not_asserted:
        key = f" ({', '.join(not_asserted.key)})" if not_asserted.key else ""
        reasons.setdefault(not_asserted.why, []).append(not_asserted.model + key)
    for why, models in reasons.items():
        lines.append(f"{indent}key not asserted, {why}: {', '.join(models)}")
    for hint in result.hints():
        lines.append(f"{indent}hint: {hint}")
    for warning in result.warnings():
        lines.append(f"{indent}WARNING {warning}")
    if result.test_failures:
        lines.append(
            f"{indent}dbt tests that failed (the project's own tests, reported here, not this "
            f"check's verdict): " + "; ".join(f.splitlines()[0][:200] for f in result.test_failures)
        )
    if result.skipped_nodes:
        lines.append(f"{indent}nodes dbt skipped after a failure upstream: {', '.join(result.skipped_nodes)}")
    return lines


def _diff_lines(diff: TableDiff, indent: str) -> list[str]:
    mode = " [history: sums per group]" if diff.mode == "history" else ""
    key = f" key ({', '.join(diff.key)})" if diff.key else ""
    if diff.key and diff.key_source not in ("", "config"):
        key += f" from {diff.key_source}"
    mark = "ok  " if diff.identical else ("WARN" if diff.warning and not diff.explained_by else "DIFF")
    lines = [f"{indent}{mark} {diff.table}{mode}{key}: {diff.summary()}"]
    if diff.warning and not diff.identical:
        lines.append(f"{indent}     warning (not a failure): {diff.warning}")
    elif diff.hint and not diff.identical:
        lines.append(f"{indent}     hint: {diff.hint}")
    if diff.excluded_columns:
        by_design = set(diff.stamped_columns) | set(diff.snapshot_time_columns)
        volatile = [c for c in diff.excluded_columns if c not in by_design]
        if volatile:
            lines.append(f"{indent}     excluded (meta.rerun_safe.volatile_columns): {', '.join(volatile)}")
        if diff.snapshot_time_columns:
            snapshot = ", ".join(diff.snapshot_time_columns)
            why = "a check-strategy snapshot: the time it ran, by dbt's design"
            lines.append(f"{indent}     excluded ({why}): {snapshot}")
        if diff.stamped_columns:
            stamped = ", ".join(diff.stamped_columns)
            lines.append(f"{indent}     excluded (load stamps, stamped at delivery time in this split): {stamped}")
    if diff.sample:
        lines.append(f"{indent}     sample (_side -: left only, +: right only; _copies: how many more):")
        lines.extend(textwrap.indent(diff.sample, indent + "       ").splitlines())
    return lines


def _comparison_lines(comparison: Comparison, verbose: bool = False) -> list[str]:
    lines = [f"  {comparison.label}  [- {comparison.left} | + {comparison.right}]"]

    def worth_a_line(diff: TableDiff) -> bool:
        if diff.explained_by:
            return False
        return verbose or not diff.identical or bool(diff.excluded_columns) or diff.mode != "exact"

    plain = [d.table for d in comparison.diffs if not worth_a_line(d) and not d.explained_by]
    explained = [d for d in comparison.diffs if d.explained_by and not d.identical]
    if plain and not verbose:
        lines.extend(
            textwrap.wrap(
                f"ok   {len(plain)} identical: " + ", ".join(plain),
                width=100,
                initial_indent="    ",
                subsequent_indent="           ",
            )
        )
    if explained:
        lines.append(
            "    ==   differs as already reported, not counted again: "
            + ", ".join(f"{d.table} ({d.explained_by})" for d in explained)
        )
    for diff in comparison.diffs:
        if worth_a_line(diff):
            lines.extend(_diff_lines(diff, "    "))
    for skipped in comparison.not_judged:
        lines.append(f"    --   {skipped.table}: not judged: {skipped.reason}")
    return lines


def _trial_lines(trials: Sequence[Trial]) -> list[str]:
    if not trials:
        return []
    survived = sum(trial.survived for trial in trials)
    lines = [f"  {len(trials)} point(s) tried: {survived} survived, {len(trials) - survived} failed"]
    for trial in trials:
        detail = trial.line()
        lines.append(f"    {'ok  ' if trial.survived else 'FAIL'} {trial.label}" + (f": {detail}" if detail else ""))
    return lines


def selection_lines(ctx: CheckContext | None) -> list[str]:
    """What a --state selection judged and what it deferred."""
    deferred = getattr(ctx, "deferred", ())  # a stand-in session (the CLI's tests) has none
    if ctx is None or not deferred:
        return []

    def short(uid: str) -> str:
        return uid.split(".")[-1]

    judged = sorted(short(uid) for uid in (ctx.selected or ()))
    return [
        f"selection ({' '.join(ctx.select)} --state {ctx.settings.state}): judged, as dbt ls selects them: "
        + (", ".join(judged) or "none"),
        "deferred (unchanged: left out by the state selection, not judged; the ones the selection "
        "reads are built here from the deliveries): " + ", ".join(short(uid) for uid in ctx.deferred),
    ]


def render_terminal(results: Sequence[CheckResult], preamble: Sequence[str] = ()) -> str:
    lines: list[str] = [*preamble, *([""] if preamble else [])]
    if len(results) > 1:
        lines.extend(_matrix_lines(results))
    for result in results:
        headline = "" if result.status is Status.PASS else f": {result.headline()}"
        lines.append(f"== {result.name}: {MARK[result.status]} ({result.duration_s:.1f} s){headline}")
        if result.status is Status.SKIPPED:
            lines.append("")
            continue
        for error in result.errors:
            lines.append(f"  error: {error}")
        lines.extend(_finding_lines(result))
        lines.extend(_trial_lines(result.trials))
        for comparison in result.comparisons:
            lines.extend(_comparison_lines(comparison))
        for name, value in result.metrics.items():
            lines.append(f"  {name}: {value}")
        for note in result.notes:
            lines.append(f"  note: {note}")
        for name, path in result.artifacts.items():
            lines.append(f"  {name}: {path}")
        lines.append("")
    counts = {status: sum(r.status is status for r in results) for status in Status}
    lines.append(
        f"{len(results)} check(s): {counts[Status.PASS]} passed, {counts[Status.FAIL]} failed, "
        f"{counts[Status.NOT_EXERCISED]} not exercised, {counts[Status.SKIPPED]} skipped, "
        f"{counts[Status.ERROR]} could not run"
    )
    return "\n".join(lines)


def write_junit(results: Sequence[CheckResult], path: Path) -> None:
    suite = ET.Element(
        "testsuite",
        name="rerun-safe",
        tests=str(len(results)),
        failures=str(sum(r.status in (Status.FAIL, Status.NOT_EXERCISED) for r in results)),
        errors=str(sum(r.status is Status.ERROR for r in results)),
        skipped=str(sum(r.status is Status.SKIPPED for r in results)),
        time=f"{sum(r.duration_s for r in results):.3f}",
    )
    for result in results:
        case = ET.SubElement(
            suite, "testcase", classname="rerun_safe", name=result.name, time=f"{result.duration_s:.3f}"
        )
        details = "\n".join(
            _finding_lines(result, "")
            + _trial_lines(result.trials)
            + [line for comparison in result.comparisons for line in _comparison_lines(comparison, verbose=True)]
        )
        if result.status is Status.SKIPPED:
            ET.SubElement(case, "skipped", message=result.reason)
        elif result.status is Status.NOT_EXERCISED:
            failure = ET.SubElement(case, "failure", message="not exercised: " + result.reason)
            failure.text = details
        elif result.status is Status.FAIL:
            failure = ET.SubElement(case, "failure", message=result.headline() or "failed")
            failure.text = result.failure_message() + "\n\n" + details
        elif result.status is Status.ERROR:
            error = ET.SubElement(case, "error", message=(result.errors or ["error"])[0])
            error.text = "\n".join(result.errors)
        output = "\n".join([details] + [f"{k}: {v}" for k, v in result.metrics.items()] + result.notes).strip()
        if output:
            ET.SubElement(case, "system-out").text = output
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(
    results: Sequence[CheckResult], summary_path: Path | None = None, preamble: Sequence[str] = ()
) -> str:
    icon = {
        Status.PASS: "✅ pass",
        Status.FAIL: "❌ fail",
        Status.ERROR: "⚠️ error",
        Status.NOT_EXERCISED: "❌ not exercised",
        Status.SKIPPED: "⏭️ skipped",
    }
    lines = [
        "## rerun-safe",
        "",
        *(f"- {_md_escape(line)}" for line in preamble),
        *([""] if preamble else []),
        "| check | result | time | finding |",
        "|---|---|---|---|",
    ]
    for result in results:
        finding = result.headline()
        lines.append(f"| {result.name} | {icon[result.status]} | {result.duration_s:.1f} s | {_md_escape(finding)} |")
    header, rows = matrix(results)
    if rows and len(results) > 1:
        lines += ["", "### models × checks", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]  # noqa: RUF001 - a multiplication sign in Markdown
        lines += ["| " + " | ".join(_md_escape(cell) for cell in row) + " |" for row in rows]
    for result in results:
        lines += ["", f"### {result.name}: {MARK[result.status]}", ""]
        if result.status is Status.SKIPPED:
            lines.append(f"- skipped: {_md_escape(result.reason)}")
            continue
        lines += [f"- **error**: {_md_escape(error)}" for error in result.errors]
        lines += [f"- {_md_escape(line)}" for line in _finding_lines(result, "")] + [""]
        if result.trials:
            lines += _md_trials(result.trials)
        for comparison in result.comparisons:
            lines += _md_comparison(comparison)
        if result.metrics:
            lines += ["| metric | value |", "|---|---|"]
            lines += [f"| {name} | {value} |" for name, value in result.metrics.items()]
            lines.append("")
        lines += [f"- {_md_escape(note)}" for note in result.notes]
        for name, artifact in result.artifacts.items():
            shown = artifact
            if summary_path is not None and Path(artifact).parent == summary_path.parent:
                shown = Path(artifact).name
            lines.append(f"\n![{name}]({shown})")
    return "\n".join(lines).rstrip() + "\n"


def _md_trials(trials: Sequence[Trial]) -> list[str]:
    """The Markdown table of a check's points (crash, concurrency), then a blank line."""
    survived = sum(trial.survived for trial in trials)
    lines = [
        f"{len(trials)} point(s) tried: {survived} survived, {len(trials) - survived} failed",
        "",
        "| point | result | what happened | differing tables |",
        "|---|---|---|---|",
    ]
    for trial in trials:
        happened = "; ".join([trial.outcome] + [f"error: {e.splitlines()[0][:200]}" for e in trial.errors])
        lines.append(
            f"| {_md_escape(trial.label)} | {'survived' if trial.survived else '❌ failed'} "
            f"| {_md_escape(happened)} | {_md_escape('; '.join(trial.tables))} |"
        )
    return [*lines, ""]


def _md_verdict(diff: TableDiff) -> str:
    if diff.identical:
        return "identical"
    if diff.explained_by:
        return f"differs as already reported by {diff.explained_by}"
    if diff.warning:
        return "⚠️ warning (not a failure): " + _md_escape(diff.summary()) + " — " + _md_escape(diff.warning)
    return _md_escape(diff.summary()) + (f" — hint: {_md_escape(diff.hint)}" if diff.hint else "")


def _md_comparison(comparison: Comparison) -> list[str]:
    """A comparison as a Markdown table (a row per table, judged or not), the samples of its
    differing rows folded below it, then a blank line."""
    lines = [
        f"**{comparison.label}** (- {comparison.left}, + {comparison.right})",
        "",
        "| table | result | excluded columns |",
        "|---|---|---|",
    ]
    for diff in comparison.diffs:
        lines.append(f"| `{diff.table}` | {_md_verdict(diff)} | {', '.join(diff.excluded_columns)} |")
    for skipped in comparison.not_judged:
        lines.append(f"| `{skipped.table}` | not judged: {_md_escape(skipped.reason)} | |")
    for diff in comparison.diffs:
        if diff.sample and not diff.explained_by:
            lines += [
                "",
                f"<details><summary>sample of <code>{diff.table}</code></summary>",
                "",
                "```",
                diff.sample,
                "```",
                "",
                "</details>",
            ]
    return [*lines, ""]


def write_markdown(results: Sequence[CheckResult], path: Path, preamble: Sequence[str] = ()) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_markdown(results, path, preamble))
