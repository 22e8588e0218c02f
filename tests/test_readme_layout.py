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
