"""Reading keys and meta from a manifest."""

from __future__ import annotations

import pytest

from harness.project import CompareMode, RerunSafeMeta, keys_from_tests, load_manifest


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
    meta = RerunSafeMeta.from_meta(
        {"rerun_safe": {"compare": "history", "sum_columns": ["amount"], "group_by": ["id"]}}
    )
    assert (meta.compare, meta.sum_columns, meta.group_by) == (CompareMode.HISTORY, ("amount",), ("id",))
    assert RerunSafeMeta.from_meta(None) == RerunSafeMeta()
    assert RerunSafeMeta.from_meta({"rerun_safe": {"compare": "SKIP"}}).compare is CompareMode.SKIP
    with pytest.raises(ValueError, match="compare must be one of"):
        RerunSafeMeta.from_meta({"rerun_safe": {"compare": "sometimes"}})


def test_a_bad_compare_mode_names_the_model_and_the_modes() -> None:
    with pytest.raises(ValueError) as error:
        RerunSafeMeta.from_meta({"rerun_safe": {"compare": "sometimes"}}, "fct_orders")
    assert str(error.value) == (
        "fct_orders: meta.rerun_safe.compare must be one of exact, skip, history, got 'sometimes'"
    )


def test_records_deliveries_is_a_boolean() -> None:
    assert RerunSafeMeta.from_meta({"rerun_safe": {"records_deliveries": True}}).records_deliveries
    assert not RerunSafeMeta.from_meta({"rerun_safe": {}}).records_deliveries
    with pytest.raises(ValueError, match="records_deliveries must be true or false"):
        RerunSafeMeta.from_meta({"rerun_safe": {"records_deliveries": "sometimes"}})


def _manifest(tmp_path, **models: dict[str, object]):
    """A manifest.json of project `p` with one model per keyword (its config, plus meta)."""
    import json

    nodes = {}
    for name, config in models.items():
        resource_type = str(config.pop("resource_type", "model"))
        nodes[f"{resource_type}.p.{name}"] = {
            "resource_type": resource_type,
            "package_name": "p",
            "name": name,
            "schema": "main",
            "config": {"materialized": "incremental", **config},
        }
    (tmp_path / "manifest.json").write_text(json.dumps({"metadata": {"project_name": "p"}, "nodes": nodes}))
    return load_manifest(tmp_path)


def test_every_unique_key_is_a_grain_whatever_the_strategy(tmp_path) -> None:
    # Two rows for one key are the bug users mean, on every strategy: only the project can
    # declare that a key repeats (meta.rerun_safe.unique_key_repeats).
    project = _manifest(
        tmp_path,
        default={"unique_key": "id"},  # dbt-duckdb's default for a keyed model: delete+insert
        delete_insert={"unique_key": ["a", "b"], "incremental_strategy": "delete+insert"},
        merge={"unique_key": "id", "incremental_strategy": "merge"},
        overwrite={"unique_key": "day", "incremental_strategy": "insert_overwrite"},
        replace_keys={"unique_key": "id", "incremental_strategy": "replace_keys"},
        microbatch={"unique_key": "id", "incremental_strategy": "microbatch"},
        table={"unique_key": "id", "materialized": "table"},
        partition={
            "unique_key": "day",
            "incremental_strategy": "insert_overwrite",
            "meta": {"rerun_safe": {"unique_key_repeats": True}},
        },
        history={"unique_key": "id", "resource_type": "snapshot", "materialized": "snapshot"},
        audit={"unique_key": "id", "meta": {"rerun_safe": {"compare": "skip", "reason": "audit"}}},
        log={"incremental_strategy": "append"},
    )
    models = {model.name: model for model in project.models}
    for name in ("default", "delete_insert", "merge", "overwrite", "replace_keys", "microbatch", "table"):
        assert models[name].grains == ((models[name].unique_key, "unique_key config"),), name
        assert models[name].key_not_asserted == "", name
    assert models["delete_insert"].grains == ((("a", "b"), "unique_key config"),)
    assert models["default"].strategy == "" and models["overwrite"].strategy == "insert_overwrite"
    not_asserted = {name: models[name].key_not_asserted for name in ("partition", "history", "audit", "log")}
    assert not_asserted == {
        "partition": "unique_key declared to repeat (meta.rerun_safe.unique_key_repeats)",
        "history": "snapshot: one row per version of its unique_key",
        "audit": "not judged: meta.rerun_safe.compare is skip",
        "log": "no unique_key and no unique / unique_combination test",
    }
    for name in not_asserted:
        assert models[name].grains == (), name
    # the key still serves the diff (keys added / removed / changed)
    assert models["partition"].unique_key == ("day",) and models["partition"].config_key == ("day",)


