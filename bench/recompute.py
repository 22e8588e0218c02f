"""The plain one-pass recompute: the business tables of the contract from every landed file, by hand.

    python bench/recompute.py --db NEW.duckdb [--now '2030-01-01 00:00:00'] FILE.csv [FILE.csv ...]

A floor for the full build (RF), the plainest and fastest honest way to compute the same
business tables in DuckDB, in its own process and one transaction, into a new database:

1. ONE read_csv over every listed file (the same reader options as staging's full-build scan;
   zero-byte files are left out of the list: DuckDB's reader refuses them, and they hold no row);
2. the validation staging applies (docs/bad-input.md; the same rules, dbt_project.yml's
   defaults), keeping the valid rows only: malformed rows are dropped, and counted;
3. the copies: valid rows grouped on (event_id, version, payload), a copy arriving with its
   earliest row's ingested_at; late copies (lateness over --lateness-hours) are not applicable,
   and with no recorded correction (a new warehouse has none) they stay out;
4. the current copy of each event: the greatest applicable version, unless that version has two
   applicable payloads (a conflict: the event has no current copy), as the contract's one rule;
5. fct_order_items, fct_daily_revenue and fct_revenue_ledger (one entry per current event, the
   posting ids as our first build writes them) as tables, in a few statements.

What it does not do, against our full build: no delivery listing, hashing or inspection (a
rejected delivery would be read here: the caller lists only loadable files), no staged rows
kept (no quarantine), no copies table (no late queue, no lineage of a copy to its earliest row:
--lineage computes it, as a cost, without storing it), no run registry, run log or balance
checks, no ordering of the written tables. A copy is grouped on its payload columns, where ours
groups on the md5 of their '|'-joined text (the same groups unless a value holds '|' or is the
text '<null>').

Prints one JSON object: {"sql_s": seconds from connect to commit, "statements": [[label, s], ...],
"rows_read", "rows_dropped", "events_current", "items", "days", "postings"}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = ("event_id", "event_type", "company_id", "order_id", "order_item_id", "amount_cents",
           "currency", "event_time", "ingested_at", "version")
# The code point ranges of Unicode's Cc, Cf, Zs, Zl and Zp: a key holding one is invalid_key
# (macros/cross_db/has_blank_or_control.sql, invisible_key_ranges; the same list).
INVISIBLE = ((0x0, 0x20), (0x7F, 0xA0), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD),
             (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x1680, 0x1680), (0x180E, 0x180E),
             (0x2000, 0x200F), (0x2028, 0x202F), (0x205F, 0x2064), (0x2066, 0x206F), (0x3000, 0x3000),
             (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
             (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
             (0xE0020, 0xE007F))
TS_SHAPE = "[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}Z| [0-9]{2}:[0-9]{2}:[0-9]{2})"


def _lit(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _invisible_class() -> str:
    parts = [f"\\x{{{lo:x}}}" if lo == hi else f"\\x{{{lo:x}}}-\\x{{{hi:x}}}" for lo, hi in INVISIBLE]
    return "[" + "".join(parts) + "]"


def _trim(c: str) -> str:
    # as macros/cross_db/trim_blank.sql on DuckDB: trim only a value with a blank at an end
    blanks = "(' ', chr(9), chr(13), chr(10))"
    return (f"nullif(case when left({c}, 1) in {blanks} or right({c}, 1) in {blanks} "
            f"then trim({c}, ' ' || chr(9) || chr(13) || chr(10)) else {c} end, '')")


def _ts(c: str) -> str:
    return (f"case when regexp_full_match({c}, '{TS_SHAPE}') and substr({c}, 1, 4) != '0000' "
            f"then try_strptime(replace(replace({c}, 'T', ' '), 'Z', ''), '%Y-%m-%d %H:%M:%S') end")


def _int(c: str) -> str:
    return f"case when regexp_full_match({c}, '-?[0-9]+') then try_cast({c} as bigint) end"


def statements(files: list[str], now: str, lateness_h: int, max_amount: int, ingested_ahead_h: int,
               event_time_ahead_h: int, lineage: bool) -> list[tuple[str, str]]:
    cols = ", ".join(f"'{c}': 'varchar'" for c in (*COLUMNS, "_overflow"))
    paths = ", ".join(_lit(f) for f in files)
    rx = _invisible_class()
    reader = (f"read_csv([{paths}], header = true, auto_detect = false, delim = ',', quote = '\"', "
              f"escape = '\"', strict_mode = false, null_padding = true, parallel = false, "
              f"max_line_size = 2097152, columns = {{{cols}}})")
    if lineage:
        # a record's line: its position in the scan (one thread, in file order) minus its file's first
        landed = (f"select * exclude (_position, file_index), _position - min(_position) over "
                  f"(partition by file_index) + 2 as source_line from (select *, filename as source_file, "
                  f"file_index, row_number() over () as _position from {reader})")
    else:
        landed = f"select * from {reader}"
    lineage_cols = ", source_file, source_line" if lineage else ""
    valid = f"""
        _overflow is null
        and event_id is not null and company_id is not null and order_item_id is not null
        and not regexp_matches(event_id, '{rx}') and not regexp_matches(company_id, '{rx}')
        and not coalesce(regexp_matches(order_id, '{rx}'), false) and not regexp_matches(order_item_id, '{rx}')
        and event_type in ('sale', 'refund')
        and amount_v between 0 and {int(max_amount)}
        and regexp_full_match(currency, '[A-Z]{{3}}') and known_currency is not null
        and event_time_v is not null and ingested_at_v is not null
        and (epoch(ingested_at_v) - epoch(timestamp {_lit(now)}))::bigint <= {int(ingested_ahead_h) * 3600}
        and (epoch(event_time_v) - epoch(ingested_at_v))::bigint <= {int(event_time_ahead_h) * 3600}
        and version_v >= 1"""
    rep = ("min(ingested_at_v) as ingested_at" if not lineage else
           "min(ingested_at_v) as ingested_at, arg_min({'f': source_file, 'l': source_line}, "
           "(ingested_at_v, source_file, source_line)) as earliest_row")
    currencies = ROOT / "seeds" / "currencies.csv"
    return [
        ("currencies", f"create temp table currencies as select currency from read_csv({_lit(str(currencies))}, "
                       "header = true, auto_detect = false, columns = {'currency': 'varchar', 'numeric_code': "
                       "'varchar', 'minor_units': 'varchar', 'name': 'varchar'})"),
        # read + trim + type + validate + fold into copies, in one statement. An invalid row's
        # event_id is made null: invalid rows group apart (event_id null: dropped, and counted),
        # and no filter precedes the aggregate (DuckDB would push it below the projection and
        # compute every trim and parse twice).
        ("read, validate, copies", f"""
