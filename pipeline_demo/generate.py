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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np

from pipeline_demo.generate_rows import (
    DAY,
    INGEST_WINDOW,
    WATERMARK_S,
    BaseEvents,
    Column,
    Rows,
    concat_rows,
    merge_sorted,
    row_count,
    sort_rows,
    split_by_day,
    take_rows,
)
from pipeline_demo.generate_sql import contract_select_sql, write_csv

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
KIND_ORDER = ("overlap", "main", "outoforder", "resend", "versions", "conflict", "headeronly", "empty", "redelivery")


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

    def as_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


# --------------------------------------------------------------------------- plan


@dataclass
class _File:
    day: int
    kind: str
    sub: int  # tie-break among files of one kind on one day
    build: Callable[[], Rows] | None = None  # the rows of a data file, drawn when it is written
    source: _File | None = None  # for redeliveries
    name: str = ""
    nnn: int = 0
    rows: int = 0
    late_rows: int = 0


@dataclass
class _Plan:
    """What the steps of `generate` share: the configuration, the one random stream, the base
    events, the files planned so far and the pathology counts. The steps draw from the stream in
    a fixed order (so does writing: a data file's rows are drawn when it is written), so one seed
    always writes the same bytes."""

    cfg: GeneratorConfig
    rng: np.random.Generator
    base: BaseEvents
    files: list[_File] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def last(self) -> int:
        return self.cfg.days - 1

    def later_day(self, src_day: Column, lo: int, hi: int) -> Column:
        return np.minimum(src_day + self.rng.integers(lo, hi + 1, len(src_day)), self.last)

    def new_ing(self, day: Column) -> Column:
        return self.base.start + day * DAY + self.rng.integers(0, INGEST_WINDOW, len(day))


def generate(config: GeneratorConfig, out_dir: Path) -> GenerationSummary:
    """Write the deliveries of ``config`` into ``out_dir``; return what was written."""
    t0 = time.perf_counter()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(config.seed)
    plan = _Plan(config, rng, BaseEvents(config, rng))
    n, n_refunds = plan.base.N, plan.base.n_refunds
    plan.counts = {
        k: 0
        for k in (
            "malformed_rows",
            "overlap_duplicate_rows",
            "out_of_order_rows",
            "rows_late_gt_72h",
            *(f"malformed_{r}" for r in REASONS),
        )
    }
    plan.counts |= {"base_events": n, "sales": n - n_refunds, "refunds": n_refunds}
    main_idx = _window_files(plan)
    bad_parts = _malformed_rows(plan)
    for d in range(config.days):

        def build_main(d: int = d) -> Rows:
            return merge_sorted(plan.base.rows(main_idx[d], rng), bad_parts[d])

        plan.files.append(_File(d, "main", 0, build_main))
    _later_copies(plan)
    _empty_files_and_redeliveries(plan)
    _name_files(plan.files, config.start_date)
    summary = _write_files(plan, out_dir)
    summary.elapsed_s = time.perf_counter() - t0
    return summary


def _window_files(plan: _Plan) -> list[Column]:
    """Window slicing per day: its head -> an overlap file (the day before's tail and its own
    head), a middle slice -> an out-of-order file 1-3 days later. Returns each day's main rows."""
    cfg, rng, base = plan.cfg, plan.rng, plan.base
    D, E = cfg.days, cfg.events_per_day
    h = round(cfg.overlap_rate * E) if D > 1 else 0
    o = round(cfg.out_of_order_rate * E) if D > 1 else 0
    if h + o + h > E:  # rates too large for the window: scale down
        s = E / (2 * h + o)
        h, o = int(h * s), int(o * s)
    main_idx: list[Column] = []
    ooo_start = rng.integers(h, max(h, E - h - o) + 1, D)
    ooo_lag = rng.integers(1, 4, D)
    for d in range(D):
        lo = d * E
        keep = np.ones(E, bool)
        if d >= 1 and h:
            keep[:h] = False
            head = np.arange(lo, lo + h)
            tail = np.arange(lo - h, lo)

            def build_overlap(tail: Column = tail, head: Column = head) -> Rows:
                return base.rows(np.concatenate([tail, head]), rng)

            plan.files.append(_File(d, "overlap", 0, build_overlap))
            plan.counts["overlap_duplicate_rows"] = plan.counts.get("overlap_duplicate_rows", 0) + h
        if d < plan.last and o:
            a = int(ooo_start[d])
            keep[a : a + o] = False
            sl = np.arange(lo + a, lo + a + o)

            def build_out_of_order(sl: Column = sl) -> Rows:
                return base.rows(sl, rng)

            plan.files.append(_File(min(d + int(ooo_lag[d]), plan.last), "outoforder", d, build_out_of_order))
            plan.counts["out_of_order_rows"] = plan.counts.get("out_of_order_rows", 0) + o
        main_idx.append(lo + np.flatnonzero(keep))
    return main_idx


