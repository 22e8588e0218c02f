"""Hand-checkable scenarios for the reference oracle (tests/reference/oracle.py).

Each test states its case in its first line; totals are small enough to verify by hand.
"""

from datetime import date

import pandas as pd
import pytest

from .oracle import Correction, mark_now, read_landing, run_oracle

HEADER = "event_id,event_type,company_id,order_id,order_item_id,amount_cents,currency,event_time,ingested_at,version"


def write(folder, name, *lines, header=True):
    text = "\n".join(([HEADER] if header else []) + list(lines))
    (folder / name).write_text(text + ("\n" if text else ""), encoding="utf-8")


def row(
    event_id="A",
    event_type="sale",
    company="c1",
    order="o1",
    item="i1",
    amount="10000",
    currency="USD",
    event_time="2026-11-01T10:00:00Z",
    ingested="2026-11-01T11:00:00Z",
    version="1",
):
    return ",".join([event_id, event_type, company, order, item, amount, currency, event_time, ingested, version])


def balance_ok(res):
    b = res.balance
    return sum(v for k, v in b.items() if k != "landed") == b["landed"]


def daily(res):
    """{(company, date, currency): net} for easy asserts."""
    d = res.fct_daily_revenue
    return {(r.company_id, r.revenue_date, r.currency): r.net_cents for r in d.itertuples()}


def items(res):
    d = res.fct_order_items
    return {(r.company_id, r.order_item_id): r.net_cents for r in d.itertuples()}


def test_seed_failure_retry_does_not_double_count(tmp_path):
    """Seeds' failure: A ($100) loaded, then a retry delivers A and B ($50): net is 15000, not 25000."""
    write(tmp_path, "batch_1.csv", row("A", amount="10000"))
    write(
        tmp_path,
        "batch_1_retry.csv",
        row("A", amount="10000"),
        row("B", item="i2", amount="5000", ingested="2026-11-01T12:00:00Z"),
    )
    res = run_oracle(read_landing(tmp_path))
    assert res.fct_daily_revenue["net_cents"].sum() == 15000
    assert res.fct_daily_revenue["event_count"].sum() == 2
    assert items(res) == {("c1", "i1"): 10000, ("c1", "i2"): 5000}
    assert res.balance == {
        "landed": 3,
        "invalid": 0,
        "duplicates": 1,
        "conflicting": 0,
        "late_waiting": 0,
        "superseded": 0,
        "current": 2,
    }
    assert res.fct_daily_revenue["net_cents"].dtype == "int64"
    assert balance_ok(res)


def test_redelivery_under_another_name_changes_nothing(tmp_path):
    """The same file delivered again under another name (and with the other timestamp form) changes no table."""
    lines = [row("A", amount="700"), row("B", event_type="refund", amount="200", ingested="2026-11-01T11:30:00Z")]
    write(tmp_path, "f1.csv", *lines)
    before = run_oracle(read_landing(tmp_path))
    write(tmp_path, "f1_copy.csv", *lines)
    # same payload, space form of event_time, later ingested_at, padded with blanks: still a duplicate
    write(
        tmp_path,
        "f1_again.csv",
        row(" A ", amount=" 700", event_time="2026-11-01 10:00:00", ingested="2026-11-02 09:00:00"),
    )
    after = run_oracle(read_landing(tmp_path))
    pd.testing.assert_frame_equal(before.fct_order_items, after.fct_order_items)
    pd.testing.assert_frame_equal(before.fct_daily_revenue, after.fct_daily_revenue)
    assert daily(after) == {("c1", date(2026, 11, 1), "USD"): 500}
    r = after.fct_order_items.iloc[0]
    assert (r.gross_cents, r.refunded_cents, r.net_cents, r.event_count) == (700, 200, 500, 2)
    assert after.balance["duplicates"] == 3 and after.balance["current"] == 2
    assert balance_ok(after)


