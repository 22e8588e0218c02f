"""One version per release: the harness (`rerun-safe --version`, the installed package's
metadata), the macro package's dbt_project.yml and the pipeline's agree, and the CHANGELOG has a
section for it; the files a user pins a release by (LICENSE, CHANGELOG, CONTRIBUTING) exist.
Every released section names its commit (`## [X.Y.Z] - YYYY-MM-DD - commit <sha>`), which is in
the history and carries that version. One dbt range: pyproject.toml's dependencies,
macros/dbt_project.yml's require-dbt-version and the harness's refusal (harness/compat.py)
agree, and the pinned versions lie inside the ranges."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

import harness
from harness._version import __version__
from harness.compat import SUPPORTED_DBT, VersionRange, unsupported_dbt

ROOT = Path(__file__).resolve().parents[1]


def test_every_place_carries_the_same_version() -> None:
    versions = {
        "harness/_version.py": __version__,
        "harness.__version__": harness.__version__,
        "installed rerun-safe-harness": version("rerun-safe-harness"),
        "macros/dbt_project.yml": yaml.safe_load((ROOT / "macros" / "dbt_project.yml").read_text())["version"],
        "dbt_project.yml": yaml.safe_load((ROOT / "dbt_project.yml").read_text())["version"],
    }
    assert len(set(versions.values())) == 1, versions
    shown = subprocess.run([sys.executable, "-m", "harness", "--version"], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == f"rerun-safe {__version__}"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "harness._version.__version__"}


def test_the_version_module_imports_nothing() -> None:
    """A leaf: reading the version (pyproject.toml's build, the CLI) never imports the package."""
    tree = ast.parse((ROOT / "harness" / "_version.py").read_text(encoding="utf-8"))
    assert [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)] == []


def test_the_changelog_has_the_version_and_the_release_files_exist() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert harness.__version__ in released_sections(changelog)
    assert "## [Unreleased]" in changelog
    assert (ROOT / "LICENSE").read_text().lstrip().startswith("Apache License")
    assert "git tag" in (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


# A released section: `## [0.1.0] - 2026-12-02 - commit ce85a3c` (7 to 40 hex digits).
RELEASE_HEADING = re.compile(
    r"^## \[(?P<version>\d+\.\d+\.\d+)\] - (?P<date>\d{4}-\d{2}-\d{2})(?: - commit (?P<commit>[0-9a-f]{7,40}))?$", re.M
)


def released_sections(changelog: str) -> dict[str, str | None]:
    """version -> the commit its heading names (None when it names none)."""
    return {found["version"]: found["commit"] for found in RELEASE_HEADING.finditer(changelog)}


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False)


def unreleased_entries(changelog: str) -> list[str]:
    """The `- ` lines of the [Unreleased] section."""
    section = changelog.split("## [Unreleased]", 1)[1].split("\n## [", 1)[0]
    return [line for line in section.splitlines() if line.startswith("- ")]


def test_every_release_names_its_commit() -> None:
    """A commit cannot name itself: the release commit (its entries moved out of [Unreleased])
    may leave its own heading without one; the first commit that logs anything new under
    [Unreleased] names it."""
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = released_sections(changelog)
    assert releases, "no `## [X.Y.Z] - YYYY-MM-DD - commit <sha>` section in CHANGELOG.md"
    unnamed = [v for v, commit in releases.items() if commit is None]
    newest = next(iter(releases))
    if unnamed == [newest] and not unreleased_entries(changelog):
        return  # the release commit itself
    assert not unnamed, f"CHANGELOG sections that name no commit (add ` - commit <sha>` to the heading): {unnamed}"


def test_the_release_commit_alone_may_leave_its_heading_without_a_commit() -> None:
    at_release = (
        "## [Unreleased]\n\n## [0.2.0] - 2027-01-01\n\n### Added\n- b\n\n## [0.1.0] - 2026-12-02 - commit abc1234\n"
    )
    assert unreleased_entries(at_release) == []
    later = at_release.replace("## [Unreleased]\n", "## [Unreleased]\n\n### Fixed\n- c\n")
    assert unreleased_entries(later) == ["- c"]
    assert released_sections(at_release) == {"0.2.0": None, "0.1.0": "abc1234"}