def _malformed_rows(plan: _Plan) -> list[Rows | None]:
    """Malformed rows: fresh event ids, reasons round-robin; per day, the ones its main file mixes in."""
    cfg, rng, base = plan.cfg, plan.rng, plan.base
    N, D = base.N, cfg.days
    n_bad = round(cfg.malformed_rate * N)
    bad_parts: list[Rows | None] = [None] * D
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
            plan.counts[f"malformed_{name}"] = int((reason == code).sum())
        plan.counts["malformed_rows"] = n_bad
        for d, ix in enumerate(split_by_day(np.arange(n_bad), bday, D)):
            if len(ix):
                bad_parts[d] = take_rows(r, ix)
    return bad_parts


def _later_copies(plan: _Plan) -> None:
    """Re-sent rows, new versions and conflicting copies, delivered on later days: one file of
    each kind per day that has some."""
    cfg, rng, base = plan.cfg, plan.rng, plan.base
    eligible = base.day < plan.last  # these need a later delivery day

    # ---- re-sent rows: same payload, new ingested_at 1-3 days later
    rs = np.flatnonzero(eligible & (rng.random(base.N) < cfg.resent_rows_rate))
    rs_day = plan.later_day(base.day[rs], 1, 3)
    rs_rows = base.rows(rs, rng, ing=plan.new_ing(rs_day))
    plan.counts["resent_rows"] = len(rs)

    # ---- conflicts: same (event_id, version 1), different amount
    cf = np.flatnonzero(eligible & (rng.random(base.N) < cfg.conflict_rate))
    cf_day = plan.later_day(base.day[cf], 1, 2)
    cf_rows = base.rows(cf, rng, ing=plan.new_ing(cf_day), amount=base.amount[cf] + rng.integers(1, 1000, len(cf)))
    plan.counts["conflicting_copies"] = len(cf)

    vv, vv_day = _new_versions(plan, eligible)
    for kind, rows, rday in (("resend", rs_rows, rs_day), ("versions", vv, vv_day), ("conflict", cf_rows, cf_day)):
        for d, ix in enumerate(split_by_day(np.arange(len(rday)), rday, cfg.days)):
            if len(ix):
                part = sort_rows(take_rows(rows, ix))

                def build_part(part: Rows = part) -> Rows:
                    return part

                plan.files.append(_File(d, kind, 0, build_part))


def _new_versions(plan: _Plan, eligible: Column) -> tuple[Rows, Column]:
    """New versions (v2) 1-3 days later, some moved to another day, item or company; a tenth get
    a v3 a further 1-2 days later. Returns the rows and each one's delivery day."""
    cfg, rng, base = plan.cfg, plan.rng, plan.base
    nv = np.flatnonzero(eligible & (rng.random(base.N) < cfg.new_version_rate))
    nvn = len(nv)
    nv_day = plan.later_day(base.day[nv], 1, 3)
    nv_ing = plan.new_ing(nv_day)
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
    pick2 = rng.integers(0, base.N, nvn)
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
    plan.counts["new_versions_v2"] = nvn
    plan.counts["moves_day"] = int(mday.sum())
    plan.counts["moves_item"] = int(mitem.sum())
    plan.counts["moves_company"] = int(mco.sum())
    return _third_versions(plan, v2, nv_day)


