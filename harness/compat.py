"""The dbt the harness is tested with, and the refusal of any other before dbt starts.

The range is the one pyproject.toml's dependencies and macros/dbt_project.yml's
require-dbt-version carry (tests/test_release.py keeps the three in agreement): a dbt minor
changes the parser and the adapter interface, and only this one is tested (docs/dependencies.md).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version

from harness.errors import Refused


@dataclass(frozen=True)
class VersionRange:
    """`low <= (major, minor) < high`, the form of a pip specifier `>=1.11,<1.12`."""

    package: str
    low: tuple[int, int]
    high: tuple[int, int]

    @property
    def specifier(self) -> str:
        return f">={self.low[0]}.{self.low[1]},<{self.high[0]}.{self.high[1]}"

    def contains(self, installed: str) -> bool:
        found = re.match(r"(\d+)\.(\d+)", installed)
        if found is None:
            return False
        minor = (int(found.group(1)), int(found.group(2)))
        return self.low <= minor < self.high


SUPPORTED_DBT = VersionRange("dbt-core", low=(1, 11), high=(1, 12))


def unsupported_dbt(installed: str, supported: VersionRange = SUPPORTED_DBT) -> str | None:
    """The one-line refusal for an installed dbt-core outside `supported`, else None."""
    if supported.contains(installed):
        return None
    return (
        f"dbt-core {installed} is installed, but this harness is tested only with dbt-core "
        f"{supported.specifier}: pip install 'dbt-core{supported.specifier}' 'dbt-duckdb{supported.specifier}'"
    )


@functools.cache
def require_supported_dbt() -> None:
    """Raise Refused (one line, before any dbt command) when the installed dbt-core is untested."""
    try:
        installed = version(SUPPORTED_DBT.package)
    except PackageNotFoundError:
        raise Refused(f"dbt-core is not installed: pip install 'dbt-core{SUPPORTED_DBT.specifier}'") from None
    problem = unsupported_dbt(installed)
    if problem is not None:
        raise Refused(problem)
