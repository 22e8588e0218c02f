"""The project's seeds load on every engine: dbt-spark writes a seed's values into its INSERT
as literals without escaping, so a single quote in a value breaks the seed there (and every
build after it)."""

from __future__ import annotations

from pathlib import Path

SEEDS = Path(__file__).resolve().parents[1] / "seeds"


def test_no_seed_value_holds_a_single_quote() -> None:
    found = [
        f"{path.name}:{number}"
        for path in sorted(SEEDS.glob("*.csv"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if "'" in line
    ]
    assert sorted(SEEDS.glob("*.csv")), "no seed found"
    assert not found, f"a single quote in a seed value (dbt-spark does not escape it): {found}"
