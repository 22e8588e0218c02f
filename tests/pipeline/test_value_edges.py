"""The landing door's value rules, every class of each kind, not one sample of it.

One delivery holds a row per case; one build stages it; each row must end where its rule says:
- a key column (event_id, company_id, order_id, order_item_id) holding, inside the value, any
  character of the Unicode classes Cc, Cf, Zs, Zl or Zp (ASCII space and U+FEFF among them) is
  `invalid_key`, whichever key column it is in;
- every text value is trimmed at both ends: only a leading, only a trailing, or both;
- only the contract's two timestamp forms are accepted, in event_time and in ingested_at;
- event_time may lie at most max_event_time_ahead_hours after ingested_at: at the bound the
  row is valid, one second beyond it is `event_time_after_ingestion`;
- the quarantine keeps the landed text of every field of a rejected row (trimmed, as staged).
Every engine (tests/pipeline/engines.py) stages the same delivery and meets the same rules
(on Postgres: the postgres__ regex of has_blank_or_control, trim_blank and parse_utc_timestamp).
"""

from __future__ import annotations

import sys
import unicodedata

import pytest

from tests.pipeline.engines import engine_params, pipeline_on
from tests.pipeline.project import HEADER, Pipeline, event

KEY_COLUMNS = ("event_id", "company_id", "order_id", "order_item_id")
INVISIBLE_CLASSES = ("Cc", "Cf", "Zs", "Zl", "Zp")


def invisible_characters() -> list[str]:
    """Every code point of the classes a key must not hold (this Python's Unicode database)."""
    found = [chr(cp) for cp in range(sys.maxunicode + 1) if unicodedata.category(chr(cp)) in INVISIBLE_CLASSES]
    # NUL, and CR or LF inside a field, reject the whole file (docs/bad-input.md, tests/bad_input)
    return [ch for ch in found if ch not in "\x00\r\n"]


ACCEPTED_TIMES = ("2026-11-01T10:15:00Z", "2026-11-01 10:15:00")
REJECTED_TIMES = (
    "2026-11-01T10:15:00",  # T without Z
    "2026-11-01 10:15:00Z",  # Z without T
    "2026-11-01T10:15:00+00:00",
    "2026-11-01T10:15:00.000Z",
    "2026-11-01t10:15:00z",
    "20261101T101500Z",
    "2026-11-01",
    "2026-11-01T10:15Z",
    "2026-11-01 10:15",
    "2026-11-01T10:15:00 Z",
    "2026-11-01  10:15:00",
)
BLANKS = (" ", "\t")


def cases() -> list[tuple[dict[str, str], str | None]]:
    """(row, the reason staging must give it, None for a valid row)."""
    rows: list[tuple[dict[str, str], str | None]] = []
    number = iter(range(1_000_000))

    def add(expected: str | None, **fields: str) -> None:
        n = next(number)
        base = event(f"e{n}", 100, order_item_id=f"i{n}")
        rows.append(({**base, **fields}, expected))

    for column in KEY_COLUMNS:
        for ch in invisible_characters():
            add("invalid_key", **{column: f"k{next(number)}{ch}x"})  # inside: trimming cannot remove it
    for column in HEADER:
        for blank in BLANKS:
            for ends in ((blank, ""), ("", blank), (blank, blank)):
                # each event_id its own event: two paddings of one id would be two payloads of it
                value = f"t{next(number)}" if column == "event_id" else event("x")[column]
                add(None, **{column: ends[0] + value + ends[1]})
    for text in ACCEPTED_TIMES:
        add(None, event_time=text, ingested_at="2026-11-01T11:00:00Z")
        add(None, ingested_at=text.replace("10:15", "11:15"))
    for text in REJECTED_TIMES:
        add("invalid_event_time", event_time=text)
        add("invalid_ingested_at", ingested_at=text.replace("10:15", "11:15"))
    # max_event_time_ahead_hours is 24 (dbt_project.yml): both sides of the bound
    add(None, event_time="2026-11-02T11:00:00Z", ingested_at="2026-11-01T11:00:00Z")
    add("event_time_after_ingestion", event_time="2026-11-02T11:00:01Z", ingested_at="2026-11-01T11:00:00Z")
    add(None, event_time="2026-11-01T11:00:00Z", ingested_at="2026-11-01T11:00:00Z")
    return rows


