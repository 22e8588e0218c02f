"""Documentation coverage, in the manner of the dbt project evaluator's documentation rules.

`fct_undocumented_models` and the column-documentation coverage of dbt_project_evaluator ask
for a description on every model and every column; the evaluator itself is a dbt package (out
of reach here: no package hub), so this test applies the same rules to the artifacts of
`dbt docs generate`: every model, seed and source of this project has a description, and so
has every column the warehouse really holds (catalog.json), not only the columns the property
files happen to list. A column added to a model without a description fails here, by name.
Shared descriptions live in models/_column_docs.md (`{{ doc('...') }}`).
"""

from __future__ import annotations

import json
from typing import Any

from harness.dbt_invoke import run_dbt
from tests.pipeline.project import PROJECT_DIR, Pipeline, event

PACKAGE = "rerun_safe"
DOCUMENTED = ("model", "seed", "source")


def docs_generate(pipeline: Pipeline) -> tuple[dict[str, Any], dict[str, Any]]:
    """`dbt docs generate` (compiles, writes manifest.json and catalog.json) against the
    pipeline's warehouse, the command a user runs, invoked as Pipeline.dbt invokes dbt.

    dbt renders the on-run-start and on-run-end hooks for docs generate too: the run hooks must
    do nothing then (macros/audit/writing_command.sql), or it would register a run and keep the
    warehouse lease, and stg_landing__events would compile against that phantom run.
    """
    common = [
        "--project-dir",
        str(PROJECT_DIR),
        "--profiles-dir",
        str(PROJECT_DIR),
        "--target-path",
        str(pipeline.target_path),
        "--vars",
        json.dumps({"landing_path": str(pipeline.landing)}),
        "--quiet",
    ]
    catalog_file = pipeline.target_path / "catalog.json"
    manifest_file = pipeline.target_path / "manifest.json"
    for artifact in (catalog_file, manifest_file):
        artifact.unlink(missing_ok=True)  # never read a previous invocation's artifacts
    generated = run_dbt(["docs", "generate", *common], target_path=pipeline.target_path, env=pipeline.dbt_env())
    assert generated.success, f"dbt docs generate failed: {generated.error}"
    manifest = json.loads(manifest_file.read_text())
    catalog = json.loads(catalog_file.read_text())
    assert not catalog.get("errors"), f"catalog errors: {catalog['errors']}"
    commands = [c for (c,) in pipeline.query("select command from rerun_safe_runs order by run_seq")]
    assert "generate" not in commands, f"docs generate registered a run: {commands}"
    holders = pipeline.query("select holder_invocation_id from rerun_safe_lease")
    assert holders == [(None,)], f"docs generate left the warehouse lease taken: {holders}"
    return manifest, catalog


def documented_nodes(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every model, seed and source of this package, by unique_id."""
    nodes = {**manifest["nodes"], **manifest["sources"]}
    return {
        unique_id: node
        for unique_id, node in nodes.items()
        if node["resource_type"] in DOCUMENTED and node["package_name"] == PACKAGE
    }


def blank(text: str | None) -> bool:
    return not (text or "").strip()


def test_every_model_seed_source_and_column_is_described(pipeline: Pipeline) -> None:
    """After a small build, every node and every column in the warehouse has a description."""
    pipeline.land(
        "2026-11-01_001.csv",
        [
            event("e1", 100),
            event("e2", 50, event_type="refund"),
            event("e3", "abc"),  # invalid: quarantined_events holds a row too
            event("e4", 70, event_time="2026-10-20T10:00:00Z"),  # late
        ],
    )
    assert pipeline.dbt("seed").success
    assert pipeline.run().success
    manifest, catalog = docs_generate(pipeline)

    nodes = documented_nodes(manifest)
    kinds = {node["resource_type"] for node in nodes.values()}
    assert kinds == set(DOCUMENTED), f"expected models, seeds and sources of {PACKAGE}, found {sorted(kinds)}"

    catalog_nodes = {**catalog["nodes"], **catalog["sources"]}
    # every built model and seed is in the catalog, or its columns would go unchecked
    not_built = sorted(
        unique_id
        for unique_id, node in nodes.items()
        if node["resource_type"] != "source" and unique_id not in catalog_nodes
    )
    assert not not_built, f"not in catalog.json (not built?): {not_built}"

    undocumented_nodes = sorted(
        unique_id
        for unique_id, node in nodes.items()
        # a source table, and the source it belongs to (fct_undocumented_sources)
        if blank(node["description"]) or (node["resource_type"] == "source" and blank(node["source_description"]))
    )

    undocumented_columns: list[str] = []
    for unique_id, node in sorted(nodes.items()):
        described = {name.lower(): column["description"] for name, column in node["columns"].items()}
        in_warehouse = [name.lower() for name in catalog_nodes.get(unique_id, {}).get("columns", {})]
        # the warehouse's columns, and any the property files list (a source has no catalog entry)
        for name in dict.fromkeys([*in_warehouse, *described]):
            if blank(described.get(name)):
                undocumented_columns.append(f"{unique_id}.{name}")

    assert not undocumented_nodes and not undocumented_columns, (
        f"undocumented models/seeds/sources: {undocumented_nodes or 'none'}; "
        f"undocumented columns ({len(undocumented_columns)}): {undocumented_columns or 'none'}. "
        "Add a description in the property file (models/**/_*.yml, seeds/_seeds.yml), "
        "with {{ doc('<name>') }} from models/_column_docs.md for a column shared by several models."
    )
