"""Independent reference implementation (oracle) of the rerun_safe contract.

Written from docs/contract.md and docs/semantics.md only, in plain Python +
pandas, for clarity rather than speed. The dbt models are checked against it.

Representation choices (see the module's report / docstrings):
- timestamps are naive ``pd.Timestamp`` values meaning UTC;
- ``revenue_date`` is a ``datetime.date``;
- money columns are int64, never float;
- a blank ``order_id`` is typed as null (None), like a padded missing field.
"""

from __future__ import annotations

import csv
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pandas as pd
from pandas._libs.tslibs.nattype import NaTType

CONTRACT_COLUMNS = [
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

# Validation order: the first reason that applies wins (docs/semantics.md).
REASONS = [
    "malformed_row",
    "missing_event_id",
    "missing_company_id",
    "missing_order_item_id",
    "invalid_key",
    "unknown_event_type",
    "invalid_amount",
    "negative_amount",
    "amount_out_of_range",
    "invalid_currency",
    "unknown_currency",
    "invalid_event_time",
    "invalid_ingested_at",
    "ingested_in_future",
    "event_time_after_ingestion",
    "invalid_version",
    "conflicting_version",
]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

_INT_RE = re.compile(r"-?[0-9]+")
# Characters a key may not hold: controls, the ASCII space, Unicode blanks and format characters.
_UNSAFE_KEY_RE = re.compile("[\x00-\x20\x7f-\xa0\u1680\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000\ufeff]")
MAX_AMOUNT_CENTS = 10**12  # var max_amount_cents
MAX_EVENT_TIME_AHEAD_HOURS = 24  # var max_event_time_ahead_hours
MAX_INGESTED_AHEAD_HOURS = 24  # var max_ingested_ahead_hours
_CURRENCY_RE = re.compile(r"[A-Z]{3}")
# The active ISO 4217 currencies (read from the seed the models join, so a code added there is
# known to both).
_SEED_CURRENCIES = Path(__file__).resolve().parents[2] / "seeds" / "currencies.csv"
KNOWN_CURRENCIES = frozenset(line.split(",", 1)[0] for line in _SEED_CURRENCIES.read_text().splitlines()[1:])
_TS_T_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})Z")
_TS_SPACE_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})")


# --------------------------------------------------------------------------- API types


@dataclass
class Correction:
    correct_from: date
    correct_to: date
    mark: pd.Timestamp | NaTType  # greatest valid ingested_at landed when the correction was recorded


@dataclass
class OracleResult:
    fct_order_items: pd.DataFrame
    fct_daily_revenue: pd.DataFrame
    quarantine_counts: dict
    late_waiting: int
    late_applied: int
    balance: dict
    # Extras for row-level comparison (not required by the brief):
    quarantined_events: pd.DataFrame = field(default_factory=pd.DataFrame)  # source_file, source_line, event_id, reason
    late_events: pd.DataFrame = field(default_factory=pd.DataFrame)  # one row per late copy, with status
    contributing_events: pd.DataFrame = field(default_factory=pd.DataFrame)  # current copies that contribute
    # one row per copy: identity (event_id, version, the earliest row's file and line), status, rows, first run
    copies: pd.DataFrame = field(default_factory=pd.DataFrame)


# --------------------------------------------------------------------------- reading