def test_conflicting_version_then_resolved_by_higher_version(tmp_path):
    """Two v1 copies of A with different amounts: A contributes nothing, both rows quarantined; v2 resolves it."""
    write(tmp_path, "a.csv", row("A", amount="100"), row("B", item="i2", amount="40"))
    write(tmp_path, "b.csv", row("A", amount="999", ingested="2026-11-01T12:00:00Z"))
    res = run_oracle(read_landing(tmp_path))
    assert items(res) == {("c1", "i2"): 40}
    assert res.quarantine_counts == {"conflicting_version": 2}
    assert set(res.quarantined_events["source_file"]) == {"a.csv", "b.csv"}
    assert res.balance["conflicting"] == 2 and res.balance["current"] == 1
    assert balance_ok(res)

    write(tmp_path, "c.csv", row("A", amount="300", ingested="2026-11-01T13:00:00Z", version="2"))
    res = run_oracle(read_landing(tmp_path))
    assert items(res) == {("c1", "i1"): 300, ("c1", "i2"): 40}
    assert res.fct_daily_revenue["net_cents"].sum() == 340
    # v1 stays quarantined even though a higher version exists
    assert res.quarantine_counts == {"conflicting_version": 2}
    assert res.balance == {
        "landed": 4,
        "invalid": 0,
        "duplicates": 0,
        "conflicting": 2,
        "late_waiting": 0,
        "superseded": 0,
        "current": 2,
    }
    assert balance_ok(res)


def test_conflicting_current_version_does_not_fall_back(tmp_path):
    """A v1 is clean but v2 conflicts: A contributes nothing (no fallback to v1), v1 is superseded."""
    write(
        tmp_path,
        "a.csv",
        row("A", amount="100"),
        row("A", amount="200", version="2"),
        row("A", amount="201", version="2"),
    )
    res = run_oracle(read_landing(tmp_path))
    assert res.fct_order_items.empty and res.fct_daily_revenue.empty
    assert res.balance["superseded"] == 1 and res.balance["conflicting"] == 2
    assert balance_ok(res)


def test_new_version_moves_event_to_another_item_and_day(tmp_path):
    """A v2 moves A from item i1 on Nov 1 to item i9 on Nov 2: the old item and day lose it."""
    write(
        tmp_path,
        "a.csv",
        row("A", amount="1000"),
        row("B", amount="50", event_time="2026-11-01T09:00:00Z", ingested="2026-11-01T09:05:00Z"),
    )
    res = run_oracle(read_landing(tmp_path))
    assert items(res) == {("c1", "i1"): 1050}
    assert daily(res) == {("c1", date(2026, 11, 1), "USD"): 1050}

    write(
        tmp_path,
        "b.csv",
        row(
            "A",
            item="i9",
            order="o9",
            amount="1000",
            event_time="2026-11-02T08:00:00Z",
            ingested="2026-11-02T08:30:00Z",
            version="2",
        ),
    )
    res = run_oracle(read_landing(tmp_path))
    assert items(res) == {("c1", "i1"): 50, ("c1", "i9"): 1000}
    assert daily(res) == {("c1", date(2026, 11, 1), "USD"): 50, ("c1", date(2026, 11, 2), "USD"): 1000}
    i1 = res.fct_order_items.set_index("order_item_id").loc["i1"]
    assert i1.event_count == 1 and i1.first_event_time == i1.last_event_time == pd.Timestamp("2026-11-01 09:00:00")
    assert res.fct_order_items.set_index("order_item_id").loc["i9", "order_id"] == "o9"
    assert res.balance["superseded"] == 1 and res.balance["current"] == 2
    assert balance_ok(res)


