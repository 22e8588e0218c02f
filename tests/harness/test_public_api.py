"""The harness's public API (harness/__init__.py) as harness/README.md shows it, and its boundary:
the README's examples run as they stand, every exported name exists, and every internal module
is in ruff's banned-api list (pyproject.toml), so pipeline_demo/ and bench/ cannot import it."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import tomllib
from pathlib import Path

import pytest

import harness

ROOT = Path(__file__).resolve().parents[2]
# The internal module this repository's own tools may import (harness/_plumbing.py), and the
# only folders that may (besides harness/ and tests/).
PLUMBING = "harness._plumbing"
PLUMBING_USERS = ("pipeline_demo", "bench")
# The demo's plumbing: in harness._plumbing, never in the public API.
PLUMBING_NAMES = {"invoke", "land", "take_snapshot", "dbt_arguments", "dbt_settings", "load_manifest", "quote"}
README = ROOT / "harness" / "README.md"
SECTION = "## Using the harness from Python"


def _examples() -> list[str]:
    """The ```python blocks of the README's section on the public API, in order."""
    text = README.read_text(encoding="utf-8")
    assert SECTION in text
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```python\n(.*?)^```$", section, flags=re.S | re.M)


def test_the_readme_shows_two_examples() -> None:
    examples = _examples()
    assert len(examples) == 2
    assert "harness.diff_tables(" in examples[0] and "harness.run_checks(" in examples[1]


def test_the_readme_diff_tables_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(_examples()[0], f"{README}:diff_tables example", "exec"), {})
    assert "3 differing rows (-1 +2; rows 3 -> 4)" in capsys.readouterr().out


def test_the_readme_run_checks_example_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)  # its paths are the repository's fixtures
    exec(compile(_examples()[1], f"{README}:run_checks example", "exec"), {})
    assert capsys.readouterr().out.startswith("keys pass ")


def test_diff_tables_takes_queries_and_a_key() -> None:
    import duckdb

    con = duckdb.connect()
    con.execute("create table l as from (values (1, 'x', 1), (2, null, 2)) t(id, v, noise)")
    con.execute("create table r as from (values (1, 'x', 9), (2, null, 8), (3, 'y', 7)) t(id, v, noise)")
    same = harness.diff_tables(con, "select id, v from l", "  select id, v from r where id < 3", name="l")
    assert same.identical and same.table == "l" and same.left_rows == 2
    keyed = harness.diff_tables(con, "l", "r", key=["id"], exclude=["noise"], sample_size=0)
    assert (keyed.keys_added, keyed.keys_changed, keyed.excluded_columns, keyed.sample) == (1, 0, ("noise",), "")


def test_run_checks_refuses_an_unknown_check_or_project(tmp_path: Path) -> None:
    with pytest.raises(harness.UsageError, match="unknown check"):
        harness.run_checks(ROOT / "tests" / "fixtures" / "projects" / "correct", ["idempotence"])
    with pytest.raises(harness.UsageError, match=re.escape("no dbt_project.yml")):
        harness.run_checks(tmp_path, ["keys"])


def test_run_checks_gives_each_check_its_typed_options_and_refuses_a_foreign_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from harness import api
    from harness.checks import crash, idempotency

    project = ROOT / "tests" / "fixtures" / "projects" / "correct"
    seen: dict = {}

    def execute(settings, selected, run, *, named, options, progress):
        seen.update(names=[check.name for check in selected], run=run, options=options, named=named)
        return harness.RunResult(results=[])

    monkeypatch.setattr(api, "execute", execute)
    harness.run_checks(project, ["idempotency", "crash"], options={"per_model": True, "seed": 3}, sample_size=2)
    assert seen["options"] == {"idempotency": idempotency.Options(per_model=True), "crash": crash.Options(seed=3)}
    assert seen["run"] == harness.RunOptions(sample_size=2) and seen["named"]
    with pytest.raises(harness.UsageError, match=re.escape("no check of keys takes the option(s) per_model")):
        harness.run_checks(project, ["keys"], options={"per_model": True})


def test_every_exported_name_exists_and_every_internal_module_is_banned() -> None:
    assert all(hasattr(harness, name) for name in harness.__all__)
    assert harness.__version__ and "diff_tables" in harness.__all__ and "run_checks" in harness.__all__
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]["lint"]
    banned = set(lint["flake8-tidy-imports"]["banned-api"])
    package = ROOT / "harness"
    modules = {f"harness.{path.stem}" for path in package.glob("*.py") if path.stem not in ("__init__", "__main__")}
    modules |= {f"harness.{path.parent.name}" for path in package.glob("*/__init__.py")}
    modules |= {f"harness.{path.parent.name}.{path.stem}" for path in package.glob("*/*.py")} - {
        f"harness.{path.parent.name}.__init__" for path in package.glob("*/__init__.py")
    }
    # ruff bans a listed module's submodules too: harness.engines covers harness.engines.duckdb
    unbanned = {m for m in modules if not any(m == b or m.startswith(b + ".") for b in banned)}
    assert unbanned == {PLUMBING}, "internal modules ruff's banned-api (pyproject.toml) does not list"
    assert "TID251" in lint["select"]
    assert set(lint["per-file-ignores"]) == {"harness/**", "tests/**"}


def _imports_plumbing(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(alias.name == PLUMBING for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in (PLUMBING, "harness"):
            names = {alias.name for alias in node.names}
            if node.module == PLUMBING or "_plumbing" in names:
                return True
    return False


def test_only_the_repositorys_own_tools_import_the_plumbing_and_the_api_leaves_it_out() -> None:
    import harness._plumbing as plumbing

    skipped = {".venv", ".git", "target", "harness", "tests", "node_modules"}
    importers = {
        path.relative_to(ROOT).parts[0]
        for path in ROOT.rglob("*.py")
        if not skipped & set(path.relative_to(ROOT).parts) and _imports_plumbing(path)
    }
    assert importers and importers <= set(PLUMBING_USERS), importers
    assert set(plumbing.__all__) >= PLUMBING_NAMES and not PLUMBING_NAMES & set(harness.__all__)
    assert all(hasattr(plumbing, name) for name in plumbing.__all__)
    assert (plumbing.__doc__ or "").startswith("Internal:") and "semantic versioning" in (plumbing.__doc__ or "")


def test_every_exception_the_harness_defines_derives_from_one_root() -> None:
    import harness.errors as errors

    defined = []
    for path in sorted(set((ROOT / "harness").rglob("*.py")) - {ROOT / "harness" / "__main__.py"}):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        module = importlib.import_module(name)
        defined += [v for v in vars(module).values() if inspect.isclass(v) and v.__module__ == name]
    raised = [c for c in defined if issubclass(c, BaseException)]
    assert errors.RerunSafeError in raised and errors.FaultIgnored in raised
    assert [c for c in raised if not issubclass(c, harness.RerunSafeError)] == []
    # the builtin each one was before stays a base, so an older `except ValueError` still catches it
    assert issubclass(harness.UsageError, ValueError) and issubclass(harness.Refused, RuntimeError)
    assert issubclass(harness.NothingSelected, harness.DbtError) and issubclass(harness.DbtError, RuntimeError)
