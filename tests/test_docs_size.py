"""The docs stay a size a reader can hold, and no page pastes another: all tracked Markdown
totals at most MAX_LINES lines, and no run of COPIED_RUN consecutive non-blank lines appears in
two Markdown files (a measurement or a table is generated or recorded once, then linked)."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MAX_LINES = 3500
COPIED_RUN = 15


def tracked_markdown() -> list[str]:
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "*.md"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    return [name for name in listed if (REPO / name).is_file()]


def line_count(text: str) -> int:
    return len(text.splitlines())


def shared_runs(texts: dict[str, str], run: int = COPIED_RUN) -> list[tuple[str, str, str]]:
    """(file, other file, the run's first line) for each run of `run` consecutive non-blank lines
    (surrounding blanks ignored) that two files both hold; one finding per pair of files."""
    first_holder: dict[tuple[str, ...], str] = {}
    found: dict[tuple[str, str], str] = {}
    for name, text in texts.items():
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        for start in range(len(lines) - run + 1):
            window = tuple(lines[start : start + run])
            holder = first_holder.setdefault(window, name)
            if holder != name:
                found.setdefault((holder, name), window[0])
    return [(a, b, line) for (a, b), line in sorted(found.items())]


def test_all_tracked_markdown_stays_within_its_budget() -> None:
    sizes = {name: line_count((REPO / name).read_text(encoding="utf-8")) for name in tracked_markdown()}
    assert len(sizes) > 10, "git ls-files found too few Markdown files"
    largest = ", ".join(f"{name} {n}" for name, n in sorted(sizes.items(), key=lambda item: -item[1])[:5])
    assert sum(sizes.values()) <= MAX_LINES, (
        f"tracked Markdown has {sum(sizes.values())} lines, over {MAX_LINES}; the largest: {largest}"
    )


def test_no_markdown_file_pastes_a_block_of_another() -> None:
    texts = {name: (REPO / name).read_text(encoding="utf-8") for name in tracked_markdown()}
    copied = shared_runs(texts)
    assert copied == [], "Markdown files sharing a block of {} lines (link instead): {}".format(
        COPIED_RUN, "; ".join(f"{a} and {b}, from {line!r}" for a, b, line in copied)
    )


def test_the_check_finds_a_pasted_block_and_only_that() -> None:
    block = "\n".join(f"| row {n} | value {n} |" for n in range(COPIED_RUN))
    short = "\n".join(block.splitlines()[:-1])
    pasted = {"a.md": f"# A\n\n{block}\n", "b.md": f"# B\n\nintro\n\n{block.replace(chr(10), chr(10) * 2)}\n"}
    assert [(a, b) for a, b, _ in shared_runs(pasted)] == [("a.md", "b.md")]
    assert shared_runs({"a.md": block, "b.md": short}) == []
    assert shared_runs({"a.md": block + "\n" + block}) == []  # a file may repeat itself
    assert line_count("a\n\nb\n") == 3
