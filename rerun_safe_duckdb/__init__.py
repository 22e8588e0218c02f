"""The landing door on DuckDB: list a folder and inspect each delivery, exactly.

A dbt-duckdb plugin (profiles.yml: ``plugins: [{module: rerun_safe_duckdb}]``) that registers
three SQL functions on every connection:

``rerun_safe_list_landing(folder)``
    Every candidate delivery in ``folder``: names ending in ``.csv`` (any case) that do not
    start with a dot, with their size, modification and change times in nanoseconds, inode and
    kind (``file``, ``symlink`` or ``other``; ``invalid_name`` for a name that is not UTF-8,
    which is then shown escaped: ``shown_name``). Raises when the folder does not exist.

``rerun_safe_content_md5(path)``
    The MD5 of one file's bytes now, null when it cannot be read: staging's check that a
    delivery it read is still the one inspected.

``rerun_safe_inspect_delivery(path)``
    Reads one file once: its MD5 (the delivery's identity, with its name) and its verdict:
    ``reason`` null when the file can be loaded, else why it is rejected whole
    (``invalid_encoding``, ``line_too_long``, ``blank_line_before_header``,
    ``incomplete_last_line``, ``unterminated_quote``, ``malformed_csv``, ``missing_header``, ``incomplete_header``,
    ``unknown_columns``, ``duplicate_columns``, ``unreadable``), the first error in words, the
    header in file order and the record count. A line ends with LF, CRLF or CR, as for
    DuckDB's reader.

Why Python: DuckDB's own ``glob`` and ``read_*`` functions take patterns, never list a name
containing a backslash, cannot tell a symlink from a file, give modification times in whole
seconds only and fail a whole query on the first undecodable byte. Here every name is
literal, and a bad file becomes a verdict instead of an error.
"""

from __future__ import annotations

import atexit
import contextlib
import csv
import hashlib
import io
import os
import stat
import time
import weakref
from dataclasses import dataclass
from typing import Any

CONTRACT_COLUMNS = (
    "event_id",
    "event_type",
    "company_id",
    "order_id",
    "order_item_id",
    "amount_cents",
    "currency",
    "event_time",
    "ingested_at",
    "version",
)
# A physical line longer than this rejects its file (line_too_long). DuckDB's reader is given
# twice this as its maximum line size, so an accepted file never hits the reader's limit.
MAX_LINE_BYTES = 1 << 20
READER_MAX_LINE_SIZE = 2 * MAX_LINE_BYTES

LISTING_TYPE = (
    "STRUCT(file_name VARCHAR, path VARCHAR, size BIGINT, mtime_ns BIGINT, ctime_ns BIGINT,"
    " inode BIGINT, kind VARCHAR)[]"
)
INSPECTION_TYPE = (
    "STRUCT(content_md5 VARCHAR, reason VARCHAR, first_error VARCHAR, header VARCHAR,"
    " records BIGINT, inspected_at_ns BIGINT)"
)


def is_candidate(name: str) -> bool:
    """A delivery file: `*.csv` in any case; hidden files (editors, partial uploads) are not."""
    return name.lower().endswith(".csv") and not name.startswith(".")


def shown_name(raw: bytes) -> str:
    """A file name that is not UTF-8, as text: every byte outside printable ASCII as ``\\xNN``
    (the same rule as postgres__list_landing), so it can be recorded, and named in errors."""
    return "".join(chr(b) if 32 <= b < 127 else f"\\x{b:02x}" for b in raw)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symlink"
    return "file" if stat.S_ISREG(mode) else "other"


def list_landing(folder: str) -> list[dict[str, Any]]:
    if not folder or "\x00" in folder:
        raise ValueError("rerun_safe: var landing_path must be a non-empty folder path")
    if not os.path.isdir(folder):
        raise ValueError(
            f"rerun_safe: var landing_path: the landing folder {folder!r} does not exist or is not a folder"
        )
    listed: list[dict[str, Any]] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if not is_candidate(entry.name):
                continue
            info = entry.stat(follow_symlinks=False)
            name, kind = entry.name, _kind(info.st_mode)
            try:
                name.encode("utf-8")
            except UnicodeEncodeError:  # bytes that are not UTF-8, kept by os.scandir as surrogates
                name, kind = shown_name(os.fsencode(entry.name)), "invalid_name"
            listed.append(
                {
                    "file_name": name,
                    "path": os.path.join(folder, name),
                    "size": info.st_size,
                    "mtime_ns": info.st_mtime_ns,
                    "ctime_ns": info.st_ctime_ns,
                    "inode": info.st_ino,
                    "kind": kind,
                }
            )
    listed.sort(key=lambda f: f["file_name"])
    return listed