create temp table copies as
with landed as (
    {landed}
),
trimmed as (
    select {", ".join(f"{_trim(c)} as {c}" for c in COLUMNS)}, _overflow{lineage_cols}
    from landed
),
typed as (
    select *, {_int('amount_cents')} as amount_v, {_int('version')} as version_v,
        {_ts('event_time')} as event_time_v, {_ts('ingested_at')} as ingested_at_v
    from trimmed
    left join (select currency as known_currency from currencies) as k on trimmed.currency = k.known_currency
),
judged as (
    select case when {valid} then event_id end as valid_event_id, *
    from typed
)
select valid_event_id as event_id, version_v, event_type, company_id, order_id, order_item_id, amount_v, currency,
    event_time_v, {rep}, count(*) as n_rows
from judged
group by valid_event_id, version_v, event_type, company_id, order_id, order_item_id, amount_v, currency, event_time_v
"""),
        # the applicable copies, and each event's current copy
        ("current", f"""
create temp table current_copies as
with applicable as (
    select * from copies
    where event_id is not null
        and (epoch(ingested_at) - epoch(event_time_v))::bigint <= {int(lateness_h) * 3600}
),
versions as (
    select event_id, version_v, count(*) as payloads,
        any_value({{'event_type': event_type, 'company_id': company_id, 'order_id': order_id,
                   'order_item_id': order_item_id, 'amount_cents': amount_v, 'currency': currency,
                   'event_time': event_time_v}}) as p
    from applicable
    group by event_id, version_v
),
latest as (
    select event_id, arg_max({{'payloads': payloads, 'p': p}}, version_v) as top
    from versions
    group by event_id
)
select event_id, unnest(top.p)
from latest
where top.payloads = 1
"""),
        ("fct_order_items", """
create table fct_order_items as
select
    company_id, order_item_id,
    last.order_id, last.currency,
    first_event_time, last_event_time, gross_cents, refunded_cents,
    gross_cents - refunded_cents as net_cents, event_count,
    md5_number(company_id || '|' || order_item_id) as item_key
from (
    select
        company_id, order_item_id,
        arg_max({'order_id': order_id, 'currency': currency}, (event_time, event_id)) as last,
        min(event_time) as first_event_time, max(event_time) as last_event_time,
        cast(sum(case when event_type = 'sale' then amount_cents else 0 end) as bigint) as gross_cents,
        cast(sum(case when event_type = 'refund' then amount_cents else 0 end) as bigint) as refunded_cents,
        count(*) as event_count
    from current_copies
    group by company_id, order_item_id
)
"""),
        ("fct_daily_revenue", """
create table fct_daily_revenue as
select company_id, revenue_date, currency, gross_cents, refunded_cents, event_count,
    gross_cents - refunded_cents as net_cents
