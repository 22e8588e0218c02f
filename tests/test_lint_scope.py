"""`make lint` and the pre-commit hooks lint the same Python: every top-level folder that holds a
tracked .py file is in the Makefile's PYTHON_DIRS, which ruff check and ruff format --check get,
which is mypy's `files` (pyproject.toml; `make lint` runs mypy with no path so that it checks
them), and which the pre-commit hooks' `files` patterns match. Pure Python: no tool is run."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def python_folders() -> set[str]:
    listed = subprocess.run(["git", "ls-files", "-z", "--", "*.py"], cwd=ROOT, capture_output=True, check=True)
    names = [name for name in listed.stdout.decode("utf-8").split("\0") if name]
    assert names, "git ls-files listed no .py file"
    return {name.split("/", 1)[0] if "/" in name else name for name in names}


def lint_recipe() -> list[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\nlint:", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in recipe.splitlines()[1:]]


def python_dirs() -> list[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    found = re.search(r"^PYTHON_DIRS := (.+)$", makefile, re.MULTILINE)
    assert found, "the Makefile defines no PYTHON_DIRS"
    return found.group(1).split()


def test_every_python_folder_is_linted_by_ruff_and_mypy() -> None:
    dirs = python_dirs()
    assert set(dirs) == python_folders(), "PYTHON_DIRS is not the set of folders holding tracked .py files"
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert sorted(mypy["files"]) == sorted(dirs), "pyproject.toml's mypy files are not PYTHON_DIRS"
    assert mypy["strict"] is True
    recipe = lint_recipe()
    assert "$(BIN)/ruff check $(PYTHON_DIRS)" in recipe
    assert "$(BIN)/ruff format --check $(PYTHON_DIRS)" in recipe
    assert "$(BIN)/mypy" in recipe, "make lint must run mypy with no path, so that it checks pyproject's files"


def test_the_pre_commit_hooks_cover_the_same_folders() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    hooks = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    folders = python_folders()
    for hook_id, entry in (
        ("ruff-check", ".venv/bin/ruff check"),
        ("ruff-format", ".venv/bin/ruff format --check"),
        ("mypy", ".venv/bin/mypy"),
    ):
        hook = hooks[hook_id]
        assert hook["entry"] == entry, hook_id
        pattern = re.compile(hook["files"])
        missed = sorted(folder for folder in folders if not pattern.search(f"{folder}/module.py"))
        assert not missed, f"pre-commit hook {hook_id} skips {missed}"
        assert not pattern.search("docs/module.py"), f"pre-commit hook {hook_id} matches a folder outside PYTHON_DIRS"
    assert hooks["mypy"]["pass_filenames"] is False
