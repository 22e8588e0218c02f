"""The mutants, the rules they break and the areas of the code (mutation/*.yml), and a mutant's
text: what the runner runs and the report names."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
MUTANTS_FILE = Path(__file__).resolve().parent / "mutants.yml"
RULES_FILE = Path(__file__).resolve().parent / "rules.yml"
AREAS_FILE = Path(__file__).resolve().parent / "areas.yml"


@dataclass
class Mutant:
    id: str
    klass: str
    file: str
    description: str
    replacements: list[tuple[str, str]]
    tests: list[str]
    rule: str = ""
    equivalent: str | None = None
    note: str | None = None
    status: str = "pending"  # killed | survived | not applicable | timeout | error
    killed_by: list[str] = field(default_factory=list)
    seconds: float = 0.0
    detail: str = ""
    text_sha: str = ""  # of the mutated file as this run made it (set when the copy is made)
    earlier: list[str] = field(default_factory=list)  # verdicts of earlier parts (results file)


def load_mutants(path: Path = MUTANTS_FILE) -> list[Mutant]:
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    mutants, seen = [], set()
    for entry in entries:
        if entry["id"] in seen:
            raise SystemExit(f"duplicate mutant id {entry['id']}")
        seen.add(entry["id"])
        pairs = entry.get("replacements") or [{"original": entry["original"], "replacement": entry["replacement"]}]
        mutants.append(
            Mutant(
                id=entry["id"],
                klass=entry["class"],
                file=entry["file"],
                description=entry["description"],
                replacements=[(pair["original"], pair["replacement"]) for pair in pairs],
                tests=list(entry["tests"]),
                rule=entry["rule"],
                equivalent=entry.get("equivalent"),
                note=entry.get("note"),
            )
        )
    return mutants


@dataclass
class Rule:
    id: str
    doc: str
    quote: str
    tests: list[str]


def load_rules(path: Path = RULES_FILE) -> list[Rule]:
    """The rules of rules.yml, in order; each mutant of mutants.yml names one (`rule:`)."""
    return [
        Rule(id=e["id"], doc=e["doc"], quote=e["quote"], tests=list(e["tests"]))
        for e in yaml.safe_load(path.read_text(encoding="utf-8"))
    ]


def load_areas(path: Path = AREAS_FILE) -> dict[str, list[str]]:
    """Path prefix -> the test modules of that area of the code (mutation/areas.yml)."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {str(prefix): [str(module) for module in modules] for prefix, modules in entries.items()}


def area_of(file: str, areas: dict[str, list[str]]) -> str | None:
    """The area of a file: the longest prefix of areas.yml it starts with, or None."""
    matching = [prefix for prefix in areas if file.startswith(prefix)]
    return max(matching, key=len) if matching else None


def area_tests(mutant: Mutant, areas: dict[str, list[str]]) -> list[str]:
    """The modules of the mutant's area that its own tests do not already run whole."""
    area = area_of(mutant.file, areas)
    if area is None or mutant.equivalent:
        return []
    whole = {test for test in mutant.tests if "::" not in test}
    return [module for module in areas[area] if module not in whole]


def mutated_text(mutant: Mutant, project: Path) -> tuple[str | None, str | None]:
    """The mutant's file in `project` with every replacement made, or why it cannot be made."""
    path = project / mutant.file
    if not path.is_file():
        return None, f"{mutant.file} does not exist"
    text = path.read_text(encoding="utf-8")
    for original, replacement in mutant.replacements:
        found = text.count(original)
        if found != 1:
            return None, f"original text found {found} times in {mutant.file} (must be exactly once): {original[:80]!r}"
        text = text.replace(original, replacement)
    return text, None