def test_every_reason_code_and_first_reason_wins(tmp_path):
    """One row per reason code (in order), plus rows with several faults that get the first reason only."""
    write(
        tmp_path,
        "bad.csv",
        row("M1") + ",extra",  # line 2 malformed_row
        row(""),  # 3 missing_event_id
        row("E2", company="  "),  # 4 missing_company_id
        row("E3", item=""),  # 5 missing_order_item_id
        row("E4", event_type="Sale"),  # 6 unknown_event_type
        row("E5", amount="12.5"),  # 7 invalid_amount
        row("E6", amount="abc"),  # 8 invalid_amount
        row("E7", amount=""),  # 9 invalid_amount
        row("E8", amount="-5"),  # 10 negative_amount
        row("E9", currency="usd"),  # 11 invalid_currency
        row("E10", currency="USDX"),  # 12 invalid_currency
        row("E11", event_time="2026-13-01T10:00:00Z"),  # 13 invalid_event_time (month 13)
        row("E12", event_time="2026-11-01T10:00:00+00:00"),  # 14 invalid_event_time (other form)
        row("E13", event_time="2026-02-30 10:00:00"),  # 15 invalid_event_time (impossible date)
        row("E14", ingested="2026-11-01"),  # 16 invalid_ingested_at
        row("E15", version="0"),  # 17 invalid_version
        row("E16", version="1.5"),  # 18 invalid_version
        row("", company="", amount="-1", currency="x"),  # 19 missing_event_id (first wins)
        row("E18", event_type="bogus", amount="-1", version="0"),  # 20 unknown_event_type (first wins)
        "E19,sale,c1",  # 21 fewer fields: missing_order_item_id
        row("OK", order=""),  # 22 valid (blank order_id allowed)
    )
    res = run_oracle(read_landing(tmp_path))
    assert res.quarantine_counts == {
        "malformed_row": 1,
        "missing_event_id": 2,
        "missing_company_id": 1,
        "missing_order_item_id": 2,
        "unknown_event_type": 2,
        "invalid_amount": 3,
        "negative_amount": 1,
        "invalid_currency": 2,
        "invalid_event_time": 3,
        "invalid_ingested_at": 1,
        "invalid_version": 2,
    }
    q = res.quarantined_events.set_index("source_line")["reason"]
    assert q[2] == "malformed_row" and q[19] == "missing_event_id" and q[20] == "unknown_event_type"
    assert q[21] == "missing_order_item_id" and 22 not in q.index
    assert items(res) == {("c1", "i1"): 10000}
    assert res.fct_order_items["order_id"].isna()[0]
    assert res.balance["invalid"] == 20 and res.balance["current"] == 1 and res.balance["landed"] == 21
    assert balance_ok(res)


def test_empty_and_header_only_files(tmp_path):
    """A 0-byte file and a header-only file load zero rows and are not errors."""
    (tmp_path / "empty.csv").write_bytes(b"")
    write(tmp_path, "header_only.csv")
    rows = read_landing(tmp_path)
    assert len(rows) == 0
    res = run_oracle(rows)
    assert res.fct_order_items.empty and res.fct_daily_revenue.empty
    assert res.balance == {
        "landed": 0,
        "invalid": 0,
        "duplicates": 0,
        "conflicting": 0,
        "late_waiting": 0,
        "superseded": 0,
        "current": 0,
    }
    assert pd.isna(mark_now(rows))
    write(tmp_path, "real.csv", row("A", amount="5"))
    assert run_oracle(read_landing(tmp_path)).fct_daily_revenue["net_cents"].sum() == 5


def test_late_row_waits_then_correction_applies_it(tmp_path):
    """A row 73 h late waits (no business change); exactly 72 h is on time; a covering correction applies it."""
    write(tmp_path, "a.csv", row("A", amount="100"))
    write(
        tmp_path,
        "late.csv",
        row("L", item="i2", amount="900", event_time="2026-11-01T10:00:00Z", ingested="2026-11-04T11:00:00Z"),
        row("E", item="i3", amount="20", event_time="2026-11-01T10:00:00Z", ingested="2026-11-04T10:00:00Z"),
    )
    rows = read_landing(tmp_path)
    res = run_oracle(rows)
    assert items(res) == {("c1", "i1"): 100, ("c1", "i3"): 20}
    assert res.late_waiting == 1 and res.late_applied == 0
    assert res.late_events["event_id"].tolist() == ["L"]
    assert res.late_events["lateness"].iloc[0] == pd.Timedelta(hours=73)
    assert res.balance["late_waiting"] == 1 and balance_ok(res)
    assert run_oracle(rows, allowed_lateness_hours=73).late_waiting == 0  # 73 h is not > 73 h

    corr = Correction(date(2026, 11, 1), date(2026, 11, 1), mark_now(rows))
    assert corr.mark == pd.Timestamp("2026-11-04 11:00:00")
    res = run_oracle(rows, corrections=[corr])
    assert items(res) == {("c1", "i1"): 100, ("c1", "i2"): 900, ("c1", "i3"): 20}
    assert daily(res) == {("c1", date(2026, 11, 1), "USD"): 1020}
    assert res.late_waiting == 0 and res.late_applied == 1
    assert res.late_events["status"].tolist() == ["applied"]
    assert res.balance["late_waiting"] == 0 and res.balance["current"] == 3 and balance_ok(res)

    # a correction whose date range misses the row's revenue_date does not apply it
    other = Correction(date(2026, 11, 2), date(2026, 11, 3), mark_now(rows))
    assert run_oracle(rows, corrections=[other]).late_waiting == 1