from (
    select company_id, cast(event_time as date) as revenue_date, currency,
        cast(sum(case when event_type = 'sale' then amount_cents else 0 end) as bigint) as gross_cents,
        cast(sum(case when event_type = 'refund' then amount_cents else 0 end) as bigint) as refunded_cents,
        count(*) as event_count
    from current_copies
    group by all
)
"""),
        # one entry per current event: posting_id and contribution_key as our first build names them
        ("fct_revenue_ledger", """
create table fct_revenue_ledger as
select
    md5('entry|' || event_id || '|' || contribution_key || '|0') as posting_id,
    'entry' as posting_type,
    cast(null as varchar) as reverses_posting_id,
    event_id, md5_number(event_id) as event_key, company_id, revenue_date, currency, amount_cents,
    contribution_key, cast(1 as bigint) as posted_run_seq
from (
    select event_id, company_id, revenue_date, currency, amount_cents,
        md5(event_id || '|' || company_id || '|' || cast(revenue_date as varchar) || '|' || currency
            || '|' || cast(amount_cents as varchar)) as contribution_key
    from (
        select event_id, company_id, cast(event_time as date) as revenue_date, currency,
            case when event_type = 'refund' then -amount_cents else amount_cents end as amount_cents
        from current_copies
    )
)
"""),
    ]


def run(db: str, files: list[str], now: str, lateness_h: int, max_amount: int, ingested_ahead_h: int,
        event_time_ahead_h: int, lineage: bool, threads: int | None, memory_limit: str | None,
        profile_dir: str | None) -> dict:
    loadable = [f for f in files if os.path.getsize(f) > 0]
    t0 = time.perf_counter()
    con = duckdb.connect(db)
    out: dict = {"statements": []}
    try:
        if threads:
            con.execute(f"set threads = {int(threads)}")
        if memory_limit:
            con.execute(f"set memory_limit = {_lit(memory_limit)}")
        con.execute("set preserve_insertion_order = false")
        con.execute("begin")
        for label, sql in statements(loadable, now, lateness_h, max_amount, ingested_ahead_h, event_time_ahead_h,
                                     lineage):
            if profile_dir:
                profile = Path(profile_dir) / (label.replace(" ", "_").replace(",", "") + ".json")
                con.execute("pragma enable_profiling = 'json'")
                con.execute(f"pragma profiling_output = {_lit(str(profile))}")
            t = time.perf_counter()
            con.execute(sql)
            out["statements"].append([label, time.perf_counter() - t])
            if profile_dir:
                con.execute("pragma disable_profiling")
        t = time.perf_counter()
        con.execute("commit")
        out["statements"].append(["commit", time.perf_counter() - t])
        out["sql_s"] = time.perf_counter() - t0
        out["rows_read"], out["rows_dropped"] = con.execute(
            "select sum(n_rows), sum(n_rows) filter (where event_id is null) from copies").fetchone()
        out["events_current"] = con.execute("select count(*) from current_copies").fetchone()[0]
        for table, key in (("items", "fct_order_items"), ("days", "fct_daily_revenue"),
                           ("postings", "fct_revenue_ledger")):
            out[table] = con.execute(f"select count(*) from {key}").fetchone()[0]
    finally:
        con.close()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db", required=True, help="a new DuckDB file (refused if it exists)")
    p.add_argument("--now", default="2030-01-01 00:00:00",
                   help="the run's clock for ingested_in_future (bench/run.py's BENCH_NOW)")
    p.add_argument("--lateness-hours", type=int, default=72)
    p.add_argument("--max-amount-cents", type=int, default=1_000_000_000_000)
    p.add_argument("--max-ingested-ahead-hours", type=int, default=24)
    p.add_argument("--max-event-time-ahead-hours", type=int, default=24)
    p.add_argument("--lineage", action="store_true",
                   help="also carry each row's file and line to its copy's earliest row (the copies table's "
                        "source_file/source_line; no business table depends on it)")
    p.add_argument("--threads", type=int, default=int(os.environ.get("BENCH_THREADS", "0")) or None)
    p.add_argument("--memory-limit", default=os.environ.get("DBT_DUCKDB_MEMORY_LIMIT", "8GB"))
    p.add_argument("--profile-dir", default=None, help="write DuckDB's JSON profile of each statement here")
    p.add_argument("files", nargs="+")
    a = p.parse_args(argv)
    if Path(a.db).exists():
        p.error(f"{a.db} exists: the recompute writes a new database")
    out = run(a.db, a.files, a.now, a.lateness_hours, a.max_amount_cents, a.max_ingested_ahead_hours,
              a.max_event_time_ahead_hours, a.lineage, a.threads, a.memory_limit, a.profile_dir)
    json.dump(out, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