@pytest.fixture(scope="module", params=engine_params())
def staged(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> tuple[Pipeline, list[tuple[dict[str, str], str | None]]]:
    """One build per engine, shared by the module's tests."""
    pipeline = pipeline_on(request.param, tmp_path_factory.mktemp(f"value_edges_{request.param.value}"), request)
    rows = cases()
    pipeline.land("2026-11-01_001_edges.csv", [row for row, _ in rows])
    pipeline.build()
    return pipeline, rows


def _staged_rows(pipeline: Pipeline) -> dict[int, tuple]:
    columns = ", ".join(
        [
            "invalid_reason",
            *HEADER[:5],
            "raw_amount_cents",
            "currency",
            "raw_event_time",
            "raw_ingested_at",
            "raw_version",
        ]
    )
    return {
        line: tuple(rest) for line, *rest in pipeline.query(f"select source_line, {columns} from stg_landing__events")
    }


def test_every_row_gets_the_reason_of_its_rule(staged: tuple[Pipeline, list]) -> None:
    pipeline, rows = staged
    found = _staged_rows(pipeline)
    assert len(found) == len(rows)
    wrong = []
    for line, (row, expected) in enumerate(rows, start=2):  # line 1 is the header
        reason = found[line][0]
        if reason != expected:
            wrong.append((line, {k: v for k, v in row.items()}, expected, reason))
    assert not wrong, f"{len(wrong)} rows got another reason than their rule's, e.g. {wrong[:5]}"


def test_every_key_column_rejects_every_invisible_class(staged: tuple[Pipeline, list]) -> None:
    """Counted per column and class, so that a regex that misses one class shows which."""
    pipeline, rows = staged
    found = _staged_rows(pipeline)
    missed: dict[tuple[str, str], int] = {}
    checked = 0
    for line, (row, expected) in enumerate(rows, start=2):
        if expected != "invalid_key":
            continue
        for column in KEY_COLUMNS:
            for ch in row[column]:
                if unicodedata.category(ch) in INVISIBLE_CLASSES:
                    checked += 1
                    if found[line][0] != "invalid_key":
                        kind = (column, unicodedata.category(ch))
                        missed[kind] = missed.get(kind, 0) + 1
    assert checked == len(KEY_COLUMNS) * len(invisible_characters())
    assert not missed, f"characters accepted in keys, by (column, class): {missed}"


def test_values_are_trimmed_at_both_ends(staged: tuple[Pipeline, list]) -> None:
    pipeline, rows = staged
    found = _staged_rows(pipeline)
    columns = ["invalid_reason", *HEADER]
    untrimmed = []
    for line, (row, expected) in enumerate(rows, start=2):
        if expected is None and any(v != v.strip(" \t") for v in row.values()):
            staged_row = dict(zip(columns, found[line], strict=True))
            for column in HEADER:
                if staged_row[column] != row[column].strip(" \t"):
                    untrimmed.append((line, column, row[column], staged_row[column]))
    assert not untrimmed, f"values not trimmed to their text: {untrimmed[:5]}"
    # and a trimmed company, currency or event type is the same as the clean one downstream
    companies = pipeline.query("select distinct company_id from fct_order_items")
    assert companies == [("co1",)]


def test_the_quarantine_keeps_the_landed_text_of_every_field(staged: tuple[Pipeline, list]) -> None:
    pipeline, rows = staged
    quarantined = {
        line: rest
        for line, *rest in pipeline.query(
            "select source_line, reason, " + ", ".join(HEADER) + " from quarantined_events"
        )
    }
    expected_lines = {line for line, (_, reason) in enumerate(rows, start=2) if reason is not None}
    assert set(quarantined) == expected_lines
    changed = []
    for line in expected_lines:
        row, reason = rows[line - 2]
        reason_found, *values = quarantined[line]
        assert reason_found == reason
        for column, value in zip(HEADER, values, strict=True):
            if value != row[column].strip(" \t\r\n"):
                changed.append((line, column, row[column], value))
    assert not changed, f"the quarantine does not hold the landed text: {changed[:5]}"