def _third_versions(plan: _Plan, v2: Rows, nv_day: Column) -> tuple[Rows, Column]:
    """Version 3 for a tenth of the new versions, a further 1-2 days later; with the v2 rows."""
    rng = plan.rng
    v3sel = np.flatnonzero((nv_day < plan.last) & (rng.random(len(nv_day)) < 0.1))
    v3_day = plan.later_day(nv_day[v3sel], 1, 2)
    v3 = take_rows(v2, v3sel)
    v3["version"] = np.full(len(v3sel), 3, np.int64)
    v3["ing"] = plan.new_ing(v3_day)
    v3["ing_f"] = rng.integers(0, 2, len(v3sel), dtype=np.int8)
    v3["amount"] = v3["amount"] + np.where(v3["etype"] == 1, 0, 100)
    v3["amount"] = np.where(v3["etype"] == 1, v3["amount"] // 2, v3["amount"])
    plan.counts["new_versions_v3"] = len(v3sel)
    return concat_rows([v2, v3]), np.concatenate([nv_day, v3_day])


def _empty_files_and_redeliveries(plan: _Plan) -> None:
    """Empty and header-only files on random days; redeliveries: byte-identical copies of earlier
    data files, last on their day."""
    cfg, rng, files = plan.cfg, plan.rng, plan.files
    for i, d in enumerate(rng.integers(0, cfg.days, cfg.empty_files)):
        files.append(_File(int(d), "empty", i))
    for i, d in enumerate(rng.integers(0, cfg.days, cfg.header_only_files)):
        files.append(_File(int(d), "headeronly", i))
    data_files = sorted(
        (f for f in files if f.build is not None), key=lambda f: (f.day, KIND_ORDER.index(f.kind), f.sub)
    )
    n_red = 0
    if cfg.redelivered_file_rate > 0 and data_files:
        n_red = max(1, round(cfg.redelivered_file_rate * len(data_files)))
    srcs: Column | list[int] = rng.integers(0, len(data_files), n_red) if n_red else []
    for i, s in enumerate(srcs):
        sf = data_files[int(s)]
        d = min(sf.day + int(rng.integers(0, 3)), plan.last)
        files.append(_File(d, "redelivery", i, source=sf))


def _name_files(files: list[_File], start_date: dt.date) -> None:
    """Sort the files in delivery order and name each by its rank within its delivery day."""
    files.sort(key=lambda f: (f.day, KIND_ORDER.index(f.kind), f.sub))
    per_day: dict[int, int] = {}
    for f in files:
        f.nnn = per_day.get(f.day, 0)
        per_day[f.day] = f.nnn + 1
        date = start_date + dt.timedelta(days=f.day)
        f.name = f"{date.isoformat()}_{f.nnn:03d}_{f.kind}.csv"


def _write_files(plan: _Plan, out_dir: Path) -> GenerationSummary:
    """Write the files in delivery order (so a redelivery's source already exists), each with the
    modification time of its delivery; count what was written."""
    base, counts = plan.base, plan.counts
    summary = GenerationSummary(out_dir=str(out_dir))
    select_sql = contract_select_sql(plan.cfg.companies)
    con = duckdb.connect()
    try:
        for f in plan.files:
            path = out_dir / f.name
            if f.kind == "empty":
                path.write_bytes(b"")
            elif f.kind == "headeronly":
                path.write_bytes(HEADER_LINE.encode())
            elif f.source is not None:  # a redelivery
                shutil.copyfile(out_dir / f.source.name, path)
                f.rows, f.late_rows = f.source.rows, f.source.late_rows
            elif f.build is not None:
                rows = f.build()
                f.build = None
                f.rows = row_count(rows)
                okt = (rows["bad"] != 8) & (rows["bad"] != 9)
                f.late_rows = int(((rows["ing"] - rows["et"] > WATERMARK_S) & okt).sum())
                write_csv(con, rows, path, select_sql)
                del rows
            mtime = base.start + f.day * DAY + INGEST_WINDOW + 30 * f.nnn
            os.utime(path, (mtime, mtime))
            summary.files.append(f.name)
            summary.files_by_kind[f.kind] = summary.files_by_kind.get(f.kind, 0) + 1
            summary.rows_by_kind[f.kind] = summary.rows_by_kind.get(f.kind, 0) + f.rows
            summary.rows_written += f.rows
            summary.bytes_written += path.stat().st_size
            counts["rows_late_gt_72h"] = counts.get("rows_late_gt_72h", 0) + f.late_rows
    finally:
        con.close()
    summary.files_written = len(plan.files)
    counts["base_events_late_gt_72h"] = int(base.late.sum())
    counts["base_events_late_gt_10d"] = int((base.ing - base.et > 10 * DAY).sum())
    counts["redelivered_rows"] = summary.rows_by_kind.get("redelivery", 0)
    summary.pathologies = dict(sorted(counts.items()))
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
