"""The rule table of `make mutate` stays true: every rule of mutation/rules.yml is stated in its
page (its quote is there, whitespace folded), is pinned by tests that exist, and is broken by at
least one mutant; every mutant names a known rule, and every test a mutant or a rule names exists."""

from __future__ import annotations

import ast

from mutation.runner import MUTANTS_FILE, ROOT, load_mutants, load_rules, mutated_text


def _fold(text: str) -> str:
    return " ".join(text.split())


def _exists(node_id: str) -> bool:
    """A pytest node id (file, or file::function, a parametrized [id] ignored) names a real test."""
    path, _, name = node_id.partition("::")
    file = ROOT / path
    if not file.is_file():
        return False
    if not name:
        return True
    name = name.split("[", 1)[0]
    tree = ast.parse(file.read_text(encoding="utf-8"))
    defined = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    imported = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    return name in defined | imported


def test_every_rule_is_stated_in_its_page_and_pinned_by_real_tests() -> None:
    rules = load_rules()
    assert len({r.id for r in rules}) == len(rules), "duplicate rule ids"
    unstated = [r.id for r in rules if _fold(r.quote) not in _fold((ROOT / r.doc).read_text(encoding="utf-8"))]
    assert not unstated, f"rules whose quote is not in their page any more: {unstated}"
    missing = [(r.id, t) for r in rules for t in r.tests if not _exists(t)]
    assert not missing, f"rules pinned by tests that do not exist: {missing}"
    assert all(r.tests for r in rules)


def test_every_rule_has_a_mutant_and_every_mutant_a_rule() -> None:
    rules = {r.id for r in load_rules()}
    mutants = load_mutants()
    unknown = sorted({m.rule for m in mutants} - rules)
    assert not unknown, f"mutants name rules that rules.yml does not have: {unknown}"
    unbroken = sorted(rules - {m.rule for m in mutants})
    assert not unbroken, f"rules no mutant breaks: {unbroken}"
    missing = [(m.id, t) for m in mutants for t in m.tests if not _exists(t)]
    assert not missing, f"mutants aimed at tests that do not exist: {missing}"


def test_every_mutant_applies_to_the_code_as_it_is() -> None:
    """Each mutant's original text is found exactly once in its file of this checkout, so a change
    that rewrites a line a mutant matches fails here, in make test, not only in make mutate (where
    the mutant would be `not applicable`); and the replacement changes the text."""
    stale, unchanged = [], []
    for m in load_mutants(MUTANTS_FILE) + load_mutants(MUTANTS_FILE.with_name("outside.yml")):
        text, problem = mutated_text(m, ROOT)
        if problem:
            stale.append(f"{m.id}: {problem}")
        elif text == (ROOT / m.file).read_text(encoding="utf-8"):
            unchanged.append(m.id)
    assert not stale, "mutants to re-point in mutation/mutants.yml or outside.yml:\n" + "\n".join(stale)
    assert not unchanged, f"mutants whose replacement changes nothing: {unchanged}"


# Every file of logic of more than LOGIC_LINES lines under these folders has a mutant in
# mutants.yml (a rule of it that a test pins, broken), so a new file without one fails here.
LOGIC_FOLDERS = ("models", "macros", "rerun_safe_duckdb", "harness")
LOGIC_SUFFIXES = (".sql", ".py")
LOGIC_LINES = 40
# Files of those folders that carry no rule a mutant could break, each with the reason.
NOT_LOGIC = {
    "harness/__init__.py": "the public API: imports and __all__, no statement of its own",
}


def files_of_logic(root=ROOT) -> list[str]:
    """The .sql and .py files of more than LOGIC_LINES lines under LOGIC_FOLDERS, as paths
    relative to the repository, sorted."""
    found = []
    for folder in LOGIC_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if (
                path.suffix in LOGIC_SUFFIXES
                and path.is_file()
                and "__pycache__" not in path.parts
                and len(path.read_text(encoding="utf-8").splitlines()) > LOGIC_LINES
            ):
                found.append(path.relative_to(root).as_posix())
    return sorted(found)


def test_every_file_of_logic_has_a_mutant() -> None:
    logic = files_of_logic()
    assert len(logic) > 50, "the file walk found too few files: check LOGIC_FOLDERS"
    mutated = {m.file for m in load_mutants(MUTANTS_FILE)}
    unknown = sorted(set(NOT_LOGIC) - set(logic))
    assert not unknown, f"NOT_LOGIC names files that are not files of logic here (renamed?): {unknown}"
    missing = [path for path in logic if path not in mutated and path not in NOT_LOGIC]
    assert not missing, (
        f"files of more than {LOGIC_LINES} lines under {', '.join(LOGIC_FOLDERS)} with no mutant in "
        "mutation/mutants.yml (add one that breaks a rule the file carries and a test pins):\n" + "\n".join(missing)
    )


def test_every_file_of_logic_has_an_area_whose_modules_exist() -> None:
    from mutation.runner import area_of, load_areas

    areas = load_areas()
    missing = sorted({m for modules in areas.values() for m in modules if not (ROOT / m).is_file()})
    assert not missing, f"mutation/areas.yml names test modules that do not exist: {missing}"
    without = [path for path in files_of_logic() if path not in NOT_LOGIC and area_of(path, areas) is None]
    assert not without, f"files of logic in no area of mutation/areas.yml: {without}"