def read_landing(landing: Path) -> pd.DataFrame:
    """Read every delivery directly in ``landing`` (``*.csv`` in any case, not hidden, not a
    symlink; sorted by name) as text, columns matched by the header's names.

    Columns: the contract columns (str, or None when a record has fewer fields than the
    header or the header lacks the column), ``source_file`` (file name), ``source_line``
    (data record i -> line i + 1; the header is line 1) and ``malformed`` (True when the
    record has more fields than the header). Empty and header-only files give no rows.
    Completely blank lines are not records and are skipped (they do not count).
    """
    out = []
    for path in sorted(Path(landing).iterdir()):
        if (
            not path.name.lower().endswith(".csv")
            or path.name.startswith(".")
            or path.is_symlink()
            or not path.is_file()
        ):
            continue
        with open(path, newline="", encoding="utf-8-sig") as f:
            records = [r for r in csv.reader(f, delimiter=",", quotechar='"', doublequote=True) if r != []]
        if not records:
            continue  # 0-byte file
        header = [h.strip() for h in records[0]]
        for ordinal, fields in enumerate(records[1:], start=1):
            row: dict[str, object] = {}
            for col in CONTRACT_COLUMNS:
                if col in header and header.index(col) < len(fields):
                    row[col] = fields[header.index(col)]
                else:
                    row[col] = None
            row["source_file"] = path.name
            row["source_line"] = ordinal + 1
            row["malformed"] = len(fields) > len(header)
            out.append(row)
    df = pd.DataFrame(out, columns=[*CONTRACT_COLUMNS, "source_file", "source_line", "malformed"])
    df["source_line"] = df["source_line"].astype("int64")
    df["malformed"] = df["malformed"].astype(bool)
    return df


# --------------------------------------------------------------------------- typing


def _clean(value) -> str | None:
    """Trim surrounding whitespace; None/NaN stay None."""
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return str(value).strip()


def _is_blank(value: str | None) -> bool:
    return value is None or value == ""


def _parse_int(value: str | None) -> int | None:
    """ASCII digits with an optional leading '-', within int64; else None."""
    if value is None or not _INT_RE.fullmatch(value):
        return None
    n = int(value)
    if n < INT64_MIN or n > INT64_MAX:
        return None
    return n


def parse_timestamp(value: str | None) -> datetime | None:
    """``YYYY-MM-DDTHH:MM:SSZ`` or ``YYYY-MM-DD HH:MM:SS`` (UTC), a real instant; else None."""
    if value is None:
        return None
    m = _TS_T_RE.fullmatch(value) or _TS_SPACE_RE.fullmatch(value)
    if not m:
        return None
    try:
        year, month, day, hour, minute, second = (int(g) for g in m.groups())
        return datetime(year, month, day, hour, minute, second)  # rejects month 13, Feb 30, hour 24, ...
    except ValueError:
        return None


def clock_for(raw: dict, now=None) -> datetime:
    """ "Now" for one row: the clock of the run that first saw its delivery (docs/semantics.md,
    "The clock"). ``now`` is that instant (naive UTC), or a mapping of source_file to it (each
    delivery's first run), or None for the machine's clock (a run seeing the delivery now)."""
    if isinstance(now, dict):
        now = now.get(raw.get("source_file"))
    if now is None:
        return datetime.now(UTC).replace(tzinfo=None, microsecond=0)
    return _to_naive_utc(now)


def validate(raw: dict, now=None):
    """Return (reason, typed) for one landed row; reason None means valid. ``now``: see clock_for."""
    malformed = raw.get("malformed", False)
    if malformed is not None and not pd.isna(malformed) and bool(malformed):
        return "malformed_row", None
    v = {c: _clean(raw.get(c)) for c in CONTRACT_COLUMNS}
    if _is_blank(v["event_id"]):
        return "missing_event_id", None
    if _is_blank(v["company_id"]):
        return "missing_company_id", None
    if _is_blank(v["order_item_id"]):
        return "missing_order_item_id", None
    if any(
        (value := v[k]) is not None and _UNSAFE_KEY_RE.search(value)
        for k in ("event_id", "company_id", "order_id", "order_item_id")
    ):
        return "invalid_key", None
    if v["event_type"] not in ("sale", "refund"):
        return "unknown_event_type", None
    amount = _parse_int(v["amount_cents"])
    if amount is None:
        return "invalid_amount", None
    if amount < 0:
        return "negative_amount", None
    if amount > MAX_AMOUNT_CENTS:
        return "amount_out_of_range", None
    if v["currency"] is None or not _CURRENCY_RE.fullmatch(v["currency"]):
        return "invalid_currency", None
    if v["currency"] not in KNOWN_CURRENCIES:
        return "unknown_currency", None
    event_time = parse_timestamp(v["event_time"])
    if event_time is None:
        return "invalid_event_time", None
    ingested_at = parse_timestamp(v["ingested_at"])
    if ingested_at is None:
        return "invalid_ingested_at", None
    if (ingested_at - clock_for(raw, now)).total_seconds() > MAX_INGESTED_AHEAD_HOURS * 3600:
        return "ingested_in_future", None
    if (event_time - ingested_at).total_seconds() > MAX_EVENT_TIME_AHEAD_HOURS * 3600:
        return "event_time_after_ingestion", None
    version = _parse_int(v["version"])
    if version is None or version < 1:
        return "invalid_version", None
    typed = {
        "event_id": v["event_id"],
        "event_type": v["event_type"],
        "company_id": v["company_id"],
        "order_id": None if _is_blank(v["order_id"]) else v["order_id"],
        "order_item_id": v["order_item_id"],
        "amount_cents": amount,
        "currency": v["currency"],
        "event_time": event_time,
        "ingested_at": ingested_at,
        "version": version,
    }
    return None, typed


