"""The catalogue of hostile and careless input: each case is one delivery (or one var) and
the outcome the pipeline owes it. docs/bad-input.md is this list in words.

File cases all land together in one landing folder (whose own name is hostile), beside good
deliveries, and are judged after one build: a bad file must never block the others. Every
data row carries a unique event_id and order_item_id, so a case's rows can be found in every
table, and an event_id from one case never collides with another's.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from enum import Enum

import yaml  # comes with dbt-core

from tests.pipeline.project import PROJECT_DIR

HEADER = [
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
]


class Outcome(Enum):
    LOADED = "loaded"  # every record staged (valid rows published, invalid ones quarantined)
    REJECTED = "rejected"  # the whole file rejected and recorded with a reason
    IGNORED = "ignored"  # not a delivery by name (hidden files, other extensions)


def row(event_id: str, amount: str = "100", **overrides: str) -> dict[str, str]:
    values = {
        "event_id": event_id,
        "event_type": "sale",
        "company_id": "co1",
        "order_id": "o-" + event_id,
        "order_item_id": "i-" + event_id,
        "amount_cents": amount,
        "currency": "EUR",
        "event_time": "2026-11-01T10:00:00Z",
        "ingested_at": "2026-11-01T11:00:00Z",
        "version": "1",
    }
    values.update(overrides)
    return values


def csv_text(rows: list[dict[str, str]], header: list[str] = HEADER, line_end: str = "\n") -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator=line_end, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


@dataclass(frozen=True)
class FileCase:
    id: str
    bad: str  # the class of defect (docs/bad-input.md groups by it)
    name: str  # file name in the landing folder
    content: bytes
    outcome: Outcome
    reason: str | None = None  # rejection reason, for REJECTED
    quarantined: dict[str, str] = field(default_factory=dict)  # event_id -> quarantine reason
    records: int | None = None  # data records in the file, for LOADED
    published: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # event_id -> (company, day, net)
    symlink_to_outside: bool = False
    postgres: bool = True  # applies to the Postgres target
    recorded_as: str | None = None  # the name recorded, when not `name` (a name that is not UTF-8)
    why_not_postgres: str = ""


def _text(rows: list[dict[str, str]], **kwargs) -> bytes:
    return csv_text(rows, **kwargs).encode("utf-8")


FILE_CASES: list[FileCase] = [
    # --- names are literal, never patterns, never SQL ------------------------------------
    FileCase("name_quote", "file name", "o'brien.csv", _text([row("nq1")]), Outcome.LOADED, records=1),
    FileCase("name_star", "file name", "a*b.csv", _text([row("ns1")]), Outcome.LOADED, records=1),
    FileCase("name_star_sibling", "file name", "aXb.csv", _text([row("ns2"), row("ns3")]), Outcome.LOADED, records=2),
    FileCase("name_question", "file name", "q?.csv", _text([row("nqm1")]), Outcome.LOADED, records=1),
    FileCase("name_brackets", "file name", "[br].csv", _text([row("nb1")]), Outcome.LOADED, records=1),
    FileCase("name_backslash", "file name", "back\\slash.csv", _text([row("nbs1")]), Outcome.LOADED, records=1),
    FileCase("name_space", "file name", "with space.csv", _text([row("nsp1")]), Outcome.LOADED, records=1),
    FileCase("name_unicode", "file name", "ünï cødé.csv", _text([row("nu1")]), Outcome.LOADED, records=1),
    FileCase(
        "name_sql_injection",
        "file name",
        "x'); drop table fct_order_items; --.csv",
        _text([row("nsql1")]),
        Outcome.LOADED,
        records=1,
    ),
    FileCase("name_upper_extension", "file name", "UPPER.CSV", _text([row("nup1")]), Outcome.LOADED, records=1),
    FileCase(
        # Latin-1 bytes in the name (os keeps them as a surrogate): recorded with each byte
        # outside printable ASCII as \xNN, rejected, and never blocking the others
        "name_not_utf8",
        "file name",
        "caf\udce9.csv",
        _text([row("nnu1")]),
        Outcome.REJECTED,
        reason="invalid_file_name",
        recorded_as="caf\\xe9.csv",
    ),
    FileCase("name_hidden", "file name", ".hidden.csv", _text([row("nh1")]), Outcome.IGNORED),
    FileCase("name_other_extension", "file name", "notes.txt", _text([row("nt1")]), Outcome.IGNORED),
    FileCase(
        "symlink_outside",
        "file name",
        "link.csv",
        b"",
        Outcome.REJECTED,
        reason="not_a_regular_file",
        symlink_to_outside=True,
        postgres=False,
        why_not_postgres="pg_stat_file follows links; the server's OS permissions guard what it can read",
    ),
    # --- the header names the columns ----------------------------------------------------
    FileCase(
        "header_reordered",
        "header",
        "reordered.csv",
        _text(
            [
                row(
                    "hr1",
                    "700",
                    company_id="co9",
                    event_time="2026-11-02T10:00:00Z",
                    ingested_at="2026-11-02T12:00:00Z",
                )
            ],
            header=list(reversed(HEADER)),
        ),
        Outcome.LOADED,
        records=1,
        published={"hr1": ("co9", "2026-11-02", 700)},
    ),
    FileCase(
        "header_missing",
        "header",
        "no_header.csv",
        _text([row("hm1"), row("hm2")]).split(b"\n", 1)[1],
        Outcome.REJECTED,
        reason="missing_header",
    ),
    FileCase(
        "header_incomplete",
        "header",
        "incomplete.csv",
        _text([row("hi1")], header=[c for c in HEADER if c != "amount_cents"]),
        Outcome.REJECTED,
        reason="incomplete_header",
    ),
    FileCase(
        "header_unknown_column",
        "header",
        "extra_column.csv",
        _text([row("hu1")], header=[*HEADER, "comment"]),
        Outcome.REJECTED,
        reason="unknown_columns",
    ),
    FileCase(
        "header_duplicate_column",
        "header",
        "duplicate_column.csv",
        _text([row("hd1")], header=[*HEADER, "currency"]),
        Outcome.REJECTED,
        reason="duplicate_columns",
    ),
    FileCase(
        "header_bom_and_blanks",
        "header",
        "bom.csv",
        b"\xef\xbb\xbf" + _text([row("hb1")]).replace(b"event_id,event_type", b" event_id , event_type", 1),
        Outcome.LOADED,
        records=1,
    ),
    FileCase(
        # DuckDB's reader takes line 1 as the header, a CSV parser the first non-blank line
        "header_after_blank_line",
        "header",
        "blank_first_line.csv",
        b"\n" + _text([row("hab1")]),
        Outcome.REJECTED,
        reason="blank_line_before_header",
    ),
    FileCase(
        "header_after_blank_line_crlf",
        "header",
        "blank_first_line_crlf.csv",
        b"\xef\xbb\xbf\r\n" + _text([row("hab2")], line_end="\r\n"),
        Outcome.REJECTED,
        reason="blank_line_before_header",
    ),
    FileCase("header_only", "header", "header_only.csv", _text([]), Outcome.LOADED, records=0),
    FileCase("empty_file", "header", "empty.csv", b"", Outcome.LOADED, records=0),
    # --- the file cannot be decoded or parsed: rejected whole, never blocking ------------
    FileCase(
        "encoding_latin1",
        "encoding and parsing",
        "latin1.csv",
        _text([row("el1", company_id="caf\u00e9")]).replace("é".encode(), b"\xe9"),
        Outcome.REJECTED,
        reason="invalid_encoding",
    ),
    FileCase(
        "line_too_long",
        "encoding and parsing",
        "long_line.csv",
        _text([row("ll1", order_id="o" * (1 << 20))]),
        Outcome.REJECTED,
        reason="line_too_long",
        postgres=False,
        why_not_postgres="the Postgres reader has no line limit: the row loads",
    ),
    FileCase(
        "quote_unterminated_at_end",
        "encoding and parsing",
        "unterminated.csv",
        _text([row("qu1")]) + b'qu2,sale,co1,o,i,100,EUR,2026-11-01T10:00:00Z,"2026-11-01T11:00:00Z,1\n',
        Outcome.REJECTED,
        reason="unterminated_quote",
    ),
    FileCase(
        "quote_swallows_lines",
        "encoding and parsing",
        "swallow.csv",
        _text([])
        + b'qs1,sale,co1,"o1,i1,100,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1\n'
        + b'qs2,sale,co1,o2",i2,100,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1\n',
        Outcome.REJECTED,
        reason="unterminated_quote",
    ),
    FileCase(
        "quote_stray",
        "encoding and parsing",
        "stray_quote.csv",
        _text([]) + b'qst1,sale,co1,"o"1,i1,100,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1\n',
        Outcome.REJECTED,
        reason="malformed_csv",
        postgres=False,
        why_not_postgres="the Postgres reader keeps a quote inside a field as text",
    ),
    FileCase(
        "crlf_line_ends",
        "encoding and parsing",
        "crlf.csv",
        _text([row("cr1"), row("cr2")], line_end="\r\n"),
        Outcome.LOADED,
        records=2,
    ),
    FileCase(
        # old Mac line ends, over 1 MiB in all, every line under it: a line ends at LF, CRLF or CR
        "cr_line_ends_long_file",
        "encoding and parsing",
        "cr_only.csv",
        _text([row("cro1", order_id="o" * 600_000), row("cro2", order_id="p" * 600_000)], line_end="\r"),
        Outcome.LOADED,
        records=2,
    ),
    FileCase(
        # read while still being written: cut inside a field (amount 1 of 1000), no line break at the end
        "last_line_cut",
        "encoding and parsing",
        "being_written.csv",
        _text([row("lc1"), row("lc2", "1000")])[: -len("000,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1\n")],
        Outcome.REJECTED,
        reason="incomplete_last_line",
    ),
    FileCase(
        "blank_lines",
        "encoding and parsing",
        "blank_lines.csv",
        _text([row("bl1"), row("bl2")]).replace(b"\nbl2", b"\n\n\nbl2"),
        Outcome.LOADED,
        records=2,
    ),
    FileCase(
        "row_too_many_fields",
        "encoding and parsing",
        "too_many_fields.csv",
        _text([row("tm1")]) + b"tm2,sale,co1,o,i-tm2,100,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1,extra\n",
        Outcome.LOADED,
        records=2,
        quarantined={"tm2": "malformed_row"},
    ),
    FileCase(
        "row_too_few_fields",
        "encoding and parsing",
        "too_few_fields.csv",
        _text([row("tf1")]) + b"tf2,sale,co1,o,i-tf2,100,EUR\n",
        Outcome.LOADED,
        records=2,
        quarantined={"tf2": "invalid_event_time"},
    ),
    # --- values that could break aggregates or split keys: quarantined -------------------
    FileCase(
        "key_no_break_space",
        "values",
        "nbsp_key.csv",
        _text([row("kn1", company_id="co1\u00a0")]),
        Outcome.LOADED,
        records=1,
        quarantined={"kn1": "invalid_key"},
    ),
    FileCase(
        "key_control_character",
        "values",
        "control_key.csv",
        _text([row("kc1", order_item_id="i\x07kc1")]),
        Outcome.LOADED,
        records=1,
        quarantined={"kc1": "invalid_key"},
    ),
    FileCase(
        "key_zero_width_space",
        "values",
        "zero_width_key.csv",
        _text([row("kz1", order_id="o\u200bkz1")]),
        Outcome.LOADED,
        records=1,
        quarantined={"kz1": "invalid_key"},
    ),
    FileCase(
        "amount_above_bound",
        "values",
        "amount_bound.csv",
        _text([row("ab1", "9223372036854775807"), row("ab2", "1000000000001")]),
        Outcome.LOADED,
        records=2,
        quarantined={"ab1": "amount_out_of_range", "ab2": "amount_out_of_range"},
    ),
    FileCase(
        "amount_beyond_64_bits",
        "values",
        "amount_huge.csv",
        _text([row("ah1", "99999999999999999999999")]),
        Outcome.LOADED,
        records=1,
        quarantined={"ah1": "invalid_amount"},
    ),
    FileCase(
        "amount_not_integer",
        "values",
        "amount_decimal.csv",
        _text([row("ad1", "1.50"), row("ad2", "1e3"), row("ad3", "-5")]),
        Outcome.LOADED,
        records=3,
        quarantined={"ad1": "invalid_amount", "ad2": "invalid_amount", "ad3": "negative_amount"},
    ),
    FileCase(
        "event_far_after_ingestion",
        "values",
        "future_event.csv",
        _text([row("ef1", event_time="2036-11-01T10:00:00Z")]),
        Outcome.LOADED,
        records=1,
        quarantined={"ef1": "event_time_after_ingestion"},
    ),
    FileCase(
        # event and ingestion both in the future (the machine's clock decides "now" here):
        # the event_time bound alone compares with the row's own ingested_at and let them publish
        "ingested_far_future",
        "values",
        "future_ingestion.csv",
        _text([row("if1", event_time="2036-11-01T10:00:00Z", ingested_at="2036-11-01T11:00:00Z")]),
        Outcome.LOADED,
        records=1,
        quarantined={"if1": "ingested_in_future"},
    ),
    FileCase(
        "ingested_year_9999",
        "values",
        "year_9999.csv",
        _text([row("iy1", event_time="9999-12-31T23:00:00Z", ingested_at="9999-12-31T23:59:59Z")]),
        Outcome.LOADED,
        records=1,
        quarantined={"iy1": "ingested_in_future"},
    ),
    FileCase(
        "timestamp_garbage",
        "values",
        "bad_time.csv",
        _text([row("tg1", event_time="2026-13-45T99:00:00Z"), row("tg2", ingested_at="yesterday")]),
        Outcome.LOADED,
        records=2,
        quarantined={"tg1": "invalid_event_time", "tg2": "invalid_ingested_at"},
    ),
    FileCase(
        # year 0000 is no calendar year: DuckDB read it as 1 BC and published that day
        "timestamp_year_zero",
        "values",
        "year_zero.csv",
        _text(
            [
                row("yz1", event_time="0000-11-01T10:00:00Z", ingested_at="0000-11-01T11:00:00Z"),
                row("yz2", ingested_at="0000-11-01T11:00:00Z"),
            ]
        ),
        Outcome.LOADED,
        records=2,
        quarantined={"yz1": "invalid_event_time", "yz2": "invalid_ingested_at"},
    ),
    FileCase(
        "sql_in_values",
        "values",
        "sql_values.csv",
        _text([row("sv1", order_id="o');drop/**/table/**/fct_daily_revenue;--", company_id="co1")]),
        Outcome.LOADED,
        records=1,
        published={"sv1": ("co1", "2026-11-01", 100)},
    ),
    FileCase(
        "unknown_type_and_currency",
        "values",
        "type_currency.csv",
        _text([row("tc1", event_type="chargeback"), row("tc2", currency="eur"), row("tc3", version="0")]),
        Outcome.LOADED,
        records=3,
        quarantined={"tc1": "unknown_event_type", "tc2": "invalid_currency", "tc3": "invalid_version"},
    ),
    FileCase(
        # the right shape, but not a currency: a typo, the "no currency" code, a withdrawn one;
        # JPY (no minor unit) and KWD (three) are currencies and publish as they are
        "unknown_currency",
        "values",
        "currency_codes.csv",
        _text(
            [
                row("uc1", currency="EUE"),
                row("uc2", currency="XXX"),
                row("uc3", currency="DEM"),
                row("uc4", "500", currency="JPY", company_id="co3"),
                row("uc5", "1250", currency="KWD", company_id="co4"),
            ]
        ),
        Outcome.LOADED,
        records=5,
        quarantined={"uc1": "unknown_currency", "uc2": "unknown_currency", "uc3": "unknown_currency"},
        published={"uc4": ("co3", "2026-11-01", 500), "uc5": ("co4", "2026-11-01", 1250)},
    ),
    # --- a good delivery beside all of the above: it must load in the same run -----------
    FileCase(
        "good_neighbour",
        "control",
        "2026-11-01_good.csv",
        _text([row("gd1", "250", company_id="co2")]),
        Outcome.LOADED,
        records=1,
        published={"gd1": ("co2", "2026-11-01", 250)},
    ),
]

# The landing folder's own name: a quote, brackets, glob characters, a space and non-ASCII.
HOSTILE_FOLDER_NAME = "land'ing [x] *? ü"


@dataclass(frozen=True)
class VarCase:
    id: str
    vars: dict[str, object]
    names: str  # the var the error must name
    says: str  # a phrase the error must contain


VAR_CASES: list[VarCase] = [
    VarCase("landing_path_missing_folder", {"landing_path": "/nonexistent/landing"}, "landing_path", "does not exist"),
    VarCase(
        "landing_path_sql_injection",
        {"landing_path": "x'; create table pwned as select 1; --"},
        "landing_path",
        "landing_path",
    ),
    VarCase(
        "landing_path_newline_injection",
        {"landing_path": "/tmp\n; create table pwned as select 1; --"},
        "landing_path",
        "control characters",
    ),
    VarCase("landing_path_empty", {"landing_path": ""}, "landing_path", "folder path"),
    VarCase("lateness_not_a_number", {"allowed_lateness_hours": "abc"}, "allowed_lateness_hours", "whole number"),
    VarCase("lateness_negative", {"allowed_lateness_hours": -5}, "allowed_lateness_hours", "whole number"),
    VarCase("lateness_fraction", {"allowed_lateness_hours": 7.5}, "allowed_lateness_hours", "whole number"),
    VarCase(
        "lateness_sql_injection",
        {"allowed_lateness_hours": "1; drop table fct_order_items"},
        "allowed_lateness_hours",
        "whole number",
    ),
    VarCase("lookback_not_a_number", {"lookback_hours": "96h"}, "lookback_hours", "whole number"),
    VarCase("source_window_typo", {"source_window": "file"}, "source_window", "'files' or 'lookback'"),
    VarCase(
        "correction_impossible_date",
        {"correct_from": "2026-02-30", "correct_to": "2026-03-01"},
        "correct_from",
        "calendar date",
    ),
    VarCase("correction_half", {"correct_from": "2026-11-01"}, "correct_to", "go together"),
    VarCase(
        "correction_backwards",
        {"correct_from": "2026-11-03", "correct_to": "2026-11-01"},
        "correct_to",
        "is after",
    ),
    VarCase(
        "correction_sql_injection",
        {"correct_from": "2026-11-01'); drop table fct_order_items; --", "correct_to": "2026-11-02"},
        "correct_from",
        "calendar date",
    ),
    VarCase("amount_bound_zero", {"max_amount_cents": 0}, "max_amount_cents", "whole number"),
    VarCase("amount_bound_beyond_64_bits", {"max_amount_cents": 10**15}, "max_amount_cents", "from 1 to 1000000000000"),
    VarCase(
        "var_name_typo",
        {"alowed_lateness_hours": 48},
        "alowed_lateness_hours",
        "did you mean allowed_lateness_hours?",
    ),
    VarCase("ahead_bound_text", {"max_event_time_ahead_hours": "a day"}, "max_event_time_ahead_hours", "whole number"),
    VarCase("flag_typo", {"accept_missing_deliveries": "yes"}, "accept_missing_deliveries", "true or false"),
    VarCase(
        "ingested_bound_text",
        {"max_ingested_ahead_hours": "a day"},
        "max_ingested_ahead_hours",
        "whole number",
    ),
    VarCase("ingested_bound_negative", {"max_ingested_ahead_hours": -1}, "max_ingested_ahead_hours", "whole number"),
    VarCase("now_not_a_timestamp", {"rerun_safe_now": "tomorrow"}, "rerun_safe_now", "UTC timestamp"),
    VarCase("now_impossible_date", {"rerun_safe_now": "2026-02-30T12:00:00Z"}, "rerun_safe_now", "UTC timestamp"),
    VarCase("now_with_offset", {"rerun_safe_now": "2026-11-01T12:00:00+01:00"}, "rerun_safe_now", "UTC timestamp"),
]


@dataclass(frozen=True)
class EnvCase:
    """An env var of the profile (profiles.yml) with a value that cannot be used: the run fails
    before it connects (on DuckDB before the warehouse file is opened: it is never created),
    with a message that names the env var and says `says`. DuckDB's cases run in
    tests/pipeline/test_profile_env_vars.py, with Spark's (its profile fails before the JVM
    starts) and Postgres's (against the test server)."""

    id: str
    target: str  # duckdb, postgres or spark
    env: dict[str, str]
    says: str
    file_name: str = "fine.duckdb"  # DuckDB: the warehouse file's name, in a folder of its own

    @property
    def named(self) -> str:
        return next(iter(self.env)) if self.env else "DBT_DUCKDB_PATH"


