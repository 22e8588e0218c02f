"""One engine, one file: harness/engines/<engine>.py holds that engine's SQL dialect (a `Sql`)
and its store (a `Store`), built on the shared modules alone (base.py, and schema_store.py for
the server engines). No engine module imports another, and the shared modules import no engine
module: only `open_store` (harness/engines/__init__.py) picks one."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from harness.engines.base import Sql, Store

ENGINES_DIR = Path(__file__).resolve().parents[2] / "harness" / "engines"
ENGINES = ("duckdb", "postgres", "spark")
SHARED = {"base": set(), "schema_store": {"harness.engines.base"}}


def _engine_imports(path: Path) -> set[str]:
    """The harness.engines modules `path` imports anywhere (top level, functions, TYPE_CHECKING)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name.startswith("harness.engines.")}


def test_every_module_of_the_package_is_an_engine_or_shared() -> None:
    stems = {path.stem for path in ENGINES_DIR.glob("*.py")} - {"__init__"}
    assert stems == set(ENGINES) | set(SHARED)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_engine_module_holds_its_dialect_and_its_store(engine: str) -> None:
    module = importlib.import_module(f"harness.engines.{engine}")
    own = [c for c in vars(module).values() if isinstance(c, type) and c.__module__ == module.__name__]
    dialects = [c for c in own if issubclass(c, Sql)]
    stores = [c for c in own if issubclass(c, Store)]
    assert [c.dialect for c in dialects] == [engine]
    assert [c.adapter for c in stores] == [engine]


@pytest.mark.parametrize("engine", ENGINES)
def test_an_engine_module_builds_on_the_shared_modules_only(engine: str) -> None:
    imported = _engine_imports(ENGINES_DIR / f"{engine}.py")
    assert imported <= {f"harness.engines.{name}" for name in SHARED}, imported


@pytest.mark.parametrize("shared", sorted(SHARED))
def test_a_shared_module_imports_no_engine_module(shared: str) -> None:
    assert _engine_imports(ENGINES_DIR / f"{shared}.py") <= SHARED[shared]