@dataclass
class Verdict:
    content_md5: str | None
    reason: str | None = None
    first_error: str | None = None
    header: str | None = None
    records: int | None = None
    inspected_at_ns: int = 0

    def as_row(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _header_problem(header: list[str]) -> tuple[str, str] | None:
    names = [h.strip() for h in header]
    known = [n for n in names if n in CONTRACT_COLUMNS]
    if not known:
        shown = ",".join(names)[:200]
        return "missing_header", f"line 1 is not a header: no contract column among {shown!r}"
    duplicated = sorted({n for n in known if names.count(n) > 1})
    if duplicated:
        return "duplicate_columns", "header repeats " + ", ".join(duplicated)
    unknown = [n for n in names if n not in CONTRACT_COLUMNS]
    if unknown:
        return "unknown_columns", "header has unknown columns " + ", ".join(repr(u) for u in unknown[:10])
    missing = [c for c in CONTRACT_COLUMNS if c not in names]
    if missing:
        return "incomplete_header", "header lacks " + ", ".join(missing)
    return None


def judge(data: bytes) -> Verdict:
    """The verdict on one delivery's bytes (pure: the tests call it directly)."""
    verdict = Verdict(content_md5=hashlib.md5(data).hexdigest())
    if not data:
        verdict.records = 0  # an empty delivery is legal: nothing to load
        return verdict
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = len(_physical_lines(data[: error.start]))
        verdict.reason, verdict.first_error = (
            "invalid_encoding",
            f"line {line}: not UTF-8 ({error.reason} at byte {error.start})",
        )
        return verdict
    if data[-1:] not in (b"\n", b"\r"):
        # a file still being written ends inside its last line: held back, never half loaded;
        # judged again when its content changes
        verdict.reason = "incomplete_last_line"
        verdict.first_error = (
            f"line {len(_physical_lines(data))} has no line break: the file may still be being written"
        )
        return verdict
    longest_at, longest = (
        max(enumerate(_physical_lines(data)), key=lambda item: len(item[1]))
        if len(data) > MAX_LINE_BYTES
        else (0, data)
    )
    if len(longest) > MAX_LINE_BYTES:
        verdict.reason = "line_too_long"
        verdict.first_error = f"line {longest_at + 1}: {len(longest)} bytes, over the bound of {MAX_LINE_BYTES}"
        return verdict
    if text.startswith("\ufeff"):
        text = text[1:]
    if text[:1] in ("\n", "\r") and text.strip("\r\n"):
        # DuckDB's reader takes the first line as the header, the CSV parsers here and on
        # Postgres the first non-blank one: the file is rejected, so no engine reads its
        # header as data
        verdict.reason = "blank_line_before_header"
        verdict.first_error = "line 1 is blank: the header must be the first line"
        return verdict
    if '"' not in text:
        return _judge_unquoted(text, verdict)
    return _judge_line_by_line(text, verdict) or _judge_parsed(text, verdict)


def _judge_parsed(text: str, verdict: Verdict) -> Verdict:
    """The verdict of Python's CSV parser on the whole text: exact, and the reference the two
    fast paths below must agree with (tests/bad_input/test_inspection.py)."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    records = 0
    try:
        for record in reader:
            if not record:
                continue  # a blank line is no record (DuckDB's reader skips it too)
            if any("\n" in field or "\r" in field for field in record):
                verdict.reason = "unterminated_quote"
                verdict.first_error = (
                    f"line {reader.line_num}: a quoted field runs over a line break (an unterminated quote?)"
                )
                return verdict
            if header is None:
                header = record
                continue
            records += 1
    except csv.Error as error:
        unterminated = "unexpected end of data" in str(error)
        verdict.reason = "unterminated_quote" if unterminated else "malformed_csv"
        verdict.first_error = f"line {reader.line_num}: {error}"
        return verdict
    return _with_header(verdict, header, records)


def _with_header(verdict: Verdict, header: list[str] | None, records: int) -> Verdict:
    """The verdict of a file that parsed: no header (nothing but blank lines) is an empty
    delivery; otherwise the header is checked and, when it is good, kept with the record count."""
    if header is None:
        verdict.records = 0
        return verdict
    problem = _header_problem(header)
    if problem:
        verdict.reason, verdict.first_error = problem
        return verdict
    verdict.header = ",".join(h.strip() for h in header)
    verdict.records = records
    return verdict


def _physical_lines(data: bytes) -> list[bytes]:
    """The physical lines of bytes, each line end LF, CRLF or CR, as DuckDB's reader (and the
    CSV parsers) end a line; the piece after the last line end is a line too."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")


