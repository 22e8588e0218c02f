"""No import cycle among the harness's modules: each module's module-level imports (those under
`if TYPE_CHECKING:` too, since a cycle there is one a refactoring turns into a crash) form a
graph with no cycle. Imports inside functions are not module-level and are not counted.
Pure Python, read with ast: nothing is imported."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "harness"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run when the module is imported: not those in a def or a class."""
    for node in body:
        yield node
        if isinstance(node, ast.If | ast.Try | ast.With):
            for block in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(node, block, []):
                    yield from _module_level(child.body if isinstance(child, ast.ExceptHandler) else [child])


def imported(name: str, path: Path, modules: set[str]) -> set[str]:
    """The harness modules `name` (at `path`) imports at module level."""
    package = name if path.stem == "__init__" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _module_level(ast.parse(path.read_text(encoding="utf-8")).body):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, one level up per extra dot
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in modules else base)
    return (found & modules) - {name}


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: imported(name, path, set(modules)) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of `graph` as the path that closes it (first module repeated last), else []."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[str] = [start]
        on_path = {start}
        stack: list[Iterator[str]] = [iter(sorted(graph[start]))]
        while stack:
            following = next(stack[-1], None)
            if following is None:
                stack.pop()
                finished = path.pop()
                on_path.discard(finished)
                done.add(finished)
                continue
            if following in on_path:
                return [*path[path.index(following) :], following]
            if following in done:
                continue
            path.append(following)
            on_path.add(following)
            stack.append(iter(sorted(graph[following])))
    return []


def test_the_harness_modules_import_each_other_without_a_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle == [], "import cycle: " + " -> ".join(cycle)


def test_the_finder_sees_a_cycle_and_the_import_graph_has_edges() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
    graph = import_graph()
    assert "harness.checks.crash" in graph["harness.checks"]
    assert "harness.engines.base" in graph["harness.sources"]
