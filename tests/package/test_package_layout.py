"""The package is macros/ minus macros/pipeline, and it stands on its own.

macros/dbt_project.yml lists the package's families; the root dbt_project.yml lists them and
macros/pipeline (the root cannot list macros/ itself: it would parse the package's
dbt_project.yml as a property file). A family added to one list and not the other, or a
package macro that calls a pipeline macro, breaks every project that installs the package.
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
MACROS = REPO / "macros"
DEFINITION = re.compile(r"{%-?\s*(?:macro|test)\s+(\w+)")
MATERIALIZATION = re.compile(r"{%-?\s*materialization\s+(\w+),\s*adapter=['\"](\w+)['\"]")
CALL = re.compile(r"\brerun_safe\.(\w+)\s*\(")


def _package_paths() -> list[str]:
    return yaml.safe_load((MACROS / "dbt_project.yml").read_text())["macro-paths"]


def _defined_in(folders: list[Path]) -> set[str]:
    names: set[str] = set()
    for folder in folders:
        for path in folder.rglob("*.sql"):
            text = path.read_text()
            for name in DEFINITION.findall(text):
                names.add(name)
                names.add("test_" + name)  # a generic test is also the macro test_<name>
            names.update(f"materialization_{name}_{adapter}" for name, adapter in MATERIALIZATION.findall(text))
    return names


def test_every_macro_folder_is_in_the_package_or_the_pipeline() -> None:
    families = sorted(p.name for p in MACROS.iterdir() if p.is_dir())
    package = _package_paths()
    assert sorted(package + ["pipeline"]) == families
    root = yaml.safe_load((REPO / "dbt_project.yml").read_text())["macro-paths"]
    assert sorted(root) == sorted(f"macros/{name}" for name in families)


def test_the_package_holds_macros_only() -> None:
    config = yaml.safe_load((MACROS / "dbt_project.yml").read_text())
    assert config["name"] == "rerun_safe"  # the namespace every call uses
    for key in ("model-paths", "seed-paths", "snapshot-paths", "on-run-start", "on-run-end", "models", "vars"):
        assert key not in config, key
    stray = [p.name for p in MACROS.iterdir() if p.is_file() and p.name != "dbt_project.yml"]
    assert stray == []


def test_package_macros_call_only_package_macros() -> None:
    package_folders = [MACROS / name for name in _package_paths()]
    defined = _defined_in(package_folders)
    # adapter.dispatch('x', 'rerun_safe') finds <adapter>__x and default__x beside x
    missing = {}
    for folder in package_folders:
        for path in folder.rglob("*.sql"):
            called = set(CALL.findall(path.read_text())) - defined
            if called:
                missing[str(path.relative_to(REPO))] = sorted(called)
    assert missing == {}, f"package macros call macros the package does not have: {missing}"
    # and the check sees pipeline macros as foreign: it can fail
    assert "landing_path" not in defined and "landing_path" in _defined_in([MACROS / "pipeline"])