def _to_naive_utc(ts) -> datetime:
    ts = pd.Timestamp(ts)
    if ts.tzinfo is not None:
        ts = ts.tz_convert("UTC").tz_localize(None)
    return ts.to_pydatetime()


def _to_date(d) -> date:
    if isinstance(d, datetime):
        return d.date()
    if isinstance(d, date):
        return d
    return pd.Timestamp(d).date()


def _records(rows: pd.DataFrame) -> list:
    recs = rows.to_dict("records")
    for i, r in enumerate(recs):
        r.setdefault("source_file", None)
        r.setdefault("source_line", i + 2)
        r.setdefault("malformed", False)
    return recs


def mark_now(rows: pd.DataFrame, now=None) -> pd.Timestamp | NaTType:
    """Greatest ingested_at among valid rows (what the pipeline records as a correction mark)."""
    marks = []
    for raw in _records(rows):
        reason, typed = validate(raw, now)
        if reason is None:
            marks.append(typed["ingested_at"])
    return pd.Timestamp(max(marks)) if marks else pd.NaT


# --------------------------------------------------------------------------- the oracle

# every contract column but ingested_at, typed, identity first
PAYLOAD_KEY = ["event_id", "version", *(c for c in CONTRACT_COLUMNS if c not in ("event_id", "version", "ingested_at"))]

ORDER_ITEMS_COLUMNS = [
    "company_id",
    "order_item_id",
    "order_id",
    "currency",
    "gross_cents",
    "refunded_cents",
    "net_cents",
    "event_count",
    "first_event_time",
    "last_event_time",
]
DAILY_COLUMNS = [
    "company_id",
    "revenue_date",
    "currency",
    "gross_cents",
    "refunded_cents",
    "net_cents",
    "event_count",
]
MONEY = ["gross_cents", "refunded_cents", "net_cents", "event_count"]