def test_a_manifest_with_a_bad_compare_mode_names_its_model(tmp_path) -> None:
    with pytest.raises(ValueError, match=r"^fct_orders: meta\.rerun_safe\.compare must be one of exact, skip, history"):
        _manifest(tmp_path, fct_orders={"meta": {"rerun_safe": {"compare": "rows"}}})


def test_unique_key_repeats_is_a_boolean() -> None:
    assert RerunSafeMeta.from_meta({"rerun_safe": {"unique_key_repeats": "true"}}).unique_key_repeats
    assert not RerunSafeMeta.from_meta({"rerun_safe": {}}).unique_key_repeats
    with pytest.raises(ValueError, match="unique_key_repeats must be true or false"):
        RerunSafeMeta.from_meta({"rerun_safe": {"unique_key_repeats": "partition"}})


def test_key_values_print_as_sql_literals() -> None:
    import datetime
    import decimal

    from harness.keys import sql_literal

    assert [sql_literal(v) for v in (None, "i1", "o'brien", 7, 2.5, decimal.Decimal("1.10"), True)] == [
        "NULL",
        "'i1'",
        "'o''brien'",
        "7",
        "2.5",
        "1.10",
        "true",
    ]
    assert sql_literal(datetime.date(2025, 1, 7)) == "'2025-01-07'"
    assert sql_literal(datetime.datetime(2025, 1, 7, 9, 30)) == "'2025-01-07 09:30:00'"


def test_the_key_check_names_duplicate_keys_as_sql_literals(tmp_path) -> None:
    # A date and a NULL in a composite key: '2025-01-07' and NULL, not datetime.date(...) / None.
    import duckdb

    from harness.engines.duckdb import DuckDBStore
    from harness.keys import DELETE_INSERT_DUPLICATES, check_keys
    from harness.project import Model

    warehouse = tmp_path / "w.duckdb"
    con = duckdb.connect(str(warehouse))
    con.execute(
        "create table main.daily as select * from (values (date '2025-01-07', null), "
        "(date '2025-01-07', null), (date '2025-01-08', 'x')) as v(day, company)"
    )
    con.close()
    model = Model(
        unique_id="model.p.daily",
        name="daily",
        resource_type="model",
        database="",
        schema="main",
        identifier="daily",
        materialized="incremental",
        unique_key=("day", "company"),
        grains=((("day", "company"), "unique_key config"),),
        config_key=("day", "company"),
    )
    checked = check_keys(DuckDBStore(), str(warehouse), [model], {model.unique_id})
    (violation,) = checked.violations
    assert violation.sample == ["('2025-01-07', NULL) x2"]
    assert violation.hint == DELETE_INSERT_DUPLICATES  # no strategy named: the adapter's delete+insert


def test_the_key_check_leaves_out_rows_whose_key_is_all_null_only(tmp_path) -> None:
    # as dbt's unique test: (NULL, NULL) twice is not a duplicate; ('d', NULL) twice is one
    import duckdb

    from harness.engines.duckdb import DuckDBStore
    from harness.keys import check_keys
    from harness.project import Model

    warehouse = tmp_path / "w.duckdb"
    con = duckdb.connect(str(warehouse))
    con.execute(
        "create table main.items as select * from (values (null, null), (null, null), ('d', null), "
        "('d', null), ('e', 'x')) as v(company, item)"
    )
    con.close()
    model = Model(
        unique_id="model.p.items",
        name="items",
        resource_type="model",
        database="",
        schema="main",
        identifier="items",
        materialized="incremental",
        unique_key=("company", "item"),
        grains=((("company", "item"), "unique_key config"),),
        config_key=("company", "item"),
    )
    checked = check_keys(DuckDBStore(), str(warehouse), [model], {model.unique_id})
    assert [v.sample for v in checked.violations] == [["('d', NULL) x2"]]
