"""Every macro of the package, tested the dbt-utils way on DuckDB and Postgres: one `dbt build`
per adapter of the consumer's macro tests must pass every equality test, and fail exactly the
cases built to fail (raise_error, check_now, assert_balance, a duplicated row that the equality test must see).

The tests live in the consumer fixture (tests/package/consumer): macro_tests/models,
macro_tests/seeds and macros/macro_tests. They are on the project's paths only when the build
sets the var rerun_safe_macro_tests, so the consumer's other builds never parse them.
Everything is asserted from run_results.json and manifest.json, and counted against the files
on disk: a selection that matched nothing, or a model that lost its test, fails.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.package.consumer import FIXTURE, Consumer, postgres_env

MODELS = FIXTURE / "macro_tests" / "models"
SEEDS = FIXTURE / "macro_tests" / "seeds"
TEST_MACROS = FIXTURE / "macros" / "macro_tests"
# The package's macros that these tests cover: each must be called in a model (or in the hook
# macro) of the macro tests, and that model must build or fail as declared.
MACROS = (
    "check_now",
    "commit_hook_writes",
    "has_blank_or_control",
    "json_object",
    "matches_pattern",
    "parse_utc_timestamp",
    "raise_error",
    "raise_error_expression",
    "relation_exists",
    "seconds_between",
    "stable_hash",
    "string_literal",
    "surrogate_key",
    "surrogate_key_type",
    "text_type",
    "trim_blank",
    "try_cast_bigint",
    "utc_now",
    "literal_in",
    "literal_ranges",
    "between_any",
    "literal_list",
    "whole_number_var",
    "flag_var",
    "date_var",
    "_timestamp_value",
    "assert_balance",
    "dedupe_by_key",
)


def _build_macro_tests(consumer: Consumer) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """The one build: (unique_id -> its run result, manifest)."""
    consumer.dbt("deps")
    build_vars = '{rerun_safe_macro_tests: true, macro_test_flag: "TRUE", macro_test_date: "2024-02-29"}'
    outcome = consumer.dbt("build", "--select", "path:macro_tests", "--vars", build_vars, expect_success=False)
    run_results = consumer.root / "target" / "run_results.json"
    assert run_results.exists(), f"dbt ran no node: {outcome.error}"
    results = json.loads(run_results.read_text())["results"]
    return {result["unique_id"]: result for result in results}, consumer.manifest()


def _check_macro_tests(consumer: Consumer) -> None:
    results, manifest = _build_macro_tests(consumer)
    nodes = manifest["nodes"]
    status = {uid: result["status"] for uid, result in results.items()}

    # every seed on disk was loaded: the shared ones and this adapter's expected values only
    seed_files = [*SEEDS.glob("*.csv"), *(SEEDS / consumer.target).glob("*.csv")]
    seeds = {f"seed.consumer_shop.{path.stem}" for path in seed_files}
    assert len(seeds) > 20, seed_files
    assert {uid: status.get(uid) for uid in seeds} == dict.fromkeys(seeds, "success")
    assert {uid for uid in results if uid.startswith("seed.")} == seeds

    # every model on disk ran; the ones declared to fail failed with their message
    models = {f"model.consumer_shop.{path.stem}" for path in MODELS.glob("*.sql")}
    assert {uid for uid in results if uid.startswith("model.")} == models
    must_fail = {
        uid: nodes[uid]["config"]["meta"]["expect_error"]
        for uid in models
        if "expect_error" in nodes[uid]["config"].get("meta", {})
    }
    assert len(must_fail) == 7, must_fail
    for uid, message in must_fail.items():
        assert status[uid] == "error" and message in results[uid]["message"], (uid, results[uid])
    built = {uid: status[uid] for uid in models - must_fail.keys()}
    errors = {uid: results[uid]["message"] for uid in built if built[uid] != "success"}
    assert built == dict.fromkeys(built, "success"), errors

    # every test_* model that builds has an equality test with its expected rows, and it passed
    tests = {uid: node for uid, node in nodes.items() if node["resource_type"] == "test"}
    equality = {
        uid: node["attached_node"]
        for uid, node in tests.items()
        if node.get("test_metadata", {}).get("name") == "equality"
    }
    checked = {f"model.consumer_shop.{path.stem}" for path in MODELS.glob("test_*.sql")} - must_fail.keys()
    assert checked and checked <= set(equality.values()), checked - set(equality.values())
    assert set(tests) <= set(results), set(tests) - set(results)
    must_fail_tests = {
        uid: node["config"]["meta"]["expect_failures"]
        for uid, node in tests.items()
        if "expect_failures" in node["config"].get("meta", {})
    }
    assert len(must_fail_tests) == 3, must_fail_tests
    for uid, failures in must_fail_tests.items():
        assert (status[uid], results[uid]["failures"]) == ("fail", failures), results[uid]
    passed = {uid: status[uid] for uid in tests.keys() - must_fail_tests.keys()}
    failed = {uid: results[uid]["message"] for uid in passed if status[uid] != "pass"}
    assert passed == dict.fromkeys(passed, "pass"), failed
    assert len(equality.keys() - must_fail_tests.keys()) == len(checked), (sorted(equality), sorted(checked))
    # the package's generic tests ran too (on seeds): each passes once and fails once
    generic = sorted(node["test_metadata"]["name"] for node in tests.values() if "test_metadata" in node)
    assert generic.count("unique_combination") == 2 and generic.count("sums_match") == 2, generic

    # every macro is called by the macro tests
    code = " ".join(path.read_text() for path in [*MODELS.glob("*.sql"), *TEST_MACROS.glob("*.sql")])
    assert [macro for macro in MACROS if f"rerun_safe.{macro}(" not in code] == []


def test_macros_on_duckdb(tmp_path: Path) -> None:
    _check_macro_tests(Consumer.create(tmp_path / "consumer"))


def test_macros_on_postgres(tmp_path: Path, postgres_server) -> None:
    _check_macro_tests(Consumer.create(tmp_path / "consumer", target="postgres", env=postgres_env(postgres_server)))
