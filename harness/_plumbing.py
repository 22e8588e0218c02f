"""Internal: the harness's plumbing for this repository's own tools, not its public API.

`pipeline_demo/` (the demo: deliveries landed batch by batch, dbt run on each, warehouse
snapshots) and `bench/` drive dbt the way the harness does, through these names. Nothing here is
covered by semantic versioning: any name may change or go in any release. A user's code imports
`harness` (its `__all__`) only; pyproject.toml's banned-api rule and
tests/harness/test_public_api.py keep every other folder off this module.
"""

from __future__ import annotations

from harness.cli import dbt_arguments, dbt_settings
from harness.dbt_invoke import DbtRun, DbtSettings, invoke
from harness.deliveries import DEFAULT_BATCH_PATTERN, Batch, discover_batches, land
from harness.engines.base import Snapshot, quote
from harness.engines.duckdb import take_snapshot
from harness.project import Project, load_manifest

__all__ = [
    "DEFAULT_BATCH_PATTERN",
    "Batch",
    "DbtRun",
    "DbtSettings",
    "Project",
    "Snapshot",
    "dbt_arguments",
    "dbt_settings",
    "discover_batches",
    "invoke",
    "land",
    "load_manifest",
    "quote",
    "take_snapshot",
]
