"""docs/bad-input.md lists every case of the catalogue (the page a user reads must stay true)."""
from __future__ import annotations

from pathlib import Path

from tests.bad_input.catalogue import FILE_CASES, VAR_CASES

PAGE = Path(__file__).resolve().parents[2] / "docs" / "bad-input.md"


def test_the_page_lists_every_case() -> None:
    text = PAGE.read_text(encoding="utf-8")
    missing = [c.id for c in [*FILE_CASES, *VAR_CASES] if f"`{c.id}`" not in text]
    assert not missing, f"docs/bad-input.md does not list: {missing}"
    assert len(FILE_CASES) + len(VAR_CASES) >= 40