# Warehouse file names (DBT_DUCKDB_PATH, in a folder named with quotes, spaces and non-ASCII
# letters) on which a build and an incremental build work: tests/pipeline/test_profile_env_vars.py.
# The database is named after the file, up to its first dot.
GOOD_WAREHOUSE_FILE_NAMES: list[str] = [
    "entrepôt 2026.duckdb",  # a space and an accent
    "仓库 データ.duckdb",  # CJK
    "2026_warehouse.duckdb",  # starts with a digit (the database is named "2026_warehouse")
    "o'neil.duckdb",  # a quote (macros/pipeline/duckdb_catalog quotes the database name)
]

ENV_CASES: list[EnvCase] = [
    EnvCase("duckdb_file_name_double_quote", "duckdb", {}, "holds a double quote", file_name='say "hi".duckdb'),
    EnvCase("duckdb_memory_limit_words", "duckdb", {"DBT_DUCKDB_MEMORY_LIMIT": "lots"}, "must be a size"),
    EnvCase(
        "duckdb_memory_limit_sql_injection",
        "duckdb",
        {"DBT_DUCKDB_MEMORY_LIMIT": "8GB'; set threads=1; --"},
        "must be a size",
    ),
    EnvCase("pg_port_not_a_number", "postgres", {"RERUN_SAFE_PG_PORT": "54x2"}, "port number from 1 to 65535"),
    EnvCase("pg_port_out_of_range", "postgres", {"RERUN_SAFE_PG_PORT": "70000"}, "port number from 1 to 65535"),
    EnvCase("pg_host_empty", "postgres", {"RERUN_SAFE_PG_HOST": ""}, "host name"),
    EnvCase("pg_host_injection", "postgres", {"RERUN_SAFE_PG_HOST": "127.0.0.1 dbname=other"}, "host name"),
    EnvCase("pg_user_quote", "postgres", {"RERUN_SAFE_PG_USER": "o'neil"}, "role name"),
    EnvCase("pg_dbname_sql_injection", "postgres", {"RERUN_SAFE_PG_DBNAME": "postgres'; --"}, "database name"),
    EnvCase("pg_schema_empty", "postgres", {"RERUN_SAFE_PG_SCHEMA": ""}, "schema name"),
    EnvCase("pg_schema_quote", "postgres", {"RERUN_SAFE_PG_SCHEMA": "o'neil"}, "schema name"),
    EnvCase("pg_schema_upper_case", "postgres", {"RERUN_SAFE_PG_SCHEMA": "Rerun_Safe"}, "lower-case"),
    EnvCase("pg_schema_starts_with_digit", "postgres", {"RERUN_SAFE_PG_SCHEMA": "1st"}, "not starting with a digit"),
    EnvCase("spark_schema_quote", "spark", {"RERUN_SAFE_SPARK_SCHEMA": "o'neil"}, "database name"),
    EnvCase("spark_master_remote", "spark", {"RERUN_SAFE_SPARK_MASTER": "yarn"}, "local[N]"),
    EnvCase("spark_driver_memory_words", "spark", {"RERUN_SAFE_SPARK_DRIVER_MEMORY": "lots"}, "JVM size"),
    EnvCase("spark_dir_blank", "spark", {"RERUN_SAFE_SPARK_DIR": "target/my spark"}, "without blanks"),
    EnvCase("spark_dir_semicolon", "spark", {"RERUN_SAFE_SPARK_DIR": "target/x;create=false"}, "without blanks"),
]


