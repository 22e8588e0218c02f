"""Deterministic, vectorised generator of landing-zone deliveries.

Writes CSV files in the landing-zone format of the contract (docs/semantics.md, "Reading
the landing zone") with every pathology the pipeline must survive:
redelivered files, re-sent rows, overlapping files, out-of-order files, new versions (some
of which move the event to another day, item or company), conflicting copies, late rows
with a heavy tail, malformed rows (one per reason code of ``docs/semantics.md`` except
``malformed_row`` and ``conflicting_version``), empty and header-only files, and refunds.

Design
------
* All per-row values are built as numpy columns from one ``numpy.random.Generator``
  seeded with ``config.seed``; strings are rendered and files written by DuckDB
  (``COPY (SELECT ...) TO ... (HEADER, DELIMITER ',')``), one COPY per file. There is no
  per-row Python loop, only per-file loops. Same seed + config => byte-identical files,
  identical names and identical mtimes.
* File names are ``<delivery_date>_<NNN>_<kind>.csv``. ``NNN`` is the file's rank within
  its delivery day, so sorting the names sorts the deliveries. The mtime of every file is
  its delivery time: ``delivery_date 23:00:00 UTC + 30 s * NNN``.
* Every row's ``ingested_at`` lies in ``[delivery_date 00:00, delivery_date 23:00)``,
  except in ``outoforder`` files (rows from an earlier day, delivered late) and in the
  first part of ``overlap`` files (the tail of the previous day re-sent byte for byte).
  ``event_time = ingested_at - lateness``.

Rates
-----
All rates are shares of the base events (``days * events_per_day``), except
``redelivered_file_rate`` (a share of the data files) and ``move_rate`` (a share of the new
versions). ``late_rate`` is the share of base events whose lateness is drawn from the
Pareto tail, which starts just above 72 h, so with the default watermark it is the share
of base rows beyond the watermark; the on-time body is lognormal (median 2 h) clipped at
exactly 72 h (a few rows sit on the boundary, which is on time).

File kinds
----------
``main``        the day's events, sorted by ingested_at, with the malformed rows mixed in
``overlap``     tail of the previous day's main file (identical rows, so two files share
                rows) followed by the head of this day's window (not in the main file)
``outoforder``  a slice of an earlier day's window (ingested_at on that day) delivered
                1-3 days later
``resend``      earlier rows re-sent with a new ingested_at, same payload
``versions``    version 2 (and some version 3) re-emissions with a changed amount; a
                ``move_rate`` share also moves the event (another day, item or company)
``conflict``    a second copy of (event_id, version 1) with a different amount
``redelivery``  a byte-identical copy of an earlier file under another name
``empty``       0 bytes
``headeronly``  the header line only
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

HEADER = (
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
HEADER_LINE = ",".join(HEADER) + "\n"
CURRENCIES = ("EUR", "USD", "GBP")

RATE_FIELDS = (
    "redelivered_file_rate",
    "resent_rows_rate",
    "overlap_rate",
    "out_of_order_rate",
    "new_version_rate",
    "move_rate",
    "conflict_rate",
    "late_rate",
    "malformed_rate",
    "refund_rate",
)

HOUR = 3600
DAY = 86400
INGEST_WINDOW = 23 * HOUR  # rows land in [day 00:00, day 23:00); files at 23:00 + 30 s * NNN
WATERMARK_S = 72 * HOUR

# Malformed rows: reason code -> replacement texts for the corrupted column.
# Codes follow the check order of docs/semantics.md; each malformed row breaks one column.
REASONS = (
    "missing_event_id",
    "missing_company_id",
    "missing_order_item_id",
    "unknown_event_type",
    "invalid_amount",
    "negative_amount",
    "invalid_currency",
    "invalid_event_time",
    "invalid_ingested_at",
    "invalid_version",
)
_BAD_TS = (
    "not a time",
    "2026/11/01 10:15:00",
    "2026-13-01 10:15:00",
    "",
    "1793000000",
    "2026-11-01T25:61:00Z",
    "01.11.2026 10:15",
)
BAD_VALUES = {
    1: ("", "   "),
    2: ("", " "),
    3: ("", "  "),
    4: ("SALE", "purchase", "sale, refund", "Refund", "", "chargeback"),
    5: ("12.5", "abc", "", "1e3", "12,50", "0x1F"),
    6: None,  # '-<amount>' or '-1', rendered in SQL
    7: ("usd", "EURO", "E1R", "US", "", "€"),
    8: _BAD_TS,
    9: _BAD_TS,
    10: ("0", "-1", "x", "1.5", ""),
}

KIND_ORDER = ("overlap", "main", "outoforder", "resend", "versions", "conflict", "headeronly", "empty", "redelivery")

COLS = ("ev", "etype", "company", "order", "line", "amount", "et", "ing", "et_f", "ing_f", "version", "bad", "var")


@dataclass
class GeneratorConfig:
    seed: int = 7
    start_date: dt.date = dt.date(2026, 11, 1)
    days: int = 10
    events_per_day: int = 1000
    companies: int = 5
    items_per_order: int = 3
    redelivered_file_rate: float = 0.1
    resent_rows_rate: float = 0.02
    overlap_rate: float = 0.1
    out_of_order_rate: float = 0.1
    new_version_rate: float = 0.05
    move_rate: float = 0.3
    conflict_rate: float = 0.005
    late_rate: float = 0.05
    malformed_rate: float = 0.01
    empty_files: int = 1
    header_only_files: int = 1
    refund_rate: float = 0.1

    def __post_init__(self) -> None:
        if isinstance(self.start_date, str):
            self.start_date = dt.date.fromisoformat(self.start_date)
        if self.days < 1 or self.events_per_day < 1:
            raise ValueError("days and events_per_day must be >= 1")
        if not 1 <= self.companies <= 99:
            raise ValueError("companies must be in 1..99")
        if not 1 <= self.items_per_order <= 999:
            raise ValueError("items_per_order must be in 1..999")
        for name in RATE_FIELDS:
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name} must be a fraction in [0, 1], got {v}")
        if self.empty_files < 0 or self.header_only_files < 0:
            raise ValueError("empty_files and header_only_files must be >= 0")


@dataclass
class GenerationSummary:
    out_dir: str
    files: list[str] = field(default_factory=list)  # names, in delivery order
    files_written: int = 0
    rows_written: int = 0  # data rows (headers excluded), all files
    bytes_written: int = 0
    files_by_kind: dict[str, int] = field(default_factory=dict)
    rows_by_kind: dict[str, int] = field(default_factory=dict)
    pathologies: dict[str, int] = field(default_factory=dict)
    elapsed_s: float = 0.0

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


# --------------------------------------------------------------------------- rows


def _concat(parts: list[dict]) -> dict:
    parts = [p for p in parts if p is not None and len(p["ev"])]
    if not parts:
        return {c: np.empty(0, dtype=np.int64) for c in COLS}
    return {c: np.concatenate([p[c] for p in parts]) for c in COLS}


def _take(rows: dict, idx: np.ndarray) -> dict:
    return {c: rows[c][idx] for c in COLS}


def _n(rows: dict) -> int:
    return len(rows["ev"])


class _Base:
    """Base events as numpy columns, one element per event (index == event number)."""

    def __init__(self, cfg: GeneratorConfig, rng: np.random.Generator):
        D, E, C = cfg.days, cfg.events_per_day, cfg.companies
        N = D * E
        self.N = N
        start = int(
            dt.datetime(cfg.start_date.year, cfg.start_date.month, cfg.start_date.day, tzinfo=dt.UTC).timestamp()
        )
        self.start = start
        self.day = np.repeat(np.arange(D, dtype=np.int64), E)
        # ingested_at: sorted within each day, so the event number order is arrival order.
        offs = np.sort(rng.integers(0, INGEST_WINDOW, size=(D, E), dtype=np.int64), axis=1)
        self.ing = start + self.day * DAY + offs.ravel()

        # lateness: lognormal body (median 2 h) clipped at exactly 72 h, Pareto tail > 72 h.
        lat = np.minimum(rng.lognormal(np.log(2 * HOUR), 1.2, N), float(WATERMARK_S))
        late = rng.random(N) < cfg.late_rate
        nl = int(late.sum())
        tail = WATERMARK_S * (1.0 + rng.pareto(1.2, nl)) + 1.0
        lat[late] = np.minimum(tail, 120.0 * DAY)
        self.late = late
        self.et = self.ing - lat.astype(np.int64)
        self.et_f = rng.integers(0, 2, N, dtype=np.int8)

        # sales and refunds. Event 0 is always a sale, so every refund has an earlier sale.
        is_refund = rng.random(N) < cfg.refund_rate
        is_refund[0] = False
        sales = np.flatnonzero(~is_refund)
        ns = len(sales)
        n_orders = (ns + cfg.items_per_order - 1) // cfg.items_per_order
        order_company = rng.integers(0, C, n_orders, dtype=np.int64)
        s_order = np.arange(ns, dtype=np.int64) // cfg.items_per_order
        s_line = rng.integers(1, cfg.items_per_order + 1, ns, dtype=np.int64)
        s_amount = np.minimum(np.maximum(rng.lognormal(np.log(2500), 1.0, ns), 1), 10_000_000)
        s_amount = s_amount.astype(np.int64)

        self.etype = is_refund.astype(np.int8)
        self.order = np.empty(N, np.int64)
        self.line = np.empty(N, np.int64)
        self.amount = np.empty(N, np.int64)
        self.order[sales] = s_order
        self.line[sales] = s_line
        self.amount[sales] = s_amount

        refunds = np.flatnonzero(is_refund)
        if len(refunds):
            p = np.searchsorted(sales, refunds) - 1  # last sale before the refund (>= 0)
            window = np.minimum(p + 1, 2 * E)
            p = p - (rng.random(len(refunds)) * window).astype(np.int64)
            sale = sales[p]
            self.order[refunds] = self.order[sale]
            self.line[refunds] = self.line[sale]
            frac = rng.uniform(0.1, 1.0, len(refunds))
            self.amount[refunds] = np.maximum(1, (self.amount[sale] * frac).astype(np.int64))
            # a refund happens after its sale (and never after it was ingested)
            self.et[refunds] = np.minimum(np.maximum(self.et[refunds], self.et[sale] + 1), self.ing[refunds])
        self.company = order_company[self.order]
        self.n_refunds = len(refunds)

    def rows(self, idx: np.ndarray, rng: np.random.Generator, **over) -> dict:
        n = len(idx)
        r = {
            "ev": idx.astype(np.int64),
            "etype": self.etype[idx],
            "company": self.company[idx],
            "order": self.order[idx],
            "line": self.line[idx],
            "amount": self.amount[idx],
            "et": self.et[idx],
            "ing": self.ing[idx],
            "et_f": self.et_f[idx],
            "ing_f": rng.integers(0, 2, n, dtype=np.int8),
            "version": np.ones(n, np.int64),
            "bad": np.zeros(n, np.int8),
            "var": np.zeros(n, np.int64),
        }
        for k, v in over.items():
            r[k] = v
        return r


# --------------------------------------------------------------------------- SQL


def _lit(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _bad(code: int) -> str:
    vals = BAD_VALUES[code]
    lst = "[" + ", ".join(_lit(v) for v in vals) + "]"
    return f"{lst}[var % {len(vals)} + 1]"


def _ts(text: str, form: str) -> str:
    # text is the TIMESTAMP cast to VARCHAR ('YYYY-MM-DD HH:MM:SS', whole seconds)
    return f"CASE {form} WHEN 0 THEN {text} ELSE replace({text}, ' ', 'T') || 'Z' END"


def _select_sql(companies: int) -> str:
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


def _write_csv(con: duckdb.DuckDBPyConnection, rows: dict, path: Path, select_sql: str) -> None:
    df = pd.DataFrame({c: rows[c] for c in COLS}, copy=False)
    con.register("rows_df", df)
    try:
        tmp = str(path).replace("'", "''")
        con.execute(f"COPY ({select_sql}) TO '{tmp}' (FORMAT CSV, HEADER, DELIMITER ',')")
    finally:
        con.unregister("rows_df")


# --------------------------------------------------------------------------- plan


@dataclass
class _File:
    day: int
    kind: str
    sub: int  # tie-break among files of one kind on one day
    build: object = None  # callable -> rows dict, for data files
    source: _File | None = None  # for redeliveries
    name: str = ""
    nnn: int = 0
    rows: int = 0
    late_rows: int = 0


def _split_by_day(idx: np.ndarray, day: np.ndarray, D: int) -> list[np.ndarray]:
    """Group idx by day (stable within a day): list of D index arrays."""
    order = np.argsort(day, kind="stable")
    idx, day = idx[order], day[order]
    bounds = np.searchsorted(day, np.arange(D + 1))
    return [idx[bounds[d] : bounds[d + 1]] for d in range(D)]


def _sort_rows(rows: dict) -> dict:
    return _take(rows, np.argsort(rows["ing"], kind="stable"))


def _merge_sorted(a: dict, b: dict | None) -> dict:
    """Rows of a (sorted by ing) and b, by ing; same result as a stable sort of a + b."""
    if b is None or not _n(b):
        return a
    b = _sort_rows(b)
    pos = np.searchsorted(a["ing"], b["ing"], side="right") + np.arange(_n(b))
    is_b = np.zeros(_n(a) + _n(b), bool)
    is_b[pos] = True
    out = {}
    for c in COLS:
        col = np.empty(len(is_b), dtype=np.result_type(a[c], b[c]))
        col[is_b] = b[c]
        col[~is_b] = a[c]
        out[c] = col
    return out


def generate(config: GeneratorConfig, out_dir: Path) -> GenerationSummary:
    """Write the deliveries of ``config`` into ``out_dir``; return what was written."""
    t0 = time.perf_counter()
    cfg = config
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(cfg.seed)
    D, E = cfg.days, cfg.events_per_day
    base = _Base(cfg, rng)
    N = base.N
    last = D - 1
    path_counts: dict[str, int] = {
        k: 0
        for k in (
            "malformed_rows",
            "overlap_duplicate_rows",
            "out_of_order_rows",
            "rows_late_gt_72h",
            *(f"malformed_{r}" for r in REASONS),
        )
    }
    path_counts |= {
        "base_events": N,
        "sales": N - base.n_refunds,
        "refunds": base.n_refunds,
    }
    files: list[_File] = []

    # ---- window slicing per day: head -> overlap file, middle slice -> outoforder file
    h = round(cfg.overlap_rate * E) if D > 1 else 0
    o = round(cfg.out_of_order_rate * E) if D > 1 else 0
    if h + o + h > E:  # rates too large for the window: scale down
        s = E / (2 * h + o)
        h, o = int(h * s), int(o * s)
    main_idx: list[np.ndarray] = []
    ooo_start = rng.integers(h, max(h, E - h - o) + 1, D)
    ooo_lag = rng.integers(1, 4, D)
    for d in range(D):
        lo = d * E
        keep = np.ones(E, bool)
        if d >= 1 and h:
            keep[:h] = False
            head = np.arange(lo, lo + h)
            tail = np.arange(lo - h, lo)

            def build_overlap(tail=tail, head=head):
                return base.rows(np.concatenate([tail, head]), rng)

            files.append(_File(d, "overlap", 0, build_overlap))
            path_counts["overlap_duplicate_rows"] = path_counts.get("overlap_duplicate_rows", 0) + h
        if d < last and o:
            a = int(ooo_start[d])
            keep[a : a + o] = False
            sl = np.arange(lo + a, lo + a + o)
            files.append(_File(min(d + int(ooo_lag[d]), last), "outoforder", d, lambda sl=sl: base.rows(sl, rng)))
            path_counts["out_of_order_rows"] = path_counts.get("out_of_order_rows", 0) + o
        main_idx.append(lo + np.flatnonzero(keep))

    # ---- malformed rows: fresh event ids, mixed into the main files, reasons round-robin
    n_bad = round(cfg.malformed_rate * N)
    bad_parts: list[dict | None] = [None] * D
    if n_bad:
        reason = (rng.permutation(n_bad) % len(REASONS) + 1).astype(np.int8)
        src = rng.integers(0, N, n_bad)
        bday = base.day[src]
        r = base.rows(
            src,
            rng,
            ev=N + np.arange(n_bad, dtype=np.int64),
            bad=reason,
            var=rng.integers(0, 420, n_bad, dtype=np.int64),
            etype=(rng.random(n_bad) < 0.1).astype(np.int8),
        )
        for code, name in enumerate(REASONS, start=1):
            path_counts[f"malformed_{name}"] = int((reason == code).sum())
        path_counts["malformed_rows"] = n_bad
        for d, ix in enumerate(_split_by_day(np.arange(n_bad), bday, D)):
            if len(ix):
                bad_parts[d] = _take(r, ix)

    for d in range(D):

        def build_main(d=d):
            return _merge_sorted(base.rows(main_idx[d], rng), bad_parts[d])

        files.append(_File(d, "main", 0, build_main))

    def later_day(src_day: np.ndarray, lo: int, hi: int) -> np.ndarray:
        return np.minimum(src_day + rng.integers(lo, hi + 1, len(src_day)), last)

    def new_ing(day: np.ndarray) -> np.ndarray:
        return base.start + day * DAY + rng.integers(0, INGEST_WINDOW, len(day))

    eligible = base.day < last  # these need a later delivery day

    # ---- re-sent rows: same payload, new ingested_at 1-3 days later
    rs = np.flatnonzero(eligible & (rng.random(N) < cfg.resent_rows_rate))
    rs_day = later_day(base.day[rs], 1, 3)
    rs_rows = base.rows(rs, rng, ing=new_ing(rs_day))
    path_counts["resent_rows"] = len(rs)

    # ---- conflicts: same (event_id, version 1), different amount
    cf = np.flatnonzero(eligible & (rng.random(N) < cfg.conflict_rate))
    cf_day = later_day(base.day[cf], 1, 2)
    cf_rows = base.rows(cf, rng, ing=new_ing(cf_day), amount=base.amount[cf] + rng.integers(1, 1000, len(cf)))
    path_counts["conflicting_copies"] = len(cf)

    # ---- new versions (v2), some moved; some get a v3 later
    nv = np.flatnonzero(eligible & (rng.random(N) < cfg.new_version_rate))
    nvn = len(nv)
    nv_day = later_day(base.day[nv], 1, 3)
    nv_ing = new_ing(nv_day)
    amt = base.amount[nv]
    is_ref = base.etype[nv] == 1
    # sales go up, refunds go down: a refund stays <= its sale
    up = amt + rng.integers(1, np.maximum(2, amt // 2 + 1))
    down = np.where((amt * 0.7).astype(np.int64) < amt, (amt * 0.7).astype(np.int64), amt - 1)
    nv_amount = np.where(is_ref, np.maximum(down, 0), up)
    nv_et = base.et[nv].copy()
    nv_company = base.company[nv].copy()
    nv_order = base.order[nv].copy()
    nv_line = base.line[nv].copy()
    moved = rng.random(nvn) < cfg.move_rate
    mkind = rng.choice(3, nvn, p=[0.45, 0.45, 0.10])
    # move to another day: event_time shifts by 1-2 whole days (forward when possible)
    mday = moved & (mkind == 0)
    shift = rng.integers(1, 3, nvn) * DAY
    fwd = nv_et + shift <= nv_ing - 60
    nv_et = np.where(mday, np.where(fwd, nv_et + shift, nv_et - shift), nv_et)
    # move to another item of the same company (the item of a random event of that company)
    mitem = moved & (mkind == 1)
    by_co = np.argsort(base.company, kind="stable")
    co_start = np.searchsorted(base.company[by_co], np.arange(cfg.companies + 1))
    c = nv_company
    cnt = co_start[c + 1] - co_start[c]
    pick = by_co[co_start[c] + (rng.random(nvn) * cnt).astype(np.int64)]
    same = (base.order[pick] == nv_order) & (base.line[pick] == nv_line)
    alt_line = nv_line % cfg.items_per_order + 1  # another line of the same order
    alt_order = np.where(cfg.items_per_order > 1, nv_order, nv_order + 1)
    nv_order = np.where(mitem, np.where(same, alt_order, base.order[pick]), nv_order)
    nv_line = np.where(
        mitem, np.where(same, np.where(cfg.items_per_order > 1, alt_line, nv_line), base.line[pick]), nv_line
    )
    # move to another company (and its currency): the item of a random event elsewhere
    mco = moved & (mkind == 2) & (cfg.companies > 1)
    pick2 = rng.integers(0, N, nvn)
    other = base.company[pick2] != nv_company
    mco &= other
    nv_company = np.where(mco, base.company[pick2], nv_company)
    nv_order = np.where(mco, base.order[pick2], nv_order)
    nv_line = np.where(mco, base.line[pick2], nv_line)
    v2 = base.rows(
        nv,
        rng,
        version=np.full(nvn, 2, np.int64),
        ing=nv_ing,
        amount=nv_amount,
        et=nv_et,
        company=nv_company,
        order=nv_order,
        line=nv_line,
    )
    path_counts["new_versions_v2"] = nvn
    path_counts["moves_day"] = int(mday.sum())
    path_counts["moves_item"] = int(mitem.sum())
    path_counts["moves_company"] = int(mco.sum())
    # version 3 for a tenth of them, a further 1-2 days later
    v3sel = np.flatnonzero((nv_day < last) & (rng.random(nvn) < 0.1))
    v3_day = later_day(nv_day[v3sel], 1, 2)
    v3 = _take(v2, v3sel)
    v3["version"] = np.full(len(v3sel), 3, np.int64)
    v3["ing"] = new_ing(v3_day)
    v3["ing_f"] = rng.integers(0, 2, len(v3sel), dtype=np.int8)
    v3["amount"] = v3["amount"] + np.where(v3["etype"] == 1, 0, 100)
    v3["amount"] = np.where(v3["etype"] == 1, v3["amount"] // 2, v3["amount"])
    path_counts["new_versions_v3"] = len(v3sel)

    vv = _concat([v2, v3])
    vv_day = np.concatenate([nv_day, v3_day])
    for kind, rows, rday in (("resend", rs_rows, rs_day), ("versions", vv, vv_day), ("conflict", cf_rows, cf_day)):
        for d, ix in enumerate(_split_by_day(np.arange(len(rday)), rday, D)):
            if len(ix):
                part = _sort_rows(_take(rows, ix))
                files.append(_File(d, kind, 0, lambda part=part: part))

    # ---- empty and header-only files on random days
    for i, d in enumerate(rng.integers(0, D, cfg.empty_files)):
        files.append(_File(int(d), "empty", i))
    for i, d in enumerate(rng.integers(0, D, cfg.header_only_files)):
        files.append(_File(int(d), "headeronly", i))

    # ---- redeliveries: byte-identical copies of earlier data files, last on their day
    data_files = sorted(
        (f for f in files if f.build is not None), key=lambda f: (f.day, KIND_ORDER.index(f.kind), f.sub)
    )
    n_red = 0
    if cfg.redelivered_file_rate > 0 and data_files:
        n_red = max(1, round(cfg.redelivered_file_rate * len(data_files)))
    srcs = rng.integers(0, len(data_files), n_red) if n_red else []
    for i, s in enumerate(srcs):
        sf = data_files[int(s)]
        d = min(sf.day + int(rng.integers(0, 3)), last)
        files.append(_File(d, "redelivery", i, source=sf))

    # ---- names: rank within the delivery day
    files.sort(key=lambda f: (f.day, KIND_ORDER.index(f.kind), f.sub))
    per_day: dict[int, int] = {}
    for f in files:
        f.nnn = per_day.get(f.day, 0)
        per_day[f.day] = f.nnn + 1
        date = cfg.start_date + dt.timedelta(days=f.day)
        f.name = f"{date.isoformat()}_{f.nnn:03d}_{f.kind}.csv"

    # ---- write, in delivery order (so a redelivery's source already exists)
    summary = GenerationSummary(out_dir=str(out_dir))
    select_sql = _select_sql(cfg.companies)
    con = duckdb.connect()
    try:
        for f in files:
            path = out_dir / f.name
            if f.kind == "empty":
                path.write_bytes(b"")
            elif f.kind == "headeronly":
                path.write_bytes(HEADER_LINE.encode())
            elif f.kind == "redelivery":
                shutil.copyfile(out_dir / f.source.name, path)
                f.rows, f.late_rows = f.source.rows, f.source.late_rows
            else:
                rows = f.build()
                f.build = None
                f.rows = _n(rows)
                okt = (rows["bad"] != 8) & (rows["bad"] != 9)
                f.late_rows = int(((rows["ing"] - rows["et"] > WATERMARK_S) & okt).sum())
                _write_csv(con, rows, path, select_sql)
                del rows
            mtime = base.start + f.day * DAY + INGEST_WINDOW + 30 * f.nnn
            os.utime(path, (mtime, mtime))
            summary.files.append(f.name)
            summary.files_by_kind[f.kind] = summary.files_by_kind.get(f.kind, 0) + 1
            summary.rows_by_kind[f.kind] = summary.rows_by_kind.get(f.kind, 0) + f.rows
            summary.rows_written += f.rows
            summary.bytes_written += path.stat().st_size
            path_counts["rows_late_gt_72h"] = path_counts.get("rows_late_gt_72h", 0) + f.late_rows
    finally:
        con.close()
    summary.files_written = len(files)
    path_counts["base_events_late_gt_72h"] = int(base.late.sum())
    path_counts["base_events_late_gt_10d"] = int((base.ing - base.et > 10 * DAY).sum())
    path_counts["redelivered_rows"] = summary.rows_by_kind.get("redelivery", 0)
    summary.pathologies = dict(sorted(path_counts.items()))
    summary.elapsed_s = time.perf_counter() - t0
    return summary


# --------------------------------------------------------------------------- CLI

HELP = "write a folder of sample CSV deliveries with every at-least-once pathology"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    d = GeneratorConfig()
    parser.add_argument(
        "--out", type=Path, default=Path("data/landing"), help="landing folder to write into (default: data/landing)"
    )
    parser.add_argument("--seed", type=int, default=d.seed)
    parser.add_argument("--days", type=int, default=d.days)
    parser.add_argument("--events-per-day", type=int, default=d.events_per_day)
    parser.add_argument("--companies", type=int, default=d.companies)
    parser.add_argument("--items-per-order", type=int, default=d.items_per_order)
    parser.add_argument(
        "--start-date",
        type=dt.date.fromisoformat,
        default=d.start_date,
        help="first delivery day, YYYY-MM-DD (default: %(default)s)",
    )
    for name in RATE_FIELDS:
        parser.add_argument(
            "--" + name.replace("_", "-"), type=float, default=getattr(d, name), help="fraction (default: %(default)s)"
        )
    parser.add_argument("--empty-files", type=int, default=d.empty_files)
    parser.add_argument("--header-only-files", type=int, default=d.header_only_files)
    parser.add_argument("--clean", action="store_true", help="delete *.csv in --out before writing")


def config_from_args(args: argparse.Namespace) -> GeneratorConfig:
    kw = {f.name: getattr(args, f.name) for f in dataclasses.fields(GeneratorConfig) if hasattr(args, f.name)}
    return GeneratorConfig(**kw)


def run(args: argparse.Namespace) -> int:
    cfg = config_from_args(args)
    out = Path(args.out)
    if getattr(args, "clean", False) and out.is_dir():
        for p in sorted(out.glob("*.csv")):
            p.unlink()
    s = generate(cfg, out)
    rate = s.rows_written / s.elapsed_s if s.elapsed_s > 0 else float("inf")
    print(
        f"wrote {s.files_written} files, {s.rows_written:,} rows, "
        f"{s.bytes_written / 1e6:,.1f} MB to {s.out_dir} in {s.elapsed_s:.2f} s "
        f"({rate:,.0f} rows/s)"
    )
    print("  files by kind: " + ", ".join(f"{k}={v}" for k, v in s.files_by_kind.items()))
    print("  rows by kind:  " + ", ".join(f"{k}={v:,}" for k, v in s.rows_by_kind.items()))
    print("  pathologies:   " + ", ".join(f"{k}={v:,}" for k, v in s.pathologies.items()))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline_demo generate", description=HELP)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
