"""Writing a set of generated rows (pipeline_demo/generate_rows.py) as one CSV delivery of the
contract: DuckDB renders the numeric columns as contract text, and a malformed row gets one of
BAD_VALUES for its broken column.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd

from pipeline_demo.generate_rows import COLS, Rows

CURRENCIES = ("EUR", "USD", "GBP")

# Malformed rows: reason code (pipeline_demo/generate.py's REASONS, from 1) -> replacement texts
# for the corrupted column.
_BAD_TS = (
    "not a time",
    "2026/11/01 10:15:00",
    "2026-13-01 10:15:00",
    "",
    "1793000000",
    "2026-11-01T25:61:00Z",
    "01.11.2026 10:15",
)
BAD_VALUES: dict[int, tuple[str, ...]] = {
    1: ("", "   "),
    2: ("", " "),
    3: ("", "  "),
    4: ("SALE", "purchase", "sale, refund", "Refund", "", "chargeback"),
    5: ("12.5", "abc", "", "1e3", "12,50", "0x1F"),
    # 6: '-<amount>' or '-1', rendered in SQL
    7: ("usd", "EURO", "E1R", "US", "", "€"),
    8: _BAD_TS,
    9: _BAD_TS,
    10: ("0", "-1", "x", "1.5", ""),
}


def _lit(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _bad(code: int) -> str:
    vals = BAD_VALUES[code]
    lst = "[" + ", ".join(_lit(v) for v in vals) + "]"
    return f"{lst}[var % {len(vals)} + 1]"


def _ts(text: str, form: str) -> str:
    # text is the TIMESTAMP cast to VARCHAR ('YYYY-MM-DD HH:MM:SS', whole seconds)
    return f"CASE {form} WHEN 0 THEN {text} ELSE replace({text}, ' ', 'T') || 'Z' END"


def contract_select_sql(companies: int) -> str:
    """The SELECT that renders numeric columns (view ``rows_df``) as contract text."""
    co = "[" + ", ".join(_lit(f"co_{i + 1:02d}") for i in range(companies)) + "]"
    cur = "[" + ", ".join(_lit(CURRENCIES[i % len(CURRENCIES)]) for i in range(companies)) + "]"
    return f"""
SELECT
  CASE WHEN bad = 1 THEN {_bad(1)} ELSE 'evt_' || lpad(ev::VARCHAR, 9, '0') END AS event_id,
  CASE WHEN bad = 4 THEN {_bad(4)} WHEN etype = 0 THEN 'sale' ELSE 'refund' END AS event_type,
  CASE WHEN bad = 2 THEN {_bad(2)} ELSE {co}[company + 1] END AS company_id,
  'ord_' || o AS order_id,
  CASE WHEN bad = 3 THEN {_bad(3)} ELSE 'item_' || o || '_' || line::VARCHAR END
    AS order_item_id,
  CASE WHEN bad = 5 THEN {_bad(5)}
       WHEN bad = 6 THEN (CASE WHEN var % 2 = 0 THEN '-' || greatest(amount, 1)::VARCHAR
                               ELSE '-1' END)
       ELSE amount::VARCHAR END AS amount_cents,
  CASE WHEN bad = 7 THEN {_bad(7)} ELSE {cur}[company + 1] END AS currency,
  CASE WHEN bad = 8 THEN {_bad(8)} ELSE {_ts("et_s", "et_f")} END AS event_time,
  CASE WHEN bad = 9 THEN {_bad(9)} ELSE {_ts("ing_s", "ing_f")} END AS ingested_at,
  CASE WHEN bad = 10 THEN {_bad(10)} ELSE version::VARCHAR END AS version
FROM (
  SELECT *, lpad("order"::VARCHAR, 7, '0') AS o,
         make_timestamp(et * 1000000)::VARCHAR AS et_s,
         make_timestamp(ing * 1000000)::VARCHAR AS ing_s
  FROM rows_df
)
"""


def write_csv(con: duckdb.DuckDBPyConnection, rows: Rows, path: Path, select_sql: str) -> None:
    df = pd.DataFrame({c: rows[c] for c in COLS}, copy=False)
    con.register("rows_df", df)
    try:
        tmp = str(path).replace("'", "''")
        con.execute(f"COPY ({select_sql}) TO '{tmp}' (FORMAT CSV, HEADER, DELIMITER ',')")
    finally:
        con.unregister("rows_df")
