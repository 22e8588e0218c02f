"""Every repository path that the docs and the configs name exists: a path in backquotes in a
page, a path in a comment or value of a config file. Generated places (target/, data/,
bench/out*) and placeholders (`<...>`, globs, `{...}`) are not checked; the CHANGELOG is
history and may name what is gone."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = [
    "README.md",
    "CONTRIBUTING.md",
    "harness/README.md",
    "mutation/outside-report.md",
    *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").rglob("*.md")),
    *sorted(str(p.relative_to(REPO)) for p in (REPO / "tests").rglob("README.md")),
]
CONFIGS = [
    "dbt_project.yml",
    "macros/dbt_project.yml",
    "Makefile",
    "pyproject.toml",
    "profiles.yml",
    ".pre-commit-config.yaml",
    ".sqlfluff",
    ".ci/run",
]
GENERATED = ("target/", "data/", "bench/out", "logs/", "dbt_packages/", ".venv/", "reports/")
# a token is a path when it starts with a tracked top-level folder and a slash
TOP = sorted(
    {
        p.split("/")[0]
        for p in subprocess.run(
            ["git", "-C", str(REPO), "ls-files"], capture_output=True, text=True, check=True
        ).stdout.splitlines()
        if "/" in p
    }
)
PATH = re.compile(r"(?<![\w./-])((?:" + "|".join(re.escape(t) for t in TOP) + r")/[\w./@+-]*)")


def _named(text: str, backquoted_only: bool) -> set[str]:
    pieces = re.findall(r"`([^`\n]+)`", text) if backquoted_only else [text]
    found = set()
    for piece in pieces:
        for match in PATH.finditer(piece):
            path = match.group(1).rstrip(".,:;)")
            end = match.end()
            if piece[end : end + 1] in "<{*[" and piece[end : end + 1]:
                continue  # a placeholder or a glob follows
            if not path.startswith(GENERATED):
                found.add(path)
    return found


def _missing(name: str, backquoted_only: bool) -> list[str]:
    text = (REPO / name).read_text(encoding="utf-8")
    return sorted(p for p in _named(text, backquoted_only) if not (REPO / p).exists())


@pytest.mark.parametrize("page", PAGES)
def test_every_path_a_page_names_exists(page: str) -> None:
    assert _missing(page, backquoted_only=True) == [], f"{page} names paths that do not exist"


@pytest.mark.parametrize("config", CONFIGS)
def test_every_path_a_config_names_exists(config: str) -> None:
    assert _missing(config, backquoted_only=False) == [], f"{config} names paths that do not exist"


def test_the_check_finds_a_missing_path() -> None:
    assert _named("see `models/staging/nowhere.sql` and `target/x` and `models/<name>.sql`", True) == {
        "models/staging/nowhere.sql"
    }
