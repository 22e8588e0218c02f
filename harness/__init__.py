"""rerun_safe harness: prove that re-running a dbt project is safe.

The public API is what this module exports (`__all__`); every other module of the package is
internal and may change in any release (outside harness/ and its tests, ruff's banned-api rule
TID251 refuses imports of them: pyproject.toml). harness/README.md, "Using the harness from
Python", shows it in use.

- `diff_tables`: two relations of one DuckDB connection compared as every check compares them;
- `run_checks`: checks run on a dbt project as `rerun-safe` runs them, returned as a RunResult;
- the result types they return (a TableDiff's columns as a SchemaDiff, a check's build
  findings as Findings, a crash point's Interruption);
- the errors: every one the harness raises derives from `RerunSafeError`; `run_checks` raises
  `UsageError`, `Refused`, `DbtError` (`NothingSelected`) where `rerun-safe` exits 2;
- `Check`, the base class of every check (harness/checks/base.py), `RunOptions`, what the
  checks of a run share, and `CompareMode`, the values of `meta.rerun_safe.compare`.
"""

from harness._version import __version__
from harness.api import RunOptions, RunResult, diff_tables, run_checks
from harness.checks.base import Check, NoOptions
from harness.errors import DbtError, NothingSelected, Refused, RerunSafeError, UsageError
from harness.project import CompareMode
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

__all__ = [
    "Check",
    "CheckResult",
    "Column",
    "CompareMode",
    "Comparison",
    "DbtError",
    "Findings",
    "Interruption",
    "NoOptions",
    "NotJudged",
    "NothingSelected",
    "Refused",
    "RerunSafeError",
    "Retyped",
    "RunOptions",
    "RunResult",
    "SchemaDiff",
    "Status",
    "TableDiff",
    "Trial",
    "UsageError",
    "__version__",
    "diff_tables",
    "run_checks",
]
