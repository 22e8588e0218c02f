"""One version per release: the harness (`rerun-safe --version`, the installed package's
metadata), the macro package's dbt_project.yml and the pipeline's agree, and the CHANGELOG has a
section for it; the files a user pins a release by (LICENSE, CHANGELOG, CONTRIBUTING) exist."""
from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import yaml

import harness

ROOT = Path(__file__).resolve().parents[1]


def test_every_place_carries_the_same_version() -> None:
    versions = {
        "harness.__version__": harness.__version__,
        "installed rerun-safe-harness": version("rerun-safe-harness"),
        "macros/dbt_project.yml": yaml.safe_load((ROOT / "macros" / "dbt_project.yml").read_text())["version"],
        "dbt_project.yml": yaml.safe_load((ROOT / "dbt_project.yml").read_text())["version"],
    }
    assert len(set(versions.values())) == 1, versions
    shown = subprocess.run([sys.executable, "-m", "harness", "--version"], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == f"rerun-safe {harness.__version__}"


def test_the_changelog_has_the_version_and_the_release_files_exist() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(harness.__version__)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", changelog, re.M)
    assert "## [Unreleased]" in changelog
    assert (ROOT / "LICENSE").read_text().lstrip().startswith("Apache License")
    assert "git tag" in (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
