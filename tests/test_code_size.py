"""Size limits of the repository's own Python (tests/ excepted): no file over MAX_FILE_LINES
lines and no function over MAX_FUNCTION_LINES lines (a function's lines run from its `def`, or
its first decorator, to its last line). And no module reaches another by putting a folder on
`sys.path` (`sys.path.insert`, `sys.path.append`): a folder is a package, imported as one.
Pure Python over the files git tracks: no dbt, no database."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80


def tracked_python(root: Path = ROOT) -> list[str]:
    """The .py files git tracks, as paths relative to the repository."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", "*.py"], cwd=root, capture_output=True, check=True
    ).stdout.decode("utf-8")
    return sorted(name for name in listed.split("\0") if name)


def outside_tests(paths: list[str]) -> list[str]:
    return [path for path in paths if not path.startswith("tests/")]


def oversized(path: str, source: str) -> list[str]:
    """The limits `source` (the text of `path`) breaks, one line each."""
    found = []
    lines = len(source.splitlines())
    if lines > MAX_FILE_LINES:
        found.append(f"{path}: {lines} lines (at most {MAX_FILE_LINES})")
    for node in ast.walk(ast.parse(source, filename=path)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            length = (node.end_lineno or node.lineno) - first + 1
            if length > MAX_FUNCTION_LINES:
                found.append(f"{path}:{node.lineno}: {node.name} is {length} lines (at most {MAX_FUNCTION_LINES})")
    return found


def path_hacks(path: str, source: str) -> list[str]:
    """Each call of sys.path.insert or sys.path.append in `source`, one line each."""
    found = []
    for node in ast.walk(ast.parse(source, filename=path)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("insert", "append")
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "path"
            and isinstance(node.func.value.value, ast.Name)
            and node.func.value.value.id == "sys"
        ):
            found.append(f"{path}:{node.lineno}: sys.path.{node.func.attr}")
    return found


def _read(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def test_the_walk_finds_the_repositorys_python() -> None:
    paths = outside_tests(tracked_python())
    for expected in ("harness/cli.py", "rerun_safe_duckdb/__init__.py", "pipeline_demo/generate.py"):
        assert expected in paths, f"git ls-files did not list {expected}: check tracked_python()"
    assert not any(path.startswith("tests/") for path in paths)


def test_no_file_or_function_outside_tests_is_over_its_limit() -> None:
    found = [line for path in outside_tests(tracked_python()) for line in oversized(path, _read(path))]
    assert not found, "split along a real seam:\n" + "\n".join(found)


def test_no_module_outside_tests_puts_a_folder_on_sys_path() -> None:
    found = [line for path in outside_tests(tracked_python()) for line in path_hacks(path, _read(path))]
    assert not found, "import the folder as a package instead:\n" + "\n".join(found)


def test_the_limits_are_counted_as_stated() -> None:
    body = "\n".join(f"    x = {i}" for i in range(MAX_FUNCTION_LINES - 1))
    at_limit = f"def f():\n{body}\n"
    assert oversized("f.py", at_limit) == []
    over = f"@decorator\ndef f():\n{body}\n"
    assert oversized("f.py", over) == [f"f.py:2: f is {MAX_FUNCTION_LINES + 1} lines (at most {MAX_FUNCTION_LINES})"]
    nested = f"class C:\n    async def g(self):\n    {body.replace(chr(10), chr(10) + '    ')}\n        return 1\n"
    assert len(oversized("c.py", nested)) == 1
    assert oversized("m.py", "x = 1\n" * MAX_FILE_LINES) == []
    assert oversized("m.py", "x = 1\n" * (MAX_FILE_LINES + 1)) == [
        f"m.py: {MAX_FILE_LINES + 1} lines (at most {MAX_FILE_LINES})"
    ]


def test_a_path_hack_is_found_and_a_lookalike_is_not() -> None:
    source = "import sys\nsys.path.insert(0, 'bench')\nsys.path.append('x')\npaths.insert(0, 1)\nos.path.join('a')\n"
    assert path_hacks("s.py", source) == ["s.py:2: sys.path.insert", "s.py:3: sys.path.append"]
