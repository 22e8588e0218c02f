"""macros/pipeline/duckdb_catalog: dbt-duckdb's catalog queries with the database name quoted.

A warehouse file named `l'entrepôt.duckdb` is the database `l'entrepôt`, which dbt-duckdb
1.11 pastes unescaped into the literals of its catalog queries. A build and `dbt docs generate`
(the catalog queries) work on it only because this project's copies are dispatched first:
delete one of them and its query fails with DuckDB's parser error. Each copy
was made from a macro of the pinned dbt-duckdb; the digests below fail when an upgrade changes
one of those, so the copy is made again instead of silently going stale.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import dbt.include.duckdb

from harness.dbt_invoke import run_dbt
from tests.pipeline.project import PROJECT_DIR, event
from tests.pipeline.test_profile_env_vars import PlacedPipeline

OURS = Path(__file__).resolve().parents[2] / "macros" / "pipeline" / "duckdb_catalog"
UPSTREAM = Path(dbt.include.duckdb.__file__).parent / "macros"
# the first 16 hex digits of the SHA-256 of each dbt-duckdb 1.11.1 macro that a file here copies
COPIED_FROM = {
    "duckdb__create_schema": "ffc8316c1086bc5f",
    "duckdb__list_schemas": "e42c55423944fcdb",
    "duckdb__check_schema_exists": "12b238b382717aa8",
    "duckdb__list_relations_without_caching": "f5eb9f24739c446e",
    "duckdb__get_catalog_tables_sql": "e6c56a046466d865",
    "duckdb__get_catalog_columns_sql": "e0d0722dc497c454",
}


def _macro_text(folder: Path, name: str) -> str:
    pattern = re.compile(r"\{%-?\s*macro\s+" + re.escape(name) + r"\(.*?\{%-?\s*endmacro\s*-?%\}", re.S)
    found = [m.group(0) for f in sorted(folder.rglob("*.sql")) for m in pattern.finditer(f.read_text())]
    assert len(found) == 1, f"{name}: {len(found)} definitions under {folder}"
    return found[0]


def test_each_copy_overrides_an_unchanged_macro_of_the_pinned_dbt_duckdb() -> None:
    ours = {m for f in OURS.glob("*.sql") for m in re.findall(r"\{%-?\s*macro\s+(\w+)\(", f.read_text())}
    assert ours == set(COPIED_FROM), "every copy has its upstream digest, and no more"
    for name, digest in COPIED_FROM.items():
        upstream = hashlib.sha256(_macro_text(UPSTREAM, name).encode()).hexdigest()[:16]
        assert upstream == digest, (
            f"dbt-duckdb's {name} changed (digest {upstream}): copy it again into {OURS.name}, "
            "quoting every name that enters a literal, and update the digest"
        )
        assert "'{{" not in _macro_text(OURS, name), f"{name}: a name still pasted into a literal"


def test_a_warehouse_file_whose_name_holds_a_quote_has_a_catalog(tmp_path: Path) -> None:
    # the build and the incremental build on such a name: GOOD_WAREHOUSE_FILE_NAMES in
    # tests/pipeline/test_profile_env_vars.py; here one build, then the catalog queries
    folder = tmp_path / "wh"
    folder.mkdir()
    pipeline = PlacedPipeline(tmp_path / "run", folder / "l'entrepôt.duckdb")
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    pipeline.build()
    assert pipeline.net_total() == 100
    docs = run_dbt(
        [
            "docs",
            "generate",
            "--project-dir",
            str(PROJECT_DIR),
            "--profiles-dir",
            str(PROJECT_DIR),
            "--target-path",
            str(pipeline.target_path),
            "--quiet",
            "--vars",
            json.dumps({"landing_path": str(pipeline.landing)}),
        ],
        target_path=pipeline.target_path,
        env=pipeline.dbt_env(),
        write_json=False,
    )
    assert docs.success, f"dbt docs generate failed: {docs.error}"
    catalog = json.loads((pipeline.target_path / "catalog.json").read_text())
    databases = {node["metadata"]["database"] for node in catalog["nodes"].values()}
    assert databases == {"l'entrepôt"}, databases
    assert any(key.endswith(".fct_order_items") for key in catalog["nodes"]), sorted(catalog["nodes"])
