"""Render check results: a terminal report, JUnit XML for CI, Markdown for a pull request."""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from harness.results import CheckResult, Comparison, Status, TableDiff, Trial

MARK = {Status.PASS: "PASS", Status.FAIL: "FAIL", Status.ERROR: "ERROR"}


def overall_exit_code(results: Sequence[CheckResult]) -> int:
    """0 when every check passed, 1 when one failed, 2 when one could not run."""
    if any(r.status is Status.ERROR for r in results):
        return 2
    if any(r.status is Status.FAIL for r in results):
        return 1
    return 0


def _diff_lines(diff: TableDiff, indent: str) -> list[str]:
    mode = " [history: sums per group]" if diff.mode == "history" else ""
    key = f" key ({', '.join(diff.key)})" if diff.key else ""
    if diff.key and diff.key_source not in ("", "config"):
        key += f" from {diff.key_source}"
    lines = [f"{indent}{'ok  ' if diff.identical else 'DIFF'} {diff.table}{mode}{key}: {diff.summary()}"]
    if diff.excluded_columns:
        lines.append(f"{indent}     excluded (meta.rerun_safe.volatile_columns): {', '.join(diff.excluded_columns)}")
    if diff.sample:
        lines.append(f"{indent}     sample (_side -: left only, +: right only; _copies: how many more):")
        lines.extend(textwrap.indent(diff.sample, indent + "       ").splitlines())
    return lines


def _comparison_lines(comparison: Comparison, verbose: bool = False) -> list[str]:
    lines = [f"  {comparison.label}  [- {comparison.left} | + {comparison.right}]"]
    def worth_a_line(diff: TableDiff) -> bool:
        return verbose or not diff.identical or bool(diff.excluded_columns) or diff.mode != "exact"

    plain = [d.table for d in comparison.diffs if not worth_a_line(d)]
    if plain and not verbose:
        lines.extend(
            textwrap.wrap(
                f"ok   {len(plain)} identical: " + ", ".join(plain),
                width=100, initial_indent="    ", subsequent_indent="           ",
            )
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


def render_terminal(results: Sequence[CheckResult]) -> str:
    lines: list[str] = []
    for result in results:
        headline = "" if result.passed else f": {result.headline()}"
        lines.append(f"== {result.name}: {MARK[result.status]} ({result.duration_s:.1f} s){headline}")
        for error in result.errors:
            lines.append(f"  error: {error}")
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
        f"{counts[Status.ERROR]} could not run"
    )
    return "\n".join(lines)


def write_junit(results: Sequence[CheckResult], path: Path) -> None:
    suite = ET.Element(
        "testsuite",
        name="rerun-safe",
        tests=str(len(results)),
        failures=str(sum(r.status is Status.FAIL for r in results)),
        errors=str(sum(r.status is Status.ERROR for r in results)),
        time=f"{sum(r.duration_s for r in results):.3f}",
    )
    for result in results:
        case = ET.SubElement(
            suite, "testcase", classname="rerun_safe", name=result.name, time=f"{result.duration_s:.3f}"
        )
        details = "\n".join(
            _trial_lines(result.trials)
            + [line for comparison in result.comparisons for line in _comparison_lines(comparison, verbose=True)]
        )
        if result.status is Status.FAIL:
            failure = ET.SubElement(case, "failure", message=result.headline() or "failed")
            failure.text = result.failure_message() + "\n\n" + details
        elif result.status is Status.ERROR:
            error = ET.SubElement(case, "error", message=(result.errors or ["error"])[0])
            error.text = "\n".join(result.errors)
        output = "\n".join(
            [details] + [f"{k}: {v}" for k, v in result.metrics.items()] + result.notes
        ).strip()
        if output:
            ET.SubElement(case, "system-out").text = output
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(results: Sequence[CheckResult], summary_path: Path | None = None) -> str:
    icon = {Status.PASS: "✅ pass", Status.FAIL: "❌ fail", Status.ERROR: "⚠️ error"}
    lines = ["## rerun-safe", "", "| check | result | time | finding |", "|---|---|---|---|"]
    for result in results:
        finding = result.headline()
        lines.append(
            f"| {result.name} | {icon[result.status]} | {result.duration_s:.1f} s | {_md_escape(finding)} |"
        )
    for result in results:
        lines += ["", f"### {result.name}: {MARK[result.status]}", ""]
        lines += [f"- **error**: {_md_escape(error)}" for error in result.errors]
        if result.trials:
            survived = sum(trial.survived for trial in result.trials)
            lines += [
                f"{len(result.trials)} point(s) tried: {survived} survived, "
                f"{len(result.trials) - survived} failed", "",
                "| point | result | what happened | differing tables |", "|---|---|---|---|",
            ]
            for trial in result.trials:
                happened = "; ".join([trial.outcome] + [f"error: {e.splitlines()[0][:200]}" for e in trial.errors])
                lines.append(
                    f"| {_md_escape(trial.label)} | {'survived' if trial.survived else '❌ failed'} "
                    f"| {_md_escape(happened)} | {_md_escape('; '.join(trial.tables))} |"
                )
            lines.append("")
        for comparison in result.comparisons:
            lines += [f"**{comparison.label}** (- {comparison.left}, + {comparison.right})", "", "| table | result | excluded columns |", "|---|---|---|"]
            for diff in comparison.diffs:
                lines.append(
                    f"| `{diff.table}` | {'identical' if diff.identical else _md_escape(diff.summary())} "
                    f"| {', '.join(diff.excluded_columns)} |"
                )
            for skipped in comparison.not_judged:
                lines.append(f"| `{skipped.table}` | not judged: {_md_escape(skipped.reason)} | |")
            samples = [diff for diff in comparison.diffs if diff.sample]
            for diff in samples:
                lines += [
                    "", f"<details><summary>sample of <code>{diff.table}</code></summary>", "",
                    "```", diff.sample, "```", "", "</details>",
                ]
            lines.append("")
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


def write_markdown(results: Sequence[CheckResult], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_markdown(results, path))
