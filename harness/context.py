"""What every check receives: the dbt settings, its folder, the deliveries, its options."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.dbt_invoke import DbtRun, DbtSettings
from harness.deliveries import DEFAULT_BATCH_PATTERN, Batch, discover_batches
from harness.project import Project, load_manifest
from harness.results import CheckResult, Comparison, Status
from harness.workspace import Lane, Progress


def _silent(message: str) -> None:
    del message


@dataclass(frozen=True)
class CheckContext:
    settings: DbtSettings
    workdir: Path
    select: tuple[str, ...] = ()
    deliveries: Path | None = None
    batch_pattern: str = DEFAULT_BATCH_PATTERN
    sample_size: int = 5
    progress: Progress = _silent
    options: dict[str, Any] = field(default_factory=dict)

    def lane(self, check: str, name: str) -> Lane:
        root = self.workdir / check / name
        root.mkdir(parents=True, exist_ok=True)

        def report(message: str) -> None:
            self.progress(f"[{check}] {message}")

        return Lane(root=root, settings=self.settings, progress=report)

    def batches(self) -> list[Batch]:
        if self.deliveries is None:
            raise ValueError("this check needs --deliveries DIR (a folder of CSV delivery files)")
        return discover_batches(self.deliveries, self.batch_pattern)

    def option(self, name: str, default: Any = None) -> Any:
        value = self.options.get(name)
        return default if value is None else value


def selected_nodes(run: DbtRun, select: Sequence[str]) -> set[str] | None:
    """unique_ids a selection built, or None when the whole project was built."""
    if not select:
        return None
    return {node.unique_id for node in run.nodes}


def manifest_of(run: DbtRun) -> Project:
    return load_manifest(run.target_path)


def finish(
    name: str,
    started: float,
    comparisons: list[Comparison],
    lanes: Sequence[Lane] = (),
    notes: Sequence[str] = (),
) -> CheckResult:
    errors = [problem for lane in lanes for problem in lane.problems()]
    passed = not errors and all(comparison.passed for comparison in comparisons)
    return CheckResult(
        name=name,
        status=Status.PASS if passed else Status.FAIL,
        comparisons=comparisons,
        errors=errors,
        notes=list(notes),
        duration_s=time.monotonic() - started,
    )
