"""A check's private folder: its warehouses, landing folders, dbt target paths, snapshots."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.dbt_invoke import DbtRun, DbtSettings, invoke
from harness.warehouse import Snapshot, take_snapshot

Progress = Callable[[str], None]


@dataclass
class Lane:
    """One warehouse with its own landing folder: an independent line of builds."""

    root: Path
    settings: DbtSettings
    progress: Progress
    runs: list[DbtRun] = field(default_factory=list)

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse" / "warehouse.duckdb"

    @property
    def landing(self) -> Path:
        return self.root / "landing"

    def dbt(
        self,
        command: str = "build",
        *,
        select: Sequence[str] = (),
        full_refresh: bool = False,
        uses_landing: bool = True,
    ) -> DbtRun:
        self.warehouse.parent.mkdir(parents=True, exist_ok=True)
        number = len(self.runs) + 1
        target = self.root / f"target_{number:02d}_{command}"
        what = f"dbt {command}" + (" --full-refresh" if full_refresh else "")
        if select:
            what += " -s " + " ".join(select)
        self.progress(f"{self.root.name}: {what} ...")
        run = invoke(
            self.settings,
            command,
            warehouse=self.warehouse,
            target_path=target,
            landing=self.landing if uses_landing else None,
            select=select,
            full_refresh=full_refresh,
        )
        self.runs.append(run)
        verdict = "ok" if run.ok else f"{len(run.problems)} problem(s)"
        self.progress(f"{self.root.name}: {what}: {verdict} in {run.duration_s:.1f}s")
        return run

    def snapshot(self, label: str) -> Snapshot:
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", label)
        return take_snapshot(self.warehouse, self.root / "snapshots" / slug, label)

    def problems(self) -> list[str]:
        return [
            f"{self.root.name} run {i} (dbt {run.command}): {problem}"
            for i, run in enumerate(self.runs, start=1)
            for problem in run.problems
        ]
