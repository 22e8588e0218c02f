"""No function of the harness is longer than 80 lines (from its `def` to its last line): a
longer one is split along its seams. Pure Python, read with ast."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "harness"
MAX_LINES = 80


def long_functions(source: str, limit: int = MAX_LINES) -> list[tuple[str, int]]:
    """(name, lines) of every function or method of `source` longer than `limit` lines."""
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > limit
    ]


def test_no_harness_function_is_longer_than_80_lines() -> None:
    found = {
        f"{path.relative_to(PACKAGE.parent)}: {name}": lines
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, lines in long_functions(path.read_text(encoding="utf-8"))
    }
    assert found == {}


def test_a_long_function_is_found_by_its_lines() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(80))
    assert long_functions(f"def f():\n{body}") == [("f", 81)]
    assert long_functions("class C:\n" + textwrap.indent(f"def g(self):\n{body}", "    ")) == [("g", 81)]
    assert long_functions(f"def f():\n{body}", limit=81) == []