def run_oracle(
    rows: pd.DataFrame,
    allowed_lateness_hours: int = 72,
    corrections: Iterable[Correction] = (),
    now=None,
    run_of_file: Mapping[str, int] | None = None,
) -> OracleResult:
    """``now``: the clock each delivery's first run had (see clock_for). ``run_of_file``: the run
    that first saw each delivery (source_file -> run number); a copy's ``first_seen_run`` is the
    first run that saw any of its rows (None without the mapping)."""
    ranges = [
        (_to_date(c.correct_from), _to_date(c.correct_to), _to_naive_utc(c.mark))
        for c in corrections
        if c.mark is not None and not pd.isna(c.mark)
    ]
    allowed = timedelta(hours=int(allowed_lateness_hours))
    recs = _records(rows)

    # 1. validation
    quarantined = []  # dicts: source_file, source_line, event_id, reason
    valid = []  # (typed, raw)
    for raw in recs:
        reason, typed = validate(raw, now)
        if reason is None:
            valid.append((typed, raw))
        else:
            quarantined.append(
                {
                    "source_file": raw["source_file"],
                    "source_line": raw["source_line"],
                    "event_id": _clean(raw.get("event_id")),
                    "reason": reason,
                }
            )
    n_invalid = len(quarantined)

    # 2. copies: valid rows with the same (event_id, version, typed payload)
    copies = defaultdict(list)
    for typed, raw in valid:
        copies[tuple(typed[c] for c in PAYLOAD_KEY)].append((typed, raw))
    copy_list = []
    for key, members in copies.items():
        first = dict(zip(PAYLOAD_KEY, key, strict=True))
        first["ingested_at"] = min(t["ingested_at"] for t, _ in members)  # earliest arrival
        first["rows"] = members
        # the copy stands for its earliest row: earliest ingested_at, then file, then line
        earliest = min(members, key=lambda m: (m[0]["ingested_at"], m[1]["source_file"], m[1]["source_line"]))[1]
        first["source_file"], first["source_line"] = earliest["source_file"], earliest["source_line"]
        first["first_seen_run"] = (
            min(run_of_file[raw["source_file"]] for _, raw in members) if run_of_file is not None else None
        )
        first["revenue_date"] = first["event_time"].date()
        first["lateness"] = first["ingested_at"] - first["event_time"]
        first["late"] = first["lateness"] > allowed  # strictly greater
        first["covered"] = any(
            f <= first["revenue_date"] <= t and first["ingested_at"] <= mark for f, t, mark in ranges
        )
        first["applicable"] = (not first["late"]) or first["covered"]
        copy_list.append(first)
    n_duplicates = sum(len(c["rows"]) - 1 for c in copy_list)

    # 3. late copies
    late_copies = [c for c in copy_list if c["late"]]
    late_waiting = sum(1 for c in late_copies if not c["applicable"])
    late_applied = sum(1 for c in late_copies if c["applicable"])

    # 4. versions among applicable copies
    by_version = defaultdict(list)  # (event_id, version) -> applicable copies
    for c in copy_list:
        if c["applicable"]:
            by_version[(c["event_id"], c["version"])].append(c)
    conflicting_versions = {k for k, cs in by_version.items() if len(cs) > 1}
    current_version: dict[str, object] = {}
    for event_id, version in by_version:
        current_version[event_id] = max(version, current_version.get(event_id, version))

    n_conflicting = n_superseded = 0
    contributing = []
    for c in copy_list:
        c["status"] = "late_waiting"  # not applicable; the applicable ones are set below
    for (event_id, version), cs in by_version.items():
        if (event_id, version) in conflicting_versions:
            n_conflicting += len(cs)
            for c in cs:
                c["status"] = "conflicting"
                for _, raw in c["rows"]:  # every row of a conflicting copy is quarantined
                    quarantined.append(
                        {
                            "source_file": raw["source_file"],
                            "source_line": raw["source_line"],
                            "event_id": event_id,
                            "reason": "conflicting_version",
                        }
                    )
        elif version < current_version[event_id]:
            n_superseded += len(cs)
            for c in cs:
                c["status"] = "superseded"
        else:
            cs[0]["status"] = "current"
            contributing.append(cs[0])

    balance = {
        "landed": len(recs),
        "invalid": n_invalid,
        "duplicates": n_duplicates,
        "conflicting": n_conflicting,
        "late_waiting": late_waiting,
        "superseded": n_superseded,
        "current": len(contributing),
    }

    quarantine_counts: defaultdict[str, int] = defaultdict(int)
    for q in quarantined:
        quarantine_counts[q["reason"]] += 1

    return OracleResult(
        fct_order_items=_order_items(contributing),
        fct_daily_revenue=_daily_revenue(contributing),
        quarantine_counts=dict(quarantine_counts),
        late_waiting=late_waiting,
        late_applied=late_applied,
        balance=balance,
        quarantined_events=pd.DataFrame(quarantined, columns=["source_file", "source_line", "event_id", "reason"]),
        late_events=pd.DataFrame(
            [
                {
                    "event_id": c["event_id"],
                    "version": c["version"],
                    "event_time": pd.Timestamp(c["event_time"]),
                    "ingested_at": pd.Timestamp(c["ingested_at"]),
                    "revenue_date": c["revenue_date"],
                    "lateness": pd.Timedelta(c["lateness"]),
                    "status": "applied" if c["applicable"] else "waiting",
                    "first_seen_run": c["first_seen_run"],
                }
                for c in late_copies
            ],
            columns=[
                "event_id",
                "version",
                "event_time",
                "ingested_at",
                "revenue_date",
                "lateness",
                "status",
                "first_seen_run",
            ],
        ),
        contributing_events=pd.DataFrame(
            [{k: c[k] for k in [*PAYLOAD_KEY, "ingested_at", "revenue_date"]} for c in contributing],
            columns=[*PAYLOAD_KEY, "ingested_at", "revenue_date"],
        ),
        copies=pd.DataFrame(
            [
                {
                    "copy": tuple(c[k] for k in PAYLOAD_KEY),
                    "event_id": c["event_id"],
                    "version": c["version"],
                    "source_file": c["source_file"],
                    "source_line": int(c["source_line"]),
                    "ingested_at": pd.Timestamp(c["ingested_at"]),
                    "status": c["status"],
                    "is_late": c["late"],
                    "row_count": len(c["rows"]),
                    "first_seen_run": c["first_seen_run"],
                }
                for c in copy_list
            ],
            columns=[
                "copy",
                "event_id",
                "version",
                "source_file",
                "source_line",
                "ingested_at",
                "status",
                "is_late",
                "row_count",
                "first_seen_run",
            ],
        ),
    )


