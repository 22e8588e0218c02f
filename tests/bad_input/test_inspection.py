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


@pytest.mark.parametrize(
    "case",
    [c for c in FILE_CASES if c.outcome is not Outcome.IGNORED and not c.symlink_to_outside and c.recorded_as is None],
    ids=lambda c: c.id,
)
def test_judge_gives_each_catalogue_file_its_verdict(case) -> None:
    verdict = plugin.judge(case.content)
    if case.outcome is Outcome.REJECTED:
        assert verdict.reason == case.reason and verdict.first_error
    else:
        assert (verdict.reason, verdict.records) == (None, case.records)


def test_identity_is_the_content() -> None:
    assert plugin.judge(b"a").content_md5 == plugin.judge(b"a").content_md5 != plugin.judge(b"b").content_md5


_BALANCED = ['"a"', '"a,b"', '"say ""hi"""', '""', '" "', '"é"']
_BREAKING = ['"x\ny"', '"x\r\ny"', '"open', 'close"', 'a"b', '"a"b', '"a" ']


@pytest.mark.parametrize("seed", range(60))
def test_line_by_line_path_agrees_with_the_parser(seed: int) -> None:
    """Random files with quotes (escaped, around commas, over line breaks, unbalanced, stray, in
    the header) mixed with blank lines and LF, CRLF and CR ends: whenever the line-by-line path
    gives a verdict it is the whole-text parser's, and judge() always gives the parser's."""
    rng = random.Random(seed)
    header = list(HEADER)
    if rng.random() < 0.2:
        at = rng.randrange(len(header))
        header[at] = '"' + header[at] + '"'
    lines = [",".join(header)]
    for _ in range(rng.randint(0, 25)):
        if rng.random() < 0.15:
            lines.append("")
            continue
        fields = [rng.choice(["x", "1", ""]) for _ in range(10)]
        for _ in range(rng.choice([0, 1, 2])):
            fields[rng.randrange(10)] = rng.choice(_BALANCED)
        if rng.random() < 0.03:
            fields[rng.randrange(10)] = rng.choice(_BREAKING)
        lines.append(",".join(fields))
    text = "".join(line + rng.choice(["\n", "\r\n", "\r"]) for line in lines)

    def as_tuple(v: plugin.Verdict) -> tuple:
        return (v.reason, v.first_error, v.header, v.records)

    reference = plugin._judge_parsed(text, plugin.Verdict(content_md5=None))
    fast = plugin._judge_line_by_line(text, plugin.Verdict(content_md5=None))
    if fast is not None:
        assert as_tuple(fast) == as_tuple(reference)
    judged = plugin.judge(text.encode())
    assert as_tuple(judged) == as_tuple(reference)


def test_line_by_line_path_takes_accepted_quoted_files() -> None:
    """The fast path is taken for an accepted file with quotes (the generator's malformed rows),
    and hands an unbalanced quote to the parser."""
    good = ",".join(HEADER) + '\n"e1",sale,c,o,i,"1,0",EUR,t,t,1\n\ne2,sale,c,o,i,2,EUR,t,t,1\r\n'
    fast = plugin._judge_line_by_line(good, plugin.Verdict(content_md5=None))
    assert fast is not None and (fast.reason, fast.records) == (None, 2)
    assert plugin._judge_line_by_line(good + '"open,x\n', plugin.Verdict(content_md5=None)) is None


def test_a_name_that_is_not_utf8_is_listed_escaped(tmp_path) -> None:
    """A Latin-1 byte in a name: listed (never an error for the whole folder), shown escaped,
    kind invalid_name, and every listed value encodes as UTF-8 (what DuckDB needs)."""
    folder = tmp_path / "landing"
    folder.mkdir()
    (folder / "good.csv").write_text(",".join(HEADER) + "\n")
    with open(bytes(folder) + b"/caf\xe9 \\x.csv", "wb") as handle:
        handle.write(b"")
    listed = {f["file_name"]: f for f in plugin.list_landing(str(folder))}
    assert set(listed) == {"good.csv", "caf\\xe9 \\x.csv"}
    assert (listed["good.csv"]["kind"], listed["caf\\xe9 \\x.csv"]["kind"]) == ("file", "invalid_name")
    for entry in listed.values():
        for value in entry.values():
            if isinstance(value, str):
                value.encode("utf-8")


def test_line_ends_are_lf_crlf_or_cr() -> None:
    """The 1 MiB bound is measured between any two line ends; a line over it is rejected
    whatever ends it; a blank first line before the header is rejected, blank lines alone are
    an empty delivery."""
    header = ",".join(HEADER)
    for end in ("\n", "\r\n", "\r"):
        short_lines = end.join([header] + ["x," * 9 + "y" * 600_000] * 2) + end
        assert (plugin.judge(short_lines.encode()).reason, plugin.judge(short_lines.encode()).records) == (None, 2)
        long_line = end.join([header, "y" * ((1 << 20) + 1)]) + end
        assert plugin.judge(long_line.encode()).reason == "line_too_long"
        assert plugin.judge((end + header + end).encode()).reason == "blank_line_before_header"
        assert (plugin.judge((end * 3).encode()).reason, plugin.judge((end * 3).encode()).records) == (None, 0)


@pytest.mark.parametrize(
    "blank", [" ", "\t", " \t", "\u00a0", "\u3000"], ids=["space", "tab", "space_tab", "nbsp", "ideographic"]
)
def test_header_names_are_matched_after_trimming_every_blank(blank: str) -> None:
    """docs/bad-input.md: names are matched exactly after trimming blanks, a tab or a no-break
    space after (or before) a name included; the header is kept trimmed."""
    from tests.bad_input.catalogue import csv_text, row

    text = csv_text([row("hb1")])
    header, rest = text.split("\n", 1)
    names = header.split(",")
    names[6] = blank + names[6] + blank  # currency
    verdict = plugin.judge((",".join(names) + "\n" + rest).encode("utf-8"))
    assert (verdict.reason, verdict.records) == (None, 1), verdict
    assert verdict.header == ",".join(HEADER)