def _lines(text: str) -> list[str]:
    """The non-blank physical lines (ends LF, CRLF or CR), in order."""
    return [line for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n") if line]


def _judge_line_by_line(text: str, verdict: Verdict) -> Verdict | None:
    """The parser's verdict on an accepted file that holds quotes, about three times faster; None
    when some line does not parse alone (the caller then runs the parser on the whole text,
    which finds and words the error).

    Exact because the parser starts every record in the same state: a line that parses alone
    ends outside any quoted field, so its line break ends its record, and each record of the
    whole text is exactly one line. So when every line parses alone, the whole text parses, its
    records are its non-blank lines, and no field holds a line break. Only lines with a quote
    (or a NUL, which the parser may refuse) need the parser; any other line is fields between
    commas."""
    lines = _lines(text)
    header: list[str] | None = None
    try:
        for line in lines:
            if '"' in line or "\0" in line:
                fields = next(csv.reader([line], strict=True))
            elif header is None:
                fields = line.split(",")
            else:
                continue
            if header is None:
                header = fields
    except csv.Error:
        return None
    return _with_header(verdict, header, len(lines) - 1)


def _judge_unquoted(text: str, verdict: Verdict) -> Verdict:
    """The same verdict for a file without a single quote, ten times faster than the parser:
    with nothing quoted, a record is a non-empty line (LF, CRLF or CR) and a field is what lies
    between commas."""
    lines = _lines(text)
    return _with_header(verdict, lines[0].split(",") if lines else None, len(lines) - 1)


def inspect_delivery(path: str) -> dict[str, Any]:
    started = time.time_ns()
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        return Verdict(content_md5=None, reason="unreadable", first_error=str(error), inspected_at_ns=started).as_row()
    verdict = judge(data)
    verdict.inspected_at_ns = started
    return verdict.as_row()


def content_md5(path: str) -> str | None:
    """The MD5 of a file's bytes now, read in pieces (None when it cannot be read): staging's
    check, after its read, that a delivery whose stat cannot tell is still the one inspected
    (macros/pipeline/landing/mark_changed_deliveries.sql). Hashing only: no verdict."""
    digest = hashlib.md5()
    try:
        with open(path, "rb") as handle:
            for piece in iter(lambda: handle.read(1 << 20), b""):
                digest.update(piece)
    except OSError:
        return None
    return digest.hexdigest()


# The dbt-duckdb base class, imported lazily so `judge` needs no dbt.
try:
    from dbt.adapters.duckdb.plugins import BasePlugin as _PluginBase
except ImportError:  # pragma: no cover - only without dbt-duckdb
    _PluginBase = object  # type: ignore[misc,assignment]


def _close_at_exit(reference: weakref.ref[Any]) -> None:
    conn = reference()
    if conn is not None:
        with contextlib.suppress(Exception):  # the process is ending; nothing left to protect
            conn.close()


from rerun_safe_duckdb.writer_lock import OneWriter  # noqa: E402 - one writer per warehouse file (writer_lock.py)


class Plugin(OneWriter, _PluginBase):
    def configure_connection(self, conn: Any) -> None:
        # A process that never closes its connection (sqlfluff's dbt templater) would otherwise
        # end with the functions' types still alive, and DuckDB's bindings print leak warnings.
        atexit.register(_close_at_exit, weakref.ref(conn))
        conn.create_function(
            "rerun_safe_list_landing",
            list_landing,
            ["VARCHAR"],
            LISTING_TYPE,
            side_effects=True,
        )
        conn.create_function(
            "rerun_safe_inspect_delivery",
            inspect_delivery,
            ["VARCHAR"],
            INSPECTION_TYPE,
            side_effects=True,
        )
        conn.create_function(
            "rerun_safe_content_md5",
            content_md5,
            ["VARCHAR"],
            "VARCHAR",
            side_effects=True,
        )
