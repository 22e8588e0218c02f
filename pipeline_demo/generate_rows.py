"""The rows of the sample deliveries (pipeline_demo/generate.py) as numpy columns: the base
events, one element per event, and the operations on sets of rows (take, concatenate, sort and
merge by ingestion time, split by delivery day). A set of rows is a dict of equal-length
columns, COLS.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from pipeline_demo.generate import GeneratorConfig

HOUR = 3600
DAY = 86400
INGEST_WINDOW = 23 * HOUR  # rows land in [day 00:00, day 23:00); files at 23:00 + 30 s * NNN
WATERMARK_S = 72 * HOUR
# A column of a set of rows (int64, or int8 for the flags), and a set of rows: COLS -> column.
Column = npt.NDArray[Any]
Rows = dict[str, Column]
COLS = ("ev", "etype", "company", "order", "line", "amount", "et", "ing", "et_f", "ing_f", "version", "bad", "var")


def concat_rows(parts: list[Rows]) -> Rows:
    present = [p for p in parts if len(p["ev"])]
    if not present:
        return {c: np.empty(0, dtype=np.int64) for c in COLS}
    return {c: np.concatenate([p[c] for p in present]) for c in COLS}


def take_rows(rows: Rows, idx: Column) -> Rows:
    return {c: rows[c][idx] for c in COLS}


def row_count(rows: Rows) -> int:
    return len(rows["ev"])


class BaseEvents:
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

    def rows(self, idx: Column, rng: np.random.Generator, **over: Column) -> Rows:
        n = len(idx)
        r: Rows = {
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


def split_by_day(idx: Column, day: Column, D: int) -> list[Column]:
    """Group idx by day (stable within a day): list of D index arrays."""
    order = np.argsort(day, kind="stable")
    idx, day = idx[order], day[order]
    bounds = np.searchsorted(day, np.arange(D + 1))
    return [idx[bounds[d] : bounds[d + 1]] for d in range(D)]


def sort_rows(rows: Rows) -> Rows:
    return take_rows(rows, np.argsort(rows["ing"], kind="stable"))


def merge_sorted(a: Rows, b: Rows | None) -> Rows:
    """Rows of a (sorted by ing) and b, by ing; same result as a stable sort of a + b."""
    if b is None or not row_count(b):
        return a
    b = sort_rows(b)
    pos = np.searchsorted(a["ing"], b["ing"], side="right") + np.arange(row_count(b))
    is_b = np.zeros(row_count(a) + row_count(b), bool)
    is_b[pos] = True
    out = {}
    for c in COLS:
        col = np.empty(len(is_b), dtype=np.result_type(a[c], b[c]))
        col[is_b] = b[c]
        col[~is_b] = a[c]
        out[c] = col
    return out