def _amounts(event) -> tuple:
    """(gross, refunded) of one contributing event."""
    if event["event_type"] == "sale":
        return event["amount_cents"], 0
    return 0, event["amount_cents"]


def _order_items(events: list) -> pd.DataFrame:
    groups = defaultdict(list)
    for e in events:
        groups[(e["company_id"], e["order_item_id"])].append(e)
    out = []
    for (company_id, order_item_id), es in groups.items():
        latest = max(es, key=lambda e: (e["event_time"], e["event_id"]))
        gross = sum(_amounts(e)[0] for e in es)
        refunded = sum(_amounts(e)[1] for e in es)
        out.append(
            {
                "company_id": company_id,
                "order_item_id": order_item_id,
                "order_id": latest["order_id"],
                "currency": latest["currency"],
                "gross_cents": gross,
                "refunded_cents": refunded,
                "net_cents": gross - refunded,
                "event_count": len(es),
                "first_event_time": pd.Timestamp(min(e["event_time"] for e in es)),
                "last_event_time": pd.Timestamp(max(e["event_time"] for e in es)),
            }
        )
    df = pd.DataFrame(out, columns=ORDER_ITEMS_COLUMNS)
    df = df.astype({c: "int64" for c in MONEY})
    df["first_event_time"] = pd.to_datetime(df["first_event_time"])
    df["last_event_time"] = pd.to_datetime(df["last_event_time"])
    return df.sort_values(["company_id", "order_item_id"]).reset_index(drop=True)


def _daily_revenue(events: list) -> pd.DataFrame:
    groups = defaultdict(list)
    for e in events:
        groups[(e["company_id"], e["revenue_date"], e["currency"])].append(e)
    out = []
    for (company_id, revenue_date, currency), es in groups.items():
        gross = sum(_amounts(e)[0] for e in es)
        refunded = sum(_amounts(e)[1] for e in es)
        out.append(
            {
                "company_id": company_id,
                "revenue_date": revenue_date,
                "currency": currency,
                "gross_cents": gross,
                "refunded_cents": refunded,
                "net_cents": gross - refunded,
                "event_count": len(es),
            }
        )
    df = pd.DataFrame(out, columns=DAILY_COLUMNS)
    df = df.astype({c: "int64" for c in MONEY})
    return df.sort_values(["company_id", "revenue_date", "currency"]).reset_index(drop=True)
