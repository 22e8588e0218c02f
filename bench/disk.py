"""What a large history needs on disk, and in how many dbt runs it fits (`python -m bench large`)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from bench.common import label

# Bytes per history event on disk, measured by this script at 50M (100k events a day, seed 7,
# memory_limit 8GB, docs/benchmarks-large.md): the landing files (history only; 135 B at 50M, 137 at
# 30M in make bench), and the largest sum of the DuckDB warehouse file and its spill folder seen
# during the run (polled each second): 49.4 GB at 50M, while the copies model's window sorts
# spilled 36.6 GB beside the staged rows; the finished warehouse is 18.6 GB (372 B an event).
LANDING_BYTES_PER_EVENT = 137
PEAK_BYTES_PER_EVENT = 988
WAREHOUSE_BYTES_PER_EVENT = 372
GB = 1e9
# A history too large for one build on this disk is built in steps (at most this many): the first
# a full build of the first days, each next one lands the next days and runs `dbt run` (incremental).
MAX_STEPS = 10


@dataclasses.dataclass(frozen=True)
class DiskPlan:
    events: int
    landing_bytes: float
    warehouse_bytes: float
    free_bytes: float
    steps: int = 1

    @property
    def needed_bytes(self) -> float:
        return self.landing_bytes + self.warehouse_bytes

    @property
    def fits(self) -> bool:  # with a tenth of the free space kept for what the per-event figures miss
        return self.needed_bytes <= 0.9 * self.free_bytes

    def describe(self) -> str:
        if self.steps == 1:
            built = f"({PEAK_BYTES_PER_EVENT} B an event)"
        else:
            part = f"{self.events / self.steps / 1e6:.3g}M"
            built = (
                f"(built in {self.steps} runs of about {part} events: the last run's warehouse before it, "
                f"{WAREHOUSE_BYTES_PER_EVENT} B an event, and its own peak, {PEAK_BYTES_PER_EVENT} B an event "
                "of its part)"
            )
        return (
            f"{label(self.events)} events need about {self.needed_bytes / GB:.1f} GB: landing files "
            f"{self.landing_bytes / GB:.1f} GB ({LANDING_BYTES_PER_EVENT} B an event), the warehouse and "
            f"DuckDB's spill folder at their largest {self.warehouse_bytes / GB:.1f} GB "
            f"{built}; {self.free_bytes / GB:.1f} GB are free"
        )


def disk_plan(events: int, out: Path, reusable_bytes: float = 0.0, steps: int = 0) -> DiskPlan:
    """What `events` need on `out`'s file system, built in `steps` runs (0: the fewest, up to
    MAX_STEPS, that fit), against its free space (plus `reusable_bytes`: deliveries already
    generated for this size, which the run keeps)."""
    probe = out
    while not probe.exists():
        probe = probe.parent
    free = shutil.disk_usage(probe).free + reusable_bytes
    plan = None
    for k in [steps] if steps else range(1, MAX_STEPS + 1):
        peak = WAREHOUSE_BYTES_PER_EVENT * events * (k - 1) / k + PEAK_BYTES_PER_EVENT * events / k
        plan = DiskPlan(
            events=events,
            landing_bytes=events * LANDING_BYTES_PER_EVENT,
            warehouse_bytes=peak,
            free_bytes=free,
            steps=k,
        )
        if plan.fits:
            break
    assert plan is not None
    return plan
