"""A history grown by runs, beside the same history built at once: `make bench`'s RG ratio.

A user's warehouse is never built in one run: it grows by a run a day, or by a backfill in parts.
At `--grown-size` the size sweep (bench/sizes.py) builds a second warehouse from the same landed
history files in `--grown-steps` runs: `dbt seed`, then a `dbt run` from empty on the first days,
then an incremental `dbt run` on each next group of whole days (bench/common.py step_days). The
same batch then runs on both warehouses, alternately, each repeat on fresh copies
(bench/sizes.py incremental_and_floor), and their business tables are compared after it: a
history grown by runs must give the tables of one built at once.

The grown warehouse has its own landing folder, of copies: not hard links, since a new link to a
file changes its inode's ctime, which the landing door reads as a changed file, so the warehouse
built at once would inspect every history file again in its timed run. It has its own dbt target
folder too, so that neither warehouse's runs make the other's dbt parse the whole project again
(their landing_path vars differ), and its own logs.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from bench.common import BENCH_NOW, label, log, step_days
from bench.measure import dbt
from bench.results import Run


@dataclasses.dataclass(frozen=True)
class GrownWarehouse:
    """Where one size's grown history lives, beside the size's warehouse built at once."""

    project: Path
    env: dict[str, str]
    work: Path  # the size's work folder

    @property
    def wh(self) -> Path:
        return self.work / "grown.duckdb"

    @property
    def pre_incremental(self) -> Path:
        return self.work / "grown_pre_incremental.duckdb"

    @property
    def landing(self) -> Path:
        return self.work / "landing_grown"

    def land(self, files: list[Path]) -> None:
        """Copies of `files` in the grown landing folder (see the module docstring: not links)."""
        for f in files:
            shutil.copy2(f, self.landing / f.name)

    def dbt(self, args: list[str], name: str) -> Run:
        return dbt(
            self.project,
            args,
            dict(self.env, DBT_DUCKDB_PATH=str(self.wh)),
            self.work / "target_grown",
            self.work / "logs" / name,
            {"landing_path": str(self.landing), "rerun_safe_now": BENCH_NOW},
            name,
        )


def summed(runs: list[Run]) -> Run:
    """The runs that grew a history as one step: their sums, and the largest peak RSS."""
    models: dict[str, float] = {}
    for r in runs:
        for name, t in r.models.items():
            models[name] = models.get(name, 0.0) + t

    def total(values: list[float | None]) -> float | None:
        return None if None in values else sum(v for v in values if v is not None)

    peaks = [r.peak_rss_mb for r in runs if r.peak_rss_mb is not None]
    return Run(
        wall_s=sum(r.wall_s for r in runs),
        inside_s=total([r.inside_s for r in runs]),
        tests_s=total([r.tests_s for r in runs]),
        hooks_s=total([r.hooks_s for r in runs]),
        dbt_elapsed_s=total([r.dbt_elapsed_s for r in runs]),
        overhead_s=total([r.overhead_s for r in runs]),
        peak_rss_mb=max(peaks) if peaks else None,
        load_before=runs[0].load_before if runs else None,
        load_after=runs[-1].load_after if runs else None,
        models=models,
    )


def grow(g: GrownWarehouse, history: list[Path], steps: int, n: int) -> Run:
    """The history in `steps` dbt runs of whole consecutive days, the first from an empty warehouse."""
    g.landing.mkdir(parents=True, exist_ok=True)  # seeds check that the landing folder exists
    g.dbt(["seed"], "grown_seed")
    runs = []
    for i, files in enumerate(step_days(history, steps), 1):
        g.land(files)
        days = f"{files[0].name[:10]} to {files[-1].name[:10]}"
        log(f"{label(n)}: grown history, run {i}/{steps}: {len(files)} files, {days}")
        runs.append(g.dbt(["run"], f"grown_history_{i}"))
    return summed(runs)
