"""The README's layout section matches the tree: every top-level entry and every folder of
tests/ that git tracks is named there, and every path it names exists."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _layout_block() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Layout", 1)[1]
    return section.split("```", 2)[1]


def _tracked() -> list[str]:
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files"], capture_output=True, text=True, check=True)
    return listed.stdout.splitlines()


def test_every_tracked_top_level_entry_and_test_folder_is_in_the_layout() -> None:
    block = _layout_block()
    tracked = _tracked()
    top = {path.split("/")[0] for path in tracked if not path.startswith(".")}
    test_dirs = {path.split("/")[1] for path in tracked if path.startswith("tests/") and path.count("/") >= 2}
    missing = sorted(name for name in top if name not in block)
    missing += sorted(f"tests/{name}/" for name in test_dirs if f"tests/{name}/" not in block)
    assert missing == [], f"README.md's layout does not mention: {missing}"


def test_every_path_in_the_layout_exists() -> None:
    named = re.findall(r"^([\w./*-]+)", _layout_block(), flags=re.M)
    absent = [name for name in named if "*" not in name and not (REPO / name).exists()]
    assert named and absent == [], f"README.md's layout names what does not exist: {absent}"


def _sections(text: str) -> list[str]:
    return re.findall(r"^## (.+)$", text, flags=re.M)


def _anchor(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def test_the_front_door_opens_with_three_paths_and_a_table_of_contents() -> None:
    """The opening gives three five-minute paths (the demo, the macros, the harness in PR CI), then
    a table of contents whose every link is a heading of the page and that lists every heading;
    the main command table leaves the benchmark and Spark commands to their pages; the page stays
    short."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    sections = _sections(text)
    assert sections[:2] == ["Three five-minute paths", "Contents"], sections[:3]
    paths = text.split("## Three five-minute paths", 1)[1].split("\n## ", 1)[0]
    for start in ("**Try the demo**", "**Adopt the macros**", "**Put the harness in your pull-request CI**"):
        assert start in paths, start
    assert "make demo" in paths and "subdirectory: macros" in paths and "harness/README.md#" in paths
    contents = text.split("## Contents", 1)[1].split("\n## ", 1)[0]
    linked = re.findall(r"\]\(#([^)]+)\)", contents)
    anchors = {_anchor(s) for s in sections}
    assert [a for a in linked if a not in anchors] == [], "the contents link to no heading"
    assert sorted(anchors - set(linked) - {"three-five-minute-paths", "contents"}) == []
    commands = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `make ([\w-]+)", commands, flags=re.M)
    assert rows and not [r for r in rows if r.startswith(("bench", "spark", "setup-spark", "pytest-spark"))], rows
    assert len(text.splitlines()) <= 345


def test_the_benchmark_and_spark_commands_are_on_their_pages() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([\w-]+):", makefile, flags=re.M))
    pages = (("docs/benchmarks.md", ("bench",)), ("docs/engines.md", ("spark", "setup-spark", "pytest-spark")))
    for page, prefixes in pages:
        text = (REPO / page).read_text(encoding="utf-8")
        for target in sorted(t for t in targets if t.startswith(prefixes) and t != "spark-cluster-stop"):
            assert f"`make {target}`" in text, (page, target)