def test_correction_mark_before_late_row_does_not_apply_it(tmp_path):
    """A correction recorded before the late row landed (mark < its ingested_at) leaves it waiting."""
    write(tmp_path, "a.csv", row("A", amount="100"))
    corr = Correction(date(2026, 11, 1), date(2026, 11, 3), mark_now(read_landing(tmp_path)))
    assert corr.mark == pd.Timestamp("2026-11-01 11:00:00")
    write(
        tmp_path,
        "late.csv",
        row("L", item="i2", amount="900", event_time="2026-11-01T10:00:00Z", ingested="2026-11-05T10:00:00Z"),
    )
    rows = read_landing(tmp_path)
    res = run_oracle(rows, corrections=[corr])
    assert items(res) == {("c1", "i1"): 100}
    assert res.late_waiting == 1 and res.late_applied == 0
    assert balance_ok(res)
    # the next correction, recorded after it landed, applies it
    res = run_oracle(rows, corrections=[corr, Correction(date(2026, 11, 1), date(2026, 11, 1), mark_now(rows))])
    assert items(res) == {("c1", "i1"): 100, ("c1", "i2"): 900} and res.late_applied == 1


def test_late_redelivery_keeps_earliest_arrival(tmp_path):
    """An on-time row redelivered much later stays on time (a copy's ingested_at is its earliest row)."""
    write(tmp_path, "a.csv", row("A", amount="100"))
    write(tmp_path, "z.csv", row("A", amount="100", ingested="2026-12-01T00:00:00Z"))
    res = run_oracle(read_landing(tmp_path))
    assert items(res) == {("c1", "i1"): 100}
    assert res.late_waiting == 0 and res.balance["duplicates"] == 1 and balance_ok(res)


def test_late_conflicting_copy_waits_until_applied(tmp_path):
    """A late copy with another payload for the same version waits; applying it creates a conflict."""
    write(tmp_path, "a.csv", row("A", amount="100"), row("A", amount="555", ingested="2026-11-10T00:00:00Z"))
    rows = read_landing(tmp_path)
    res = run_oracle(rows)
    assert items(res) == {("c1", "i1"): 100} and res.late_waiting == 1
    assert res.quarantine_counts == {}
    res = run_oracle(rows, corrections=[Correction(date(2026, 11, 1), date(2026, 11, 1), mark_now(rows))])
    assert res.fct_order_items.empty and res.quarantine_counts == {"conflicting_version": 2}
    assert res.balance["conflicting"] == 2 and balance_ok(res)


def test_order_id_and_currency_from_latest_event(tmp_path):
    """Item i1 has events at 10:00 (o1/USD) and 12:00 (o2/EUR) plus a refund; the latest event's order and currency
    win."""
    write(
        tmp_path,
        "a.csv",
        row("A", order="o1", amount="1000", currency="USD", event_time="2026-11-01T10:00:00Z"),
        row(
            "B",
            order="o2",
            amount="500",
            currency="EUR",
            event_time="2026-11-01T12:00:00Z",
            ingested="2026-11-01T12:00:00Z",
        ),
        row("C", event_type="refund", order="o1", amount="300", currency="USD", event_time="2026-11-01T11:00:00Z"),
    )
    res = run_oracle(read_landing(tmp_path))
    r = res.fct_order_items.iloc[0]
    assert (r.order_id, r.currency, r.gross_cents, r.refunded_cents, r.net_cents, r.event_count) == (
        "o2",
        "EUR",
        1500,
        300,
        1200,
        3,
    )
    assert daily(res) == {("c1", date(2026, 11, 1), "EUR"): 500, ("c1", date(2026, 11, 1), "USD"): 700}
    # tie on event_time: greatest event_id wins
    write(
        tmp_path,
        "b.csv",
        row(
            "Z",
            order="o3",
            amount="1",
            currency="GBP",
            event_time="2026-11-01T12:00:00Z",
            ingested="2026-11-01T12:00:00Z",
        ),
    )
    r = run_oracle(read_landing(tmp_path)).fct_order_items.iloc[0]
    assert (r.order_id, r.currency) == ("o3", "GBP")