@dataclass(frozen=True)
class ClockCase:
    """One delivery first seen by a run whose clock is var rerun_safe_now = `now`: its row is
    quarantined with `reason`, or published (None); every later run and --full-refresh agrees."""

    id: str
    now: str
    name: str
    row: dict[str, str]
    reason: str | None


CLOCK_NOW = "2026-11-01T12:00:00Z"  # max_ingested_ahead_hours (24) later: 2026-11-02T12:00:00Z

CLOCK_CASES: list[ClockCase] = [
    ClockCase(
        "clock_at_bound",
        CLOCK_NOW,
        "clock_at_bound.csv",
        row("ck1", event_time="2026-11-02T11:00:00Z", ingested_at="2026-11-02T12:00:00Z"),
        None,
    ),
    ClockCase(
        "clock_one_second_beyond",
        CLOCK_NOW,
        "clock_beyond.csv",
        row("ck2", event_time="2026-11-02T11:00:00Z", ingested_at="2026-11-02 12:00:01"),
        "ingested_in_future",
    ),
    ClockCase(
        "clock_year_2036",
        CLOCK_NOW,
        "clock_2036.csv",
        row("ck3", event_time="2036-11-01T10:00:00Z", ingested_at="2036-11-01T11:00:00Z"),
        "ingested_in_future",
    ),
    ClockCase(
        "clock_year_9999",
        CLOCK_NOW,
        "clock_9999.csv",
        row("ck4", event_time="9999-12-31T23:00:00Z", ingested_at="9999-12-31T23:59:59Z"),
        "ingested_in_future",
    ),
    # a backfill run told it is 2036: that day's delivery publishes, and a rebuild under the
    # machine's clock (earlier) still does, as its first run judged it
    ClockCase(
        "clock_backfill_2036",
        "2036-11-01 12:00:00",
        "clock_backfill_2036.csv",
        row("ck5", event_time="2036-11-01T10:00:00Z", ingested_at="2036-11-01T11:00:00Z"),
        None,
    ),
]


def project_vars() -> list[str]:
    """Every var the project reads: declared in dbt_project.yml, or read with a default by a
    macro or a model (through var() or a validated accessor)."""
    import re

    declared = set(yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())["vars"])
    read = set()
    for folder in ("macros", "models"):
        for path in (PROJECT_DIR / folder).rglob("*.sql"):
            read.update(re.findall(r"\b(?:var|whole_number_var|flag_var|date_var)\(\s*'([a-z_]+)'", path.read_text()))
    return sorted(declared | read)
