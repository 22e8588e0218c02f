"""Reading keys and meta from a manifest."""

from __future__ import annotations

import pytest

from harness.project import RerunSafeMeta, keys_from_tests


def _test_node(name: str, model: str, **kwargs: object) -> dict[str, object]:
    return {"resource_type": "test", "attached_node": model, "test_metadata": {"name": name, "kwargs": kwargs}}


def test_keys_come_from_unique_tests_preferring_not_null_columns() -> None:
    nodes = {
        "t1": _test_node("unique", "model.p.ledger", column_name="reverses_id"),
        "t2": _test_node("unique", "model.p.ledger", column_name="posting_id"),
        "t3": _test_node("not_null", "model.p.ledger", column_name="posting_id"),
        "t4": _test_node("unique_combination", "model.p.daily", columns=["company_id", "day"]),
        "t5": _test_node("unique_combination_of_columns", "model.p.items", combination_of_columns=["a", "b"]),
        "t6": _test_node("accepted_values", "model.p.items", column_name="a", values=["x"]),
    }
    assert keys_from_tests(nodes) == {
        "model.p.ledger": (("posting_id",), "unique test"),
        "model.p.daily": (("company_id", "day"), "unique_combination test"),
        "model.p.items": (("a", "b"), "unique_combination test"),
    }


def test_meta_is_validated() -> None:
    meta = RerunSafeMeta.from_meta({"rerun_safe": {"compare": "history", "sum_columns": ["amount"], "group_by": ["id"]}})
    assert (meta.compare, meta.sum_columns, meta.group_by) == ("history", ("amount",), ("id",))
    assert RerunSafeMeta.from_meta(None) == RerunSafeMeta()
    with pytest.raises(ValueError, match="compare must be one of"):
        RerunSafeMeta.from_meta({"rerun_safe": {"compare": "sometimes"}})


def test_records_deliveries_is_a_boolean() -> None:
    assert RerunSafeMeta.from_meta({"rerun_safe": {"records_deliveries": True}}).records_deliveries
    assert not RerunSafeMeta.from_meta({"rerun_safe": {}}).records_deliveries
    with pytest.raises(ValueError, match="records_deliveries must be true or false"):
        RerunSafeMeta.from_meta({"rerun_safe": {"records_deliveries": "sometimes"}})
