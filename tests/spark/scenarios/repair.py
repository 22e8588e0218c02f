"""What a repaired Spark warehouse is compared by, in both lanes' kill tests."""

from __future__ import annotations

import json

# The documented repair command's arguments: staging and everything downstream of it, rebuilt
REPAIR = ("--full-refresh", "--select", "stg_landing__deliveries+")


def comparable(state: dict) -> dict:
    """Rows as JSON gives them (dates and times as text), the ledger as net sums per day: the
    repair rebuilds staging and its dependants but keeps the ledger, whose postings then record
    the history (a reversal and a re-posting) instead of a clean build's single entries."""
    rows = json.loads(json.dumps(state, default=str))
    net: dict[tuple, int] = {}
    for _posting_id, _type, _reverses, _event, company, day, currency, amount in rows.pop("ledger"):
        net[(company, day, currency)] = net.get((company, day, currency), 0) + amount
    rows["ledger_net"] = sorted([*key, amount] for key, amount in net.items() if amount)
    rows.pop("runs", None)
    return rows
