"""Render check results: a terminal report, JUnit XML for CI, Markdown for a pull request."""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from harness.results import CheckResult, Comparison, Status, TableDiff

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
    lines = [f"{indent}{'ok  ' if diff.identical else 'DIFF'} {diff.table}{mode}{key}: {diff.summary()}"]
    if diff.excluded_columns:
        lines.append(f"{indent}     excluded (volatile): {', '.join(diff.excluded_columns)}")
    if diff.sample:
        lines.append(f"{indent}     sample (- left only, + right only):")
        lines.extend(textwrap.indent(diff.sample, indent + "       ").splitlines())
    return lines


def _comparison_lines(comparison: Comparison) -> list[str]:
    lines = [f"  {comparison.label}: {comparison.left} vs {comparison.right}"]
    for diff in comparison.diffs:
        lines.extend(_diff_lines(diff, "    "))
    for skipped in comparison.not_judged:
        lines.append(f"    --   {skipped.table}: not judged: {skipped.reason}")
    return lines


def render_terminal(results: Sequence[CheckResult]) -> str:
    lines: list[str] = []
    for result in results:
        lines.append(f"== {result.name}: {MARK[result.status]} ({result.duration_s:.1f} s)")
        for error in result.errors:
            lines.append(f"  error: {error}")
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
            line for comparison in result.comparisons for line in _comparison_lines(comparison)
        )
        if result.status is Status.FAIL:
            message = result.failure_message()
            failure = ET.SubElement(case, "failure", message=message.splitlines()[0] if message else "failed")
            failure.text = message + "\n\n" + details
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
        finding = result.failure_message().splitlines()[0] if not result.passed and result.failure_message() else (
            result.notes[0] if result.notes else ""
        )
        lines.append(
            f"| {result.name} | {icon[result.status]} | {result.duration_s:.1f} s | {_md_escape(finding)} |"
        )
    for result in results:
        lines += ["", f"### {result.name}: {MARK[result.status]}", ""]
        lines += [f"- **error**: {_md_escape(error)}" for error in result.errors]
        for comparison in result.comparisons:
            lines += [f"**{comparison.label}**", "", "| table | result | excluded columns |", "|---|---|---|"]
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