def test_each_release_commit_is_in_the_history_and_carries_its_version() -> None:
    """The named commit exists (a shallow clone cannot say: skipped there), holds that version in
    harness/_version.py (harness/__init__.py before it existed) and the CHANGELOG section, and a
    tag vX.Y.Z, where there is one, is it."""
    if _git("rev-parse", "--is-shallow-repository").stdout.strip() != "false":
        pytest.skip("not a full git clone: the release commits cannot be looked up")
    releases = released_sections((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
    for release, commit in releases.items():
        if commit is None:
            continue  # test_every_release_names_its_commit says so
        full = _git("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}").stdout.strip()
        assert full, f"CHANGELOG's {release} names commit {commit}, which is not in this repository's history"
        assert _git("merge-base", "--is-ancestor", full, "HEAD").returncode == 0, (
            f"{release}: {commit} is not an ancestor of HEAD"
        )
        # harness/_version.py holds it; releases made before it existed, harness/__init__.py
        carried = (
            _git("show", f"{full}:harness/_version.py").stdout or _git("show", f"{full}:harness/__init__.py").stdout
        )
        assert f'__version__ = "{release}"' in carried, f"{release}: commit {commit} carries another harness version"
        assert f"## [{release}]" in _git("show", f"{full}:CHANGELOG.md").stdout, (
            f"{release}: {commit} has no such section"
        )
        tag = _git("rev-parse", "--verify", "--quiet", f"refs/tags/v{release}^{{commit}}").stdout.strip()
        assert tag in ("", full), f"tag v{release} is {tag[:12]}, CHANGELOG names {commit}"


def _pyproject_ranges() -> dict[str, SpecifierSet]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = [Requirement(line) for line in project["dependencies"]]
    return {requirement.name.lower(): requirement.specifier for requirement in requirements}


def _pins(path: Path) -> dict[str, Version]:
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        found = re.match(r"([A-Za-z0-9._-]+)==([^\s#]+)", line)
        if found:
            pins[found[1].lower().replace("_", "-")] = Version(found[2])
    return pins


def test_every_dependency_is_a_range_and_the_pins_lie_inside() -> None:
    ranges = _pyproject_ranges()
    assert set(ranges) == {"dbt-core", "dbt-duckdb", "duckdb", "pandas", "numpy", "matplotlib"}
    for name, specifier in ranges.items():
        operators = {spec.operator for spec in specifier}
        assert operators == {">=", "<"}, (
            f"pyproject.toml: {name} needs a lower and an upper bound, has {specifier or 'none'}"
        )
    for source in ("requirements.txt", "requirements.lock"):
        pins = _pins(ROOT / source)
        for name, specifier in ranges.items():
            assert name in pins, f"{source} pins no {name}"
            assert pins[name] in specifier, f"{source} pins {name}=={pins[name]}, outside pyproject.toml's {specifier}"


def test_one_dbt_range_in_pyproject_the_macro_package_and_the_harness() -> None:
    ranges = _pyproject_ranges()
    supported = SpecifierSet(SUPPORTED_DBT.specifier)
    assert ranges["dbt-core"] == supported, (ranges["dbt-core"], SUPPORTED_DBT.specifier)
    assert ranges["dbt-duckdb"] == supported, "dbt-duckdb follows dbt-core's minor"
    required = yaml.safe_load((ROOT / "macros" / "dbt_project.yml").read_text())["require-dbt-version"]
    low, high = SUPPORTED_DBT.low, SUPPORTED_DBT.high
    assert required == [f">={low[0]}.{low[1]}.0", f"<{high[0]}.{high[1]}.0"], required
    assert Version(version("dbt-core")) in supported, "this environment's dbt-core is outside the tested range"


def test_an_untested_dbt_is_refused_in_one_line_naming_the_range() -> None:
    assert unsupported_dbt("1.11.16") is None
    assert unsupported_dbt("1.11.0rc1") is None
    for installed in ("1.12.0", "1.12.6", "1.10.9", "2.0.0", "unknown"):
        message = unsupported_dbt(installed)
        assert message is not None and "\n" not in message, installed
        assert f"dbt-core {installed}" in message and ">=1.11,<1.12" in message
    assert VersionRange("x", (1, 11), (1, 12)).specifier == ">=1.11,<1.12"


def test_the_refusal_reaches_the_command_line_before_dbt_starts(tmp_path: Path) -> None:
    """With dbt-core's metadata saying 1.12.6, `rerun-safe keys` exits 2 with one line."""
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(
        "import importlib.metadata as m\n"
        "_real = m.version\n"
        "m.version = lambda name: '1.12.6' if name == 'dbt-core' else _real(name)\n"
    )
    project = ROOT / "tests" / "fixtures" / "projects" / "correct"
    done = subprocess.run(
        [sys.executable, "-m", "harness", "keys", "--project-dir", str(project), "--work-dir", str(tmp_path / "work")],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(shim)},
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [lines[-1]] and "dbt-core 1.12.6 is installed" in lines[0] and ">=1.11,<1.12" in lines[0], (
        done.stderr
    )
