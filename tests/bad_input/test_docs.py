"""docs/bad-input.md lists every case of the catalogue (the page a user reads must stay true)."""

from __future__ import annotations

from pathlib import Path

from tests.bad_input.catalogue import FILE_CASES, VAR_CASES
from tests.bad_input.test_periphery_lock import LOCK_CASES, PROFILE_CASES

PAGE = Path(__file__).resolve().parents[2] / "docs" / "bad-input.md"


def test_the_page_lists_every_case() -> None:
    text = PAGE.read_text(encoding="utf-8")
    ids = [c.id for c in FILE_CASES] + [c.id for c in VAR_CASES]
    missing = [case_id for case_id in ids if f"`{case_id}`" not in text]
    assert not missing, f"docs/bad-input.md does not list: {missing}"
    assert len(FILE_CASES) + len(VAR_CASES) >= 40


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_the_page_lists_every_lock_and_profile_case_in_its_section() -> None:
    text = PAGE.read_text(encoding="utf-8")
    sections = {
        "The writer lock and its holder file": [c.id for c in LOCK_CASES],
        "Profile settings": [c.id for c in PROFILE_CASES],
    }
    missing = [
        (title, case_id)
        for title, ids in sections.items()
        for case_id in ids
        if f"| `{case_id}` |" not in _section(text, title)
    ]
    assert not missing, f"docs/bad-input.md does not list: {missing}"
    assert len(LOCK_CASES) >= 10 and len(PROFILE_CASES) >= 10


def test_the_page_lists_every_case_of_the_demos_neighbours() -> None:
    from tests.bad_input.test_periphery_demo import CASE_IDS, OTHER_CASE_IDS

    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## make show, make report, make demo, make land", 1)[-1].split("\n## ", 1)[0]
    from tests.test_bench_large import MAKE_CASES

    missing = [case for case in [*CASE_IDS, *OTHER_CASE_IDS, *MAKE_CASES] if f"`{case}`" not in section]
    assert not missing, f"docs/bad-input.md, make show, make report, make demo, make land, does not list: {missing}"
