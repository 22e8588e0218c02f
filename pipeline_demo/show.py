"""`python -m pipeline_demo show` (`make show`): the first rows of one table of a warehouse.

It only reads: the DuckDB file is opened read-only (a path that does not exist is refused, never
created; no holder file, no write-ahead log). TABLE is a name, never SQL: it must be an
identifier (`name` or `schema.name`) of a table or view the warehouse's own catalog lists
(information_schema, this database only), and it is quoted before it enters the query; a name
it does not hold gets the closest names it does hold. LIMIT is a whole number from 1 to
LIMIT_MAX, or `all`. Rows come in a stable order (every column, ascending), control characters
in values shown escaped. A bad value, a missing file or a build holding the warehouse gives one
line naming WAREHOUSE, TABLE or LIMIT (or the flag), exit 2, no traceback.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path

import duckdb

from harness._plumbing import quote
from pipeline_demo.inputs import InputError, Value, connect_read_only, one_line, resolve, shown, warehouse_file

HELP = "print the first rows of one table of a warehouse (read-only)"
DEFAULT_WAREHOUSE = "target/demo/rerun_safe.duckdb"
DEFAULT_TABLE = "fct_daily_revenue"
DEFAULT_LIMIT = "20"
LIMIT_MAX = 100_000
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
CELL_WIDTH = 40


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--warehouse",
        default=None,
        metavar="PATH",
        help=f"a DuckDB file (default: the demo's, {DEFAULT_WAREHOUSE}; make: WAREHOUSE=)",
    )
    parser.add_argument(
        "--table",
        default=None,
        metavar="NAME",
        help=f"a table or view of it, name or schema.name (default {DEFAULT_TABLE}; make: TABLE=)",
    )
    parser.add_argument(
        "--limit",
        default=None,
        metavar="N",
        help=f"rows to print, 1-{LIMIT_MAX} or all (default {DEFAULT_LIMIT}; make: LIMIT=)",
    )


def check_limit(value: Value) -> int | None:
    """The row limit, or None for `all`."""
    text = value.text.strip()
    if text.lower() == "all":
        return None
    if not re.fullmatch(r"[0-9]{1,7}", text) or not 1 <= int(text) <= LIMIT_MAX:
        raise InputError(f"{value.name} {shown(value.text)}: a whole number from 1 to {LIMIT_MAX}, or all")
    return int(text)


def check_table_name(value: Value) -> tuple[str | None, str]:
    """(schema or None, table): an identifier, or two joined by one dot."""
    parts = value.text.split(".")
    if len(parts) > 2 or not all(IDENTIFIER.fullmatch(part) for part in parts):
        raise InputError(
            f"{value.name} {shown(value.text)}: a table name (letters, digits, _; or schema.name), not SQL"
        )
    return (None, parts[0]) if len(parts) == 1 else (parts[0], parts[1])


def find_table(con: duckdb.DuckDBPyConnection, value: Value, warehouse: Path) -> tuple[str, str]:
    """(schema, table) of a relation the warehouse's catalog lists, matched without regard to case."""
    schema, table = check_table_name(value)
    listed = con.execute(
        "select table_schema, table_name from information_schema.tables "
        "where table_catalog = current_database() and table_schema not in ('information_schema', 'pg_catalog') "
        "order by table_schema = 'main' desc, table_schema, table_name"
    ).fetchall()
    found = [
        (s, t) for s, t in listed if t.lower() == table.lower() and (schema is None or s.lower() == schema.lower())
    ]
    if len(found) > 1 and schema is None:
        found = [row for row in found if row[0] == "main"] or found
    if len(found) > 1:
        raise InputError(
            f"{value.name} {shown(value.text)}: in several schemas of {shown(warehouse)} "
            f"({', '.join(s for s, _ in found)}): give schema.name"
        )
    if found:
        return found[0]
    names = sorted({t for _, t in listed})
    close = difflib.get_close_matches(table, names, n=3, cutoff=0.6)
    hint = (
        f"did you mean {', '.join(close)}?"
        if close
        else f"it holds {len(names)} tables and views" + (f", e.g. {', '.join(names[:5])}" if names else "")
    )
    raise InputError(f"{value.name} {shown(value.text)}: no such table or view in {shown(warehouse)}; {hint}")


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}" for c in text)
    return text if len(text) <= CELL_WIDTH else text[: CELL_WIDTH - 3] + "..."


def print_rows(columns: list[str], rows: list[tuple[object, ...]]) -> None:
    header = [_cell(c) for c in columns]
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(header[i]), *(len(r[i]) for r in cells)]) for i in range(len(header))]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())


def show(warehouse_value: Value, table_value: Value, limit_value: Value) -> None:
    limit = check_limit(limit_value)
    check_table_name(table_value)
    warehouse = warehouse_file(warehouse_value)
    con = connect_read_only(warehouse, warehouse_value.name, "make show")
    try:
        schema, table = find_table(con, table_value, warehouse)
        relation = f"{quote(schema)}.{quote(table)}"
        total = con.execute(f"select count(*) from {relation}").fetchone()
        cursor = con.execute(
            f"select * from {relation} order by all" + ("" if limit is None else f" limit {int(limit)}")
        )
        columns = [d[0] for d in cursor.description or []]
        rows = cursor.fetchall()
    except duckdb.Error as exc:
        raise InputError(
            f"{warehouse_value.name} {shown(warehouse)}: reading {table_value.text} failed ({one_line(exc)})"
        ) from exc
    finally:
        con.close()
    print_rows(columns, rows)
    count = int(total[0]) if total else len(rows)
    print(
        f"{len(rows)} of {count} rows of {schema}.{table} in {warehouse}"
        + ("" if len(rows) == count else f" (LIMIT={limit}; LIMIT=all for every row)"),
        flush=True,
    )


def run(args: argparse.Namespace) -> int:
    try:
        show(
            resolve(args.warehouse, "--warehouse", "WAREHOUSE", DEFAULT_WAREHOUSE),
            resolve(args.table, "--table", "TABLE", DEFAULT_TABLE),
            resolve(args.limit, "--limit", "LIMIT", DEFAULT_LIMIT),
        )
    except InputError as exc:
        print(f"show: {exc}", file=sys.stderr, flush=True)
        return 2
    return 0
