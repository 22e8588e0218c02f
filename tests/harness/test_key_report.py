"""The report lists every model whose key was not asserted, and why (no key, declared to
repeat, not judged), in the text and in the keys column of the models x checks table."""

from __future__ import annotations

from harness.keys import KeyNotAsserted
from harness.report import matrix, render_markdown, render_terminal
from harness.results import CheckResult, Comparison, Status, TableDiff

REPEATS = "unique_key declared to repeat (meta.rerun_safe.unique_key_repeats)"
NO_KEY = "no unique_key and no unique / unique_combination test"


def _results() -> list[CheckResult]:
    keys = CheckResult(
        name="keys",
        status=Status.PASS,
        exercised={"grains asserted": 1, "rows checked": 9},
        keys_not_asserted=[
            KeyNotAsserted("daily", "main.daily", REPEATS, ("day",)),
            KeyNotAsserted("copies", "main.copies", REPEATS, ("event_key",)),
            KeyNotAsserted("log", "main.log", NO_KEY),
        ],
    )
    tables = ("main.daily", "main.copies", "main.log", "main.items")
    idempotency = CheckResult(
        name="idempotency",
        status=Status.PASS,
        comparisons=[Comparison("twice", "a", "b", diffs=[TableDiff(t, left_rows=1, right_rows=1) for t in tables])],
    )
    return [keys, idempotency]


def test_the_keys_not_asserted_are_listed_with_why() -> None:
    results = _results()
    for text in (render_terminal(results), render_markdown(results)):
        assert f"key not asserted, {REPEATS}: daily (day), copies (event_key)" in text, text
        assert f"key not asserted, {NO_KEY}: log" in text, text
    header, rows = matrix(results)
    cells = {row[0]: dict(zip(header[1:], row[1:], strict=True)) for row in rows}
    assert cells["daily"]["keys"] == cells["copies"]["keys"] == "key repeats (declared)"
    assert cells["log"]["keys"] == "no key"
    assert cells["items"]["keys"] == "ok"  # asserted
