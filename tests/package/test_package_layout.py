"""The package is macros/ minus macros/pipeline, and it stands on its own.

macros/dbt_project.yml lists the package's families; the root dbt_project.yml lists them and
macros/pipeline (the root cannot list macros/ itself: it would parse the package's
dbt_project.yml as a property file). A family added to one list and not the other, or a
package macro that calls a pipeline macro, breaks every project that installs the package.

Laid out by macro, as dbt-utils is: each file holds one macro, named after the file, with its
dispatched implementations (`<adapter>__<name>`) and helpers, and no file holds more than 8
macros. A package macro is public when its folder's `_<family>__macros.yml` documents it
(argument for argument) or something outside the package calls it (a model, a hook, a data
test, the pipeline's macros, a consumer project, a run-operation in the docs); every other one
is a helper and is private: its name starts with `_` (dbt-utils' `_is_relation`), and a private
macro that dispatches keeps the `_` after the adapter's `__` (`_x` -> `default___x`,
`postgres___x`), the names dbt's dispatch looks up. A private macro may have a file of its own
(`_x.sql`), named after it. Read from the files, without dbt.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
MACROS = REPO / "macros"
DEFINITION = re.compile(r"{%-?\s*(?:macro|test)\s+(\w+)")
BLOCK = re.compile(r"{%-?\s*(macro|test|materialization)\s+(\w+)\s*(?:\(|,)")
COMMENT = re.compile(r"{#.*?#}", re.S)
ADAPTERS = ("default", "duckdb", "postgres", "spark")
DISPATCH = re.compile(r"\badapter\.dispatch\(\s*'(\w+)'")
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
    assert sorted([*package, "pipeline"]) == families
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


def _signature(text: str, start: int) -> list[str]:
    """The argument names of the definition whose `(` follows `start` (defaults may nest)."""
    begin = text.index("(", start) + 1
    depth, names, current = 0, [], ""
    for char in text[begin:]:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        if char == "," and depth == 0:
            names.append(current)
            current = ""
        else:
            current += char
    names.append(current)
    return [n.split("=")[0].strip() for n in names if n.strip()]


def _definitions(path: Path) -> list[tuple[str, str, list[str]]]:
    """(kind, name, argument names) of each definition in a macro file, comments left out."""
    text = COMMENT.sub(lambda m: " " * len(m.group(0)), path.read_text())
    found: list[tuple[str, str, list[str]]] = []
    for match in BLOCK.finditer(text):
        kind, name = match.group(1), match.group(2)
        if kind == "materialization":
            adapter = re.search(r"adapter\s*=\s*['\"](\w+)['\"]", text[match.start() : text.index("%}", match.start())])
            found.append((kind, f"materialization_{name}_{adapter.group(1) if adapter else 'default'}", []))
        else:
            found.append((kind, name if kind == "macro" else f"test_{name}", _signature(text, match.start())))
    return found


def _private(name: str) -> bool:
    return name.startswith("_")


def _group(name: str) -> str:
    """The macro a dispatched implementation implements (`duckdb__x` -> `x`)."""
    prefix, _, rest = name.partition("__")
    return rest if prefix in ADAPTERS and rest else name


@functools.cache
def _callers() -> dict[Path, str]:
    """The files that may call a package macro: macros, models, data tests, the hooks of
    dbt_project.yml, and the docs (run-operation)."""
    paths = [
        *MACROS.rglob("*.sql"),
        *(REPO / "models").rglob("*.sql"),
        *(REPO / "tests" / "dbt").rglob("*.sql"),
        REPO / "dbt_project.yml",
        REPO / "README.md",
        *(REPO / "docs").glob("*.md"),
    ]
    return {p: p.read_text() for p in paths}


def _callers_outside(names: set[str], path: Path) -> set[str]:
    """The names of `names` that a file other than `path` calls."""
    return {
        n
        for n in names
        for other, text in _callers().items()
        if other != path and re.search(rf"\brerun_safe\.{n}\b|\brun-operation {n}\b|dispatch\(\s*'{n}'", text)
    }


def _layout(path: Path) -> tuple[list[tuple[str, list[str]]], list[str], list[str]]:
    """A macro file's public definitions with their arguments, its helpers, and the macros it
    holds that should have a file of their own. The file's own macro is named after it (a
    generic test `x` is the macro test_x; the file materialization_x holds x's materialization
    for each adapter, materialization_x_<adapter>); beside it sit its `<adapter>__` versions
    (alone, for a dbt macro the file overrides) and helpers: macros only its file calls."""
    stem, definitions = path.stem, _definitions(path)
    own = [
        (name, args)
        for kind, name, args in definitions
        if name == stem or (kind == "materialization" and name.startswith(stem + "_"))
    ]
    implementations = [(name, args) for _, name, args in definitions if name != stem and _group(name) == stem]
    others = {_group(name) for _, name, _ in definitions} - {stem} - {name for name, _ in own}
    text = COMMENT.sub("", path.read_text())
    called_here = set(re.findall(r"\brerun_safe\.(\w+)\b", text)) | set(DISPATCH.findall(text))
    outside = _callers_outside(others, path)
    helpers = sorted(g for g in others if g in called_here and (_private(g) or g not in outside))
    return own or implementations, helpers, sorted(others - set(helpers))


def _package_files() -> list[Path]:
    return sorted(p for name in _package_paths() for p in (MACROS / name).glob("*.sql"))


# pipeline files that still hold several public macros (the revenue checks, staging uniqueness)
def test_each_file_holds_one_public_macro_named_after_it() -> None:
    wrong = {}
    for path in [*_package_files(), *sorted((MACROS / "pipeline").rglob("*.sql"))]:
        public, _, misplaced = _layout(path)
        if not public or misplaced:
            wrong[str(path.relative_to(REPO))] = misplaced or "no macro named after the file"
    assert wrong == {}, f"macros that need a file of their own: {wrong}"


def _documented(folder: Path) -> dict[str, dict]:
    yml = folder / f"_{folder.name}__macros.yml"
    assert yml.exists(), f"{yml.relative_to(REPO)} is missing"
    entries = yaml.safe_load(yml.read_text())["macros"]
    names = [entry["name"] for entry in entries]
    assert len(names) == len(set(names)), f"{yml.name} documents a macro twice"
    return {entry["name"]: entry for entry in entries}


def test_every_public_package_macro_is_documented_with_its_signature() -> None:
    from dbt.parser.schemas import is_valid_type  # the type names dbt accepts (validate_macro_args)

    problems = []
    for name in _package_paths():
        folder = MACROS / name
        documented = _documented(folder)
        public = {
            macro: args
            for path in sorted(folder.glob("*.sql"))
            if not _private(path.stem)
            for macro, args in _layout(path)[0]
        }
        for macro, args in public.items():
            entry = documented.get(macro)
            if entry is None:
                problems.append(f"{name}: {macro} has no entry")
                continue
            described = entry.get("arguments") or []
            named = [a["name"] for a in described]
            if named != args:
                problems.append(f"{name}: {macro}({', '.join(args)}) documented as ({', '.join(named)})")
            if not (entry.get("description") or "").strip():
                problems.append(f"{name}: {macro} has no description")
            problems += [
                f"{name}: {macro}.{a['name']} type {a.get('type')!r}"
                for a in described
                if not a.get("type") or not is_valid_type(a["type"]) or not a.get("description")
            ]
        # dbt warns on YAML for a macro that does not exist; and a helper is not documented here
        problems += [
            f"{name}: {macro} is documented but is no public macro here" for macro in documented if macro not in public
        ]
    assert problems == [], "\n".join(problems)


MOST_MACROS_PER_FILE = 8


def test_no_macro_file_holds_more_than_eight_macros() -> None:
    crowded = {
        str(path.relative_to(REPO)): len(_definitions(path))
        for path in sorted(MACROS.rglob("*.sql"))
        if len(_definitions(path)) > MOST_MACROS_PER_FILE
    }
    assert crowded == {}, f"split these along their seams (at most {MOST_MACROS_PER_FILE} macros a file): {crowded}"


def _outside_the_package() -> dict[Path, str]:
    """What uses the package from outside: the pipeline's models, data tests, hooks and macros,
    the consumer project (not its macro tests, which test the package's helpers too), and the
    docs (run-operation)."""
    consumer = REPO / "tests" / "package" / "consumer"
    paths = [
        *(REPO / "models").rglob("*.sql"),
        *(REPO / "tests" / "dbt").rglob("*.sql"),
        *(MACROS / "pipeline").rglob("*.sql"),
        REPO / "dbt_project.yml",
        REPO / "README.md",
        *(REPO / "docs").glob("*.md"),
        consumer / "dbt_project.yml",
        *[p for p in consumer.rglob("*.sql") if "macro_tests" not in p.relative_to(consumer).parts],
    ]
    return {p: p.read_text() for p in paths}


def _called_from_outside(name: str) -> list[str]:
    pattern = re.compile(rf"\brerun_safe\.{name}\b|\brun-operation {name}\b")
    return sorted(str(p.relative_to(REPO)) for p, text in _outside_the_package().items() if pattern.search(text))


def _package_groups() -> dict[str, set[str]]:
    """Each macro of the package (a dispatched one once, by its own name) -> every name it is
    defined or documented under (`x`, `default__x`, `test_x`, `materialization_x_<adapter>`)."""
    groups: dict[str, set[str]] = {}
    for path in _package_files():
        for kind, name, _args in _definitions(path):
            group = name if kind != "macro" else _group(name)
            groups.setdefault(group, set()).add(name)
    return groups


def test_package_helpers_are_private_and_public_macros_are_not() -> None:
    documented = {name for family in _package_paths() for name in _documented(MACROS / family)}
    unmarked, exposed = [], []
    for group, names in sorted(_package_groups().items()):
        public = bool(names & documented) or bool(_called_from_outside(group))
        if _private(group):
            exposed += [f"{group}: documented" for n in sorted(names & documented)]
            exposed += [f"{group}: called from {where}" for where in _called_from_outside(group)]
        elif not public:
            unmarked.append(group)
    assert unmarked == [], (
        f"helpers (documented nowhere, called only inside the package) must start with '_': {unmarked}"
    )
    assert exposed == [], f"private macros used as public ones: {exposed}"


def test_a_private_macro_dispatches_under_its_own_name() -> None:
    """`_x` dispatches `adapter.dispatch('_x', 'rerun_safe')`, so dbt looks up `default___x` and
    `<adapter>___x`: an implementation named `default__x` would never be found (or be `x`'s)."""
    wrong = {}
    for path in _package_files():
        text = COMMENT.sub("", path.read_text())
        for name in DISPATCH.findall(text):
            defined = {n for _k, n, _a in _definitions(path) if _group(n) == name and n != name}
            if _private(name) and not any(n.split("__", 1)[1] == name for n in defined):
                wrong[str(path.relative_to(REPO))] = name
    assert wrong == {}, f"dispatched private macros without an `<adapter>__<name>` implementation beside them: {wrong}"
