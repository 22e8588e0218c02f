"""Tests of pipeline_demo/generate.py: properties computed from the written files."""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import os
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from pipeline_demo import generate as g

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
PAYLOAD = [c for c in HEADER if c != "ingested_at"]
NAME_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})_(\d{3})_([a-z]+)\.csv$")
TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z| \d{2}:\d{2}:\d{2})$")
INT_RE = re.compile(r"^-?\d+$")
CUR_RE = re.compile(r"^[A-Z]{3}$")

CFG = g.GeneratorConfig(seed=11, days=6, events_per_day=2000)


def parse_ts(text: str | None) -> dt.datetime | None:
    s = (text or "").strip()
    if not TS_RE.match(s):
        return None
    try:
        return dt.datetime.strptime(s.rstrip("Z").replace("T", " "), "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None


def ts(text: str) -> dt.datetime:
    """The time of a valid row's timestamp text (the test fails on any other)."""
    parsed = parse_ts(text)
    assert parsed is not None, text
    return parsed


def name_parts(name: str) -> re.Match[str]:
    """A delivery name's day, rank and kind (the test fails on any other name)."""
    found = NAME_RE.match(name)
    assert found is not None, name
    return found


def reason(row: dict) -> str | None:
    """First failing check of docs/semantics.md (None: the row is valid)."""
    v = {k: (row[k] or "").strip() for k in HEADER}
    if not v["event_id"]:
        return "missing_event_id"
    if not v["company_id"]:
        return "missing_company_id"
    if not v["order_item_id"]:
        return "missing_order_item_id"
    if v["event_type"] not in ("sale", "refund"):
        return "unknown_event_type"
    if not INT_RE.match(v["amount_cents"]):
        return "invalid_amount"
    if int(v["amount_cents"]) < 0:
        return "negative_amount"
    if not CUR_RE.match(v["currency"]) or not v["currency"].isascii():
        return "invalid_currency"
    if parse_ts(v["event_time"]) is None:
        return "invalid_event_time"
    if parse_ts(v["ingested_at"]) is None:
        return "invalid_ingested_at"
    if not INT_RE.match(v["version"]) or int(v["version"]) < 1:
        return "invalid_version"
    return None


def read_dir(path: Path) -> list[tuple[str, str, list[dict]]]:
    """[(name, raw text, rows)] in name order; rows carry their file's name and kind."""
    out = []
    for p in sorted(path.glob("*.csv")):
        raw = p.read_bytes().decode("utf-8")
        rows = []
        if raw:
            recs = list(csv.reader(io.StringIO(raw, newline=""), delimiter=",", quotechar='"'))
            assert recs[0] == HEADER, p.name
            for rec in recs[1:]:
                assert len(rec) == 10, (p.name, rec)
                d = dict(zip(HEADER, rec, strict=True))
                d["_file"] = p.name
                d["_kind"] = name_parts(p.name).group(3)
                rows.append(d)
        out.append((p.name, raw, rows))
    return out


@pytest.fixture(scope="module")
def landing(tmp_path_factory):
    out = tmp_path_factory.mktemp("landing")
    summary = g.generate(CFG, out)
    files = read_dir(out)
    rows = [r for _, _, rs in files for r in rs]
    valid = [r for r in rows if reason(r) is None]
    return out, summary, files, rows, valid


def payload(r: dict) -> tuple:
    return tuple(r[c] for c in PAYLOAD)


def lateness_s(r: dict) -> float:
    return (ts(r["ingested_at"]) - ts(r["event_time"])).total_seconds()


# ----------------------------------------------------------------------------- format


def test_every_file_parses_with_header_and_ten_columns(landing):
    _out, summary, files, rows, _ = landing
    assert len(files) == summary.files_written == len(summary.files)
    assert [n for n, _, _ in files] == sorted(summary.files)
    for name, raw, _ in files:
        assert NAME_RE.match(name), name
        if raw:
            assert raw.startswith(",".join(HEADER) + "\n")
            assert raw.endswith("\n") and "\r" not in raw
    assert len(rows) == summary.rows_written
    assert Counter(r["_kind"] for r in rows) == Counter({k: v for k, v in summary.rows_by_kind.items() if v})
    # quoting is exercised: some field needs RFC 4180 quotes and survives the round trip
    assert any("," in r["amount_cents"] or "," in r["event_type"] for r in rows)


def test_ids_currencies_and_both_timestamp_forms(landing):
    _, _, _, _, valid = landing
    assert all(re.fullmatch(r"evt_\d{9}", r["event_id"]) for r in valid)
    assert all(re.fullmatch(r"co_\d{2}", r["company_id"]) for r in valid)
    assert all(re.fullmatch(r"ord_\d{7,}", r["order_id"]) for r in valid)
    assert all(re.fullmatch(r"item_\d{7,}_\d+", r["order_item_id"]) for r in valid)
    assert all(r["order_item_id"].startswith("item_" + r["order_id"][4:] + "_") for r in valid)
    assert {r["currency"] for r in valid} <= {"EUR", "USD", "GBP"}
    per_company = defaultdict(set)
    for r in valid:
        per_company[r["company_id"]].add(r["currency"])
    assert len(per_company) == CFG.companies
    assert all(len(c) == 1 for c in per_company.values()), per_company
    for col in ("event_time", "ingested_at"):
        forms = Counter("T" if r[col].endswith("Z") else " " for r in valid)
        assert forms["T"] > 0.3 * len(valid) and forms[" "] > 0.3 * len(valid), (col, forms)


# ----------------------------------------------------------------------------- determinism


def _snapshot(path: Path) -> dict:
    return {p.name: (p.read_bytes(), p.stat().st_mtime) for p in sorted(path.glob("*.csv"))}


def test_same_seed_gives_identical_bytes_names_and_mtimes(tmp_path):
    cfg = g.GeneratorConfig(seed=3, days=4, events_per_day=400)
    s1 = g.generate(cfg, tmp_path / "a")
    s2 = g.generate(g.GeneratorConfig(seed=3, days=4, events_per_day=400), tmp_path / "b")
    a, b = _snapshot(tmp_path / "a"), _snapshot(tmp_path / "b")
    assert a == b
    assert s1.files == s2.files and s1.pathologies == s2.pathologies
    g.generate(g.GeneratorConfig(seed=4, days=4, events_per_day=400), tmp_path / "c")
    c = _snapshot(tmp_path / "c")
    assert a["2026-11-01_000_main.csv"][0] != c["2026-11-01_000_main.csv"][0]


# ----------------------------------------------------------------------------- pathologies


def test_every_reason_code_appears(landing):
    _, summary, _, rows, valid = landing
    counts = Counter(reason(r) for r in rows)
    first_copies = Counter(reason(r) for r in rows if r["_kind"] != "redelivery")
    for name in g.REASONS:
        assert counts[name] >= 5, (name, counts)
        assert first_copies[name] == summary.pathologies[f"malformed_{name}"], name
    assert "malformed_row" not in counts and "conflicting_version" not in counts
    assert len(valid) > 0.95 * len(rows)
    # variety: several distinct bad texts for the multi-variant reasons
    bad_amounts = {r["amount_cents"] for r in rows if reason(r) == "invalid_amount"}
    assert len(bad_amounts) >= 3
    bad_versions = {r["version"] for r in rows if reason(r) == "invalid_version"}
    assert len(bad_versions) >= 3


def test_redelivered_files_are_byte_identical_to_an_earlier_file(landing):
    _, _, files, _, _ = landing
    redeliveries = [(n, raw) for n, raw, _ in files if n.endswith("_redelivery.csv")]
    assert redeliveries
    assert any(raw for _, raw in redeliveries)
    for name, raw in redeliveries:
        earlier = [n for n, r, _ in files if n < name and not n.endswith("_redelivery.csv") and r == raw]
        assert earlier, f"{name} is not a copy of an earlier file"


def test_copies_of_an_event_version_keep_their_payload(landing):
    _, summary, _, _, valid = landing
    groups = defaultdict(set)
    for r in valid:
        groups[(r["event_id"], r["version"])].add(payload(r))
    # re-sent rows: same payload as the original, a different (later) ingested_at
    originals: dict[str, dict] = {}
    for r in valid:
        if r["_kind"] in ("main", "overlap", "outoforder") and r["version"] == "1":
            originals.setdefault(r["event_id"], r)
    resent = [r for r in valid if r["_kind"] == "resend"]
    assert len(resent) >= 0.01 * summary.pathologies["base_events"]
    for r in resent:
        o = originals[r["event_id"]]
        assert payload(o) == payload(r)
        assert ts(r["ingested_at"]) > ts(o["ingested_at"])
    # overlapping files share rows
    by_file = defaultdict(set)
    for r in valid:
        by_file[r["_file"]].add(tuple(r[c] for c in HEADER))
    overlaps = [n for n in by_file if n.endswith("_overlap.csv")]
    assert overlaps
    for n in overlaps:
        shared = [m for m in by_file if m < n and by_file[m] & by_file[n] and not m.endswith("_redelivery.csv")]
        assert shared, n
    # only conflict files introduce a second payload for one (event_id, version)
    conflicting = {k for k, v in groups.items() if len(v) > 1}
    conflict_keys = {(r["event_id"], r["version"]) for r in valid if r["_kind"] == "conflict"}
    assert conflicting <= conflict_keys


def test_conflicting_copies_exist(landing):
    _, _, _, _, valid = landing
    groups = defaultdict(set)
    for r in valid:
        groups[(r["event_id"], r["version"])].add(payload(r))
    conflicts = [k for k, v in groups.items() if len(v) > 1]
    assert len(conflicts) >= 10
    for k in conflicts[:20]:
        a, b = sorted(groups[k])[:2]
        diff = [c for c, x, y in zip(PAYLOAD, a, b, strict=True) if x != y]
        assert diff == ["amount_cents"], (k, diff)


def test_new_versions_change_amount_and_some_move(landing):
    _, _, _, _, valid = landing
    by_ver: defaultdict[str, dict] = defaultdict(dict)
    for r in valid:
        if r["_kind"] != "conflict":  # keep the earliest copy of each version
            cur = by_ver[r["event_id"]].get(int(r["version"]))
            if cur is None or ts(r["ingested_at"]) < ts(cur["ingested_at"]):
                by_ver[r["event_id"]][int(r["version"])] = r
    pairs = [(v[1], v[2]) for v in by_ver.values() if 1 in v and 2 in v]
    assert len(pairs) >= 0.03 * CFG.days * CFG.events_per_day
    assert any(3 in v for v in by_ver.values())
    assert all(a["amount_cents"] != b["amount_cents"] for a, b in pairs)
    for a, b in pairs:  # a new version lands after the one it corrects
        assert ts(b["ingested_at"]) > ts(a["ingested_at"])
    day_moves = [p for p in pairs if abs((ts(p[1]["event_time"]) - ts(p[0]["event_time"])).total_seconds()) >= 86400]
    item_moves = [
        p for p in pairs if p[0]["order_item_id"] != p[1]["order_item_id"] and p[0]["company_id"] == p[1]["company_id"]
    ]
    company_moves = [p for p in pairs if p[0]["company_id"] != p[1]["company_id"]]
    assert len(day_moves) >= 5 and len(item_moves) >= 5 and len(company_moves) >= 1
    assert all(
        p[0]["currency"] != p[1]["currency"] or (int(p[0]["company_id"][3:]) - int(p[1]["company_id"][3:])) % 3 == 0
        for p in company_moves
    )
    moved = {id(p) for p in day_moves + item_moves + company_moves}
    share = len(moved) / len(pairs)
    assert 0.15 < share < 0.45, share


def test_lateness_is_heavy_tailed(landing):
    _, _summary, _, _rows, valid = landing
    base = [r for r in valid if r["_kind"] in ("main", "outoforder") and r["version"] == "1"]
    lat = sorted(lateness_s(r) for r in base)
    n = len(lat)
    assert min(lat) >= 0
    assert lat[n // 2] < 12 * 3600  # median of a few hours
    beyond = sum(1 for x in lat if x > 72 * 3600)
    assert 0.02 * n < beyond < 0.10 * n, beyond / n
    assert sum(1 for x in lat if x > 10 * 86400) >= 5
    # rows on the watermark (lateness exactly 72 h) exist and are on time
    assert sum(1 for x in lat if x == 72 * 3600) >= 1


def test_refunds_follow_a_sale_of_the_same_item(landing):
    _, _, _, _, valid = landing
    v1 = [r for r in valid if r["version"] == "1" and r["_kind"] in ("main", "overlap", "outoforder")]
    sales = defaultdict(list)
    for r in v1:
        if r["event_type"] == "sale":
            sales[(r["company_id"], r["order_item_id"])].append(r)
    refunds = {r["event_id"]: r for r in v1 if r["event_type"] == "refund"}
    assert 0.05 * len(v1) < len(refunds) < 0.15 * len(v1)
    for r in refunds.values():
        ok = [
            s
            for s in sales[(r["company_id"], r["order_item_id"])]
            if int(s["amount_cents"]) >= int(r["amount_cents"])
            and ts(s["event_time"]) < ts(r["event_time"])
            and s["event_id"] < r["event_id"]
        ]
        assert ok, r


def test_empty_and_header_only_files(landing):
    _, _, files, _, _ = landing
    empty = [n for n, raw, _ in files if raw == ""]
    header_only = [n for n, raw, _ in files if raw == ",".join(HEADER) + "\n"]
    assert len(empty) == CFG.empty_files and all("_empty" in n for n in empty)
    assert len(header_only) == CFG.header_only_files
    assert all("_headeronly" in n for n in header_only)


def test_names_sort_in_delivery_order(landing):
    out, _, files, _, valid = landing
    names = [n for n, _, _ in files]
    mtimes = [os.stat(out / n).st_mtime for n in names]
    assert mtimes == sorted(mtimes) and len(set(mtimes)) == len(mtimes)
    per_day = defaultdict(list)
    for n, m in zip(names, mtimes, strict=True):
        date, nnn, _ = name_parts(n).groups()
        stamp = dt.datetime.fromtimestamp(m, dt.UTC)
        assert stamp.date().isoformat() == date
        per_day[date].append(int(nnn))
    assert all(v == list(range(len(v))) for v in per_day.values())
    kinds = {name_parts(n).group(3) for n in names}
    assert {
        "main",
        "overlap",
        "outoforder",
        "resend",
        "versions",
        "conflict",
        "redelivery",
        "empty",
        "headeronly",
    } <= kinds
    mtime_of = dict(zip(names, mtimes, strict=True))
    for r in valid:
        ing = ts(r["ingested_at"]).replace(tzinfo=dt.UTC)
        delivered = dt.datetime.fromtimestamp(mtime_of[r["_file"]], dt.UTC)
        assert ing <= delivered, r
        lag = (delivered.date() - ing.date()).days
        if r["_kind"] in ("main", "resend", "versions", "conflict"):
            assert lag == 0, r
        elif r["_kind"] == "outoforder":
            assert lag >= 1, r
        elif r["_kind"] == "overlap":
            assert lag in (0, 1), r


def test_summary_counts_match_files(landing):
    _, summary, files, rows, valid = landing
    assert summary.bytes_written == sum(len(raw.encode()) for _, raw, _ in files)
    p = summary.pathologies
    assert p["malformed_rows"] == sum(p[f"malformed_{n}"] for n in g.REASONS)
    assert p["rows_late_gt_72h"] == sum(1 for r in valid if lateness_s(r) > 72 * 3600) + sum(
        1
        for r in rows
        if reason(r)
        in (
            "missing_event_id",
            "missing_company_id",
            "missing_order_item_id",
            "unknown_event_type",
            "invalid_amount",
            "negative_amount",
            "invalid_currency",
            "invalid_version",
        )
        and lateness_s(r) > 72 * 3600
    )


# ----------------------------------------------------------------------------- CLI


def test_cli_arguments_and_run(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    g.add_arguments(parser)
    out = tmp_path / "landing"
    out.mkdir()
    (out / "stale.csv").write_text("old\n")
    (out / "keep.txt").write_text("not a csv\n")
    args = parser.parse_args(
        [
            "--out",
            str(out),
            "--seed",
            "5",
            "--days",
            "3",
            "--events-per-day",
            "200",
            "--companies",
            "3",
            "--start-date",
            "2026-12-01",
            "--new-version-rate",
            "0.2",
            "--redelivered-file-rate",
            "0",
            "--clean",
        ]
    )
    for name in g.RATE_FIELDS:
        assert hasattr(args, name)
    assert g.run(args) == 0
    printed = capsys.readouterr().out
    assert "rows/s" in printed
    names = sorted(p.name for p in out.glob("*.csv"))
    assert "stale.csv" not in names and (out / "keep.txt").exists()
    assert names[0].startswith("2026-12-01_000_") and names[-1].startswith("2026-12-03_")
    assert not any("redelivery" in n for n in names)
    rows = [r for _, _, rs in read_dir(out) for r in rs]
    assert {r["company_id"] for r in rows if reason(r) is None} == {"co_01", "co_02", "co_03"}
    assert sum(1 for r in rows if r["_kind"] == "versions") > 0.1 * 3 * 200 * (2 / 3)


def test_config_rejects_bad_rates():
    with pytest.raises(ValueError):
        g.GeneratorConfig(late_rate=1.5)
    with pytest.raises(ValueError):
        g.GeneratorConfig(days=0)