def test_quoting_and_source_lines(tmp_path):
    """RFC 4180 quoting: a quoted comma stays in one field; source_line counts records from line 2."""
    write(tmp_path, "q.csv", row("A"), '"B,1",sale,c1,"o""x""",i1,5,USD,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1')
    rows = read_landing(tmp_path)
    assert rows["source_line"].tolist() == [2, 3]
    assert rows["event_id"].tolist() == ["A", "B,1"] and rows["order_id"].tolist()[1] == 'o"x"'
    assert not rows["malformed"].any()
    assert run_oracle(rows).fct_daily_revenue["net_cents"].sum() == 10005


@pytest.mark.parametrize("seed", range(5))
def test_balance_identity_on_mixed_random_rows(tmp_path, seed):
    """Random mix of valid, invalid, duplicate, late and conflicting rows: every landed row is in one balance term."""
    import random

    rnd = random.Random(seed)
    lines = []
    for _ in range(300):
        eid = f"E{rnd.randint(1, 60)}"
        amount = rnd.choice(["100", "200", "-1", "x", "300"])
        ingested = rnd.choice(["2026-11-01T11:00:00Z", "2026-11-06T11:00:00Z", "2026-11-01 12:00:00"])
        lines.append(
            row(
                eid,
                amount=amount,
                version=str(rnd.randint(1, 3)),
                ingested=ingested,
                item=rnd.choice(["i1", "i2"]),
                event_type=rnd.choice(["sale", "refund", "nope"]),
            )
        )
    write(tmp_path, "mix.csv", *lines)
    rows = read_landing(tmp_path)
    arrivals: dict[tuple[str, ...], set[str]] = {}
    for line in lines:
        eid, kind, _, _, item, amount, _, _, ingested, version = line.split(",")
        if kind in ("sale", "refund") and amount in ("100", "200", "300"):
            arrivals.setdefault((eid, kind, item, amount, version), set()).add(ingested)
    late_copies = sum(1 for landed in arrivals.values() if landed == {"2026-11-06T11:00:00Z"})
    assert late_copies > 0
    for corrections in ([], [Correction(date(2026, 11, 1), date(2026, 11, 1), mark_now(rows))]):
        res = run_oracle(rows, corrections=corrections)
        assert res.balance["landed"] == 300
        assert balance_ok(res)
        assert res.fct_daily_revenue["net_cents"].sum() == res.fct_order_items["net_cents"].sum()
        assert res.fct_daily_revenue["event_count"].sum() == res.balance["current"]
        # late copies counted independently of the oracle: every row's event_time is
        # 2026-11-01T10:00, so a copy is late when all its valid rows landed on 2026-11-06
        assert res.late_waiting + res.late_applied == len(res.late_events) == late_copies
        assert res.late_applied == (late_copies if corrections else 0)


def test_copies_carry_their_status_earliest_row_and_first_run(tmp_path):
    """A late copy seen in run 1, redelivered in run 2: first run 1, 2 rows; a conflicting pair is `conflicting`."""
    write(
        tmp_path,
        "a.csv",
        row("L", ingested="2026-11-06T10:00:00Z", item="i3"),
        row("C", amount="100"),
        row("C", amount="200"),
    )
    write(tmp_path, "b.csv", row("L", ingested="2026-11-07T10:00:00Z", item="i3"))
    res = run_oracle(read_landing(tmp_path), run_of_file={"a.csv": 1, "b.csv": 2})
    copies = {(r.event_id, r.source_file, r.source_line): r for r in res.copies.itertuples()}
    late = copies[("L", "a.csv", 2)]
    assert (late.status, late.row_count, late.first_seen_run, late.is_late) == ("late_waiting", 2, 1, True)
    assert {r.status for r in res.copies.itertuples() if r.event_id == "C"} == {"conflicting"}
    assert list(res.late_events.first_seen_run) == [1]
