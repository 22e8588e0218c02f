"""The DuckDB plugin's verdict on raw bytes (rerun_safe_duckdb.judge), without dbt: the fast
path for files without quotes must count and judge exactly as the CSV parser does."""
from __future__ import annotations

import csv
import io
import random

import pytest

import rerun_safe_duckdb as plugin
from tests.bad_input.catalogue import FILE_CASES, HEADER, Outcome


def _parser_records(text: str) -> int:
    records = [r for r in csv.reader(io.StringIO(text, newline="")) if r]
    return max(len(records) - 1, 0)


@pytest.mark.parametrize("seed", range(20))
def test_fast_path_counts_records_like_the_parser(seed: int) -> None:
    """Random quote-free files (mixed LF, CRLF and CR ends, blank lines, blanks in fields) count the same both ways."""
    rng = random.Random(seed)
    lines = [",".join(HEADER)]
    for _ in range(rng.randint(0, 30)):
        lines.append(rng.choice(["", " ", "a,b", ",".join(["x"] * 10), ",,,", "1, 2 ,3"]))
    text = "".join(line + rng.choice(["\n", "\r\n", "\r"]) for line in lines)
    verdict = plugin.judge(text.encode())
    assert verdict.reason is None
    assert verdict.records == _parser_records(text)
    quoted = plugin.judge((text + '"q",' + "," * 8 + "\n").encode())  # one quote: the parser path
    assert quoted.records == _parser_records(text) + 1


@pytest.mark.parametrize("case", [c for c in FILE_CASES if c.outcome is not Outcome.IGNORED and not c.symlink_to_outside],
                         ids=lambda c: c.id)
def test_judge_gives_each_catalogue_file_its_verdict(case) -> None:
    verdict = plugin.judge(case.content)
    if case.outcome is Outcome.REJECTED:
        assert verdict.reason == case.reason and verdict.first_error
    else:
        assert (verdict.reason, verdict.records) == (None, case.records)


def test_identity_is_the_content() -> None:
    assert plugin.judge(b"a").content_md5 == plugin.judge(b"a").content_md5 != plugin.judge(b"b").content_md5
