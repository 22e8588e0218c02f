"""A project that installs the macros as a package builds with them, on DuckDB and Postgres.

The consumer fixture (tests/package/consumer) writes packages.yml like a user, runs `dbt deps`
and builds two batches of an EL-loaded raw table with the package's insert_overwrite and
replace_keys strategies, dedup, run log, lease, balance assertion and pruning helper.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.package.consumer import REPO, Consumer, expected_daily_sales, expected_orders, postgres_env

ADAPTER_STRATEGY_MODELS = ("orders_merged", "orders_delete_insert", "orders_appended")


def _business_tables(consumer: Consumer) -> dict[str, list[tuple]]:
    return {
        "daily_sales": consumer.table("daily_sales", "order_date"),
        "orders_replaced": consumer.table("orders_replaced", "order_id"),
        **{name: consumer.table(name, "order_id, updated_at") for name in ADAPTER_STRATEGY_MODELS},
    }


def _build_two_batches(consumer: Consumer, *build_args: str) -> None:
    consumer.dbt("deps")
    for _ in range(2):
        consumer.load_next_batch()
        consumer.dbt("build", *build_args)


def _check_consumer(consumer: Consumer) -> None:
    _build_two_batches(consumer)

    # the business tables hold what the raw data says
    sales = [(day[:10], count, total) for day, count, total, _seen in consumer.table("daily_sales", "order_date")]
    assert sales == expected_daily_sales(2)
    replaced = {row[0]: (row[1], row[2][:10], int(row[3])) for row in consumer.table("orders_replaced", "order_id")}
    assert replaced == expected_orders(2)
    # insert_overwrite replaced 2026-11-01 and emptied 2026-11-02 (its only order moved away)
    assert "2026-11-02" not in [day for day, *_ in sales]

    # the package's run registry and run log recorded every invocation and the model's runs
    statuses = consumer.query("select status from rerun_safe_runs order by run_seq")
    assert statuses and all(status == "success" for (status,) in statuses), statuses
    assert consumer.query("select count(*) from rerun_safe_run_log where model = 'daily_sales'") == [(2,)]

    # re-running changes nothing; a full refresh converges on the same tables
    before = _business_tables(consumer)
    consumer.dbt("build")
    assert _business_tables(consumer) == before
    consumer.dbt("build", "--full-refresh")
    after = _business_tables(consumer)
    for name in ("daily_sales", "orders_replaced", "orders_merged", "orders_delete_insert"):
        assert after[name] == before[name], name

    # the package brings macros only: none of the pipeline's models, seeds, tests or hooks
    manifest = consumer.manifest()
    foreign = [uid for uid, node in manifest["nodes"].items() if node["package_name"] == "rerun_safe"]
    assert foreign == []
    assert any(uid.startswith("macro.rerun_safe.materialization_incremental") for uid in manifest["macros"])
    # the macro tests (macro_tests/) stay out of the project's own builds: not even parsed
    assert [
        uid for uid, node in manifest["nodes"].items() if node["original_file_path"].startswith("macro_tests/")
    ] == []


def test_consumer_builds_with_the_package_on_duckdb(tmp_path: Path) -> None:
    _check_consumer(Consumer.create(tmp_path / "consumer"))


def test_consumer_builds_with_the_package_on_postgres(tmp_path: Path, postgres_server) -> None:
    _check_consumer(Consumer.create(tmp_path / "consumer", target="postgres", env=postgres_env(postgres_server)))


@pytest.mark.parametrize("target", ["duckdb", "postgres"])
def test_other_strategies_run_the_adapters_own_materialization(tmp_path: Path, target: str, request) -> None:
    """With the shim, merge / delete+insert / append give exactly what the adapter gives
    without it; without it, dbt refuses insert_overwrite (why the shim exists)."""

    def env() -> dict[str, str] | None:
        return postgres_env(request.getfixturevalue("postgres_server")) if target == "postgres" else None

    with_shim = Consumer.create(tmp_path / "with_shim", target=target, env=env())
    without = Consumer.create(tmp_path / "without_shim", target=target, env=env(), with_shim=False)
    _build_two_batches(with_shim)
    _build_two_batches(without, "--exclude", "daily_sales", "orders_replaced")
    for name in ADAPTER_STRATEGY_MODELS:
        assert with_shim.table(name, "order_id, updated_at") == without.table(name, "order_id, updated_at"), name
    # append keeps every version (o2 and o3 twice), merge one per order: the strategies really ran
    assert len(with_shim.table("orders_appended", "order_id, updated_at")) == 6
    assert len(with_shim.table("orders_merged", "order_id")) == 4

    # dbt-duckdb checks the strategy only on an incremental run (Postgres on every run): build
    # the table first where that passes
    if target == "duckdb":
        without.dbt("run", "--select", "daily_sales")
    refused = without.dbt("run", "--select", "daily_sales", expect_success=False)
    messages = " ".join(node.message for node in refused.nodes) + (refused.error or "")
    overwrite = "The incremental strategy 'insert_overwrite' is not valid for this adapter"
    assert not refused.success and overwrite in messages, messages
    # the custom strategy: dbt looks for the root project's macro, which only the shim provides
    if target == "duckdb":
        without.dbt("run", "--select", "orders_replaced")
    refused = without.dbt("run", "--select", "orders_replaced", expect_success=False)
    messages = " ".join(node.message for node in refused.nodes) + (refused.error or "")
    custom = 'dbt could not find an incremental strategy macro with the name "get_incremental_replace_keys_sql"'
    assert not refused.success and custom in messages, messages
    # the README's first troubleshooting entry quotes dbt's words and names the shim
    first_entry = (REPO / "README.md").read_text(encoding="utf-8").split("## Troubleshooting", 1)[1].split("\n- ")[1]
    assert overwrite in " ".join(first_entry.split()) and custom in " ".join(first_entry.split())
    assert "shim" in first_entry


def test_users_install_it_from_git_with_subdirectory(tmp_path: Path) -> None:
    """The README's packages.yml: git + subdirectory: macros (this checkout as the remote; the
    committed tree is what installs)."""
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True)
    assert head.returncode == 0, f"the repository must be a git checkout: {head.stderr}"
    package = {"git": f"file://{REPO}", "subdirectory": "macros", "revision": head.stdout.strip()}
    consumer = Consumer.create(tmp_path / "consumer", package=package)
    consumer.dbt("deps")
    installed = tmp_path / "consumer" / "dbt_packages" / "rerun_safe"
    assert (installed / "dbt_project.yml").exists()
    assert (installed / "incremental" / "materialization_incremental.sql").exists()
    consumer.load_next_batch()
    consumer.dbt("build")
    # the subdirectory comes whole, but macros/pipeline is not among the package's macro-paths
    parsed = consumer.manifest()["macros"]
    assert "macro.rerun_safe.landing_path" not in parsed and "macro.rerun_safe.begin_run" in parsed
    assert [(d[:10], c, t) for d, c, t, _ in consumer.table("daily_sales", "order_date")] == expected_daily_sales(1)
