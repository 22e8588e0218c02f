"""rerun_safe harness: prove that re-running a dbt project is safe.

The public API is what this module exports (`__all__`); every other module of the package is
internal and may change in any release (outside harness/ and its tests, ruff's banned-api rule
TID251 refuses imports of them: pyproject.toml). harness/README.md, "Using the harness from
Python", shows it in use.

- `diff_tables`: two relations of one DuckDB connection compared as every check compares them;
- `run_checks`: checks run on a dbt project as `rerun-safe` runs them, returned as a RunResult;
- the result types they return (a TableDiff's columns as a SchemaDiff, a check's build
  findings as Findings, a crash point's Interruption), and the errors `run_checks` raises where
  `rerun-safe` exits 2;
- `Check`, the base class of every check (harness/checks/base.py), `RunOptions`, what the
  checks of a run share, and `CompareMode`, the values of `meta.rerun_safe.compare`;
- for a project's own tools that drive dbt the way the harness does (pipeline_demo): the dbt
  flags and settings, deliveries, warehouse snapshots, the manifest and identifier quoting.
"""

# The one version of a release: the harness (rerun-safe --version, the package metadata through
# pyproject.toml) and both dbt_project.yml files carry it; tests/test_release.py checks they agree.
__version__ = "0.1.0"

from harness.api import RunOptions, RunResult, UsageError, diff_tables, run_checks
from harness.checks.base import Check, NoOptions
from harness.cli import dbt_arguments, dbt_settings
from harness.dbt_invoke import DbtError, DbtRun, DbtSettings, invoke
from harness.deliveries import DEFAULT_BATCH_PATTERN, Batch, discover_batches, land
from harness.engines.base import Snapshot, quote
from harness.engines.duckdb import take_snapshot
from harness.project import CompareMode, Project, load_manifest
from harness.results import (
    CheckResult,
    Column,
    Comparison,
    Findings,
    Interruption,
    NotJudged,
    Retyped,
    SchemaDiff,
    Status,
    TableDiff,
    Trial,
)
from harness.session import NothingSelected
from harness.target import Refused

__all__ = [
    "DEFAULT_BATCH_PATTERN",
    "Batch",
    "Check",
    "CheckResult",
    "Column",
    "CompareMode",
    "Comparison",
    "DbtError",
    "DbtRun",
    "DbtSettings",
    "Findings",
    "Interruption",
    "NoOptions",
    "NotJudged",
    "NothingSelected",
    "Project",
    "Refused",
    "Retyped",
    "RunOptions",
    "RunResult",
    "SchemaDiff",
    "Snapshot",
    "Status",
    "TableDiff",
    "Trial",
    "UsageError",
    "__version__",
    "dbt_arguments",
    "dbt_settings",
    "diff_tables",
    "discover_batches",
    "invoke",
    "land",
    "load_manifest",
    "quote",
    "run_checks",
    "take_snapshot",
]
