"""The typed records of the Postgres, Spark, drift and large-history runs, written to the results.json
beside their pages (bench/results.py's codec); their pages are rendered from these alone."""

from __future__ import annotations

import dataclasses

from bench.disk import DiskPlan
from bench.results import Machine, Run, TableDiff


@dataclasses.dataclass(frozen=True)
class Code:
    """The commit a run measured, and the model files changed on top of it."""

    commit: str
    dirty_files: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class StepTimes:
    """One dbt step of a Postgres run: wall, model and start-up seconds, per model and per statement kind."""

    wall_s: float
    model_s: float | None = None
    overhead_s: float | None = None
    models: dict[str, float] = dataclasses.field(default_factory=dict)
    statements: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class PgTable:
    table: str
    rows: int
    mb: float


@dataclasses.dataclass(frozen=True)
class PgIndex:
    table: str
    index: str


@dataclasses.dataclass(frozen=True)
class PgSize:
    """One history size on Postgres, in a database of its own."""

    n: int
    label: str
    days: int
    batch_events: int
    database: str
    history_files: int
    vacuum_analyze_s: float
    runs: dict[str, StepTimes]
    batch_files: int | None = None
    tables: tuple[PgTable, ...] = ()
    indexes: tuple[PgIndex, ...] = ()


@dataclasses.dataclass(frozen=True)
class PostgresResults:
    """docs/benchmarks-postgres.results.json."""

    code: Code
    batch_events: int
    seed: int
    postgres: str = "?"
    measured: str = ""
    load_average: tuple[float, ...] = ()
    results: tuple[PgSize, ...] = ()


@dataclasses.dataclass(frozen=True)
class SparkStep:
    """One dbt step on one Spark engine: seconds, and the SQL statements dbt sent."""

    wall_s: float
    model_s: float | None
    statements: int
    statement_s: float | None = None


@dataclasses.dataclass(frozen=True)
class SparkResults:
    """docs/benchmarks-spark.results.json. `notes`: what the operator recorded about the run's
    conditions (the first continues the load-average line, the others are paragraphs)."""

    events: int
    history_days: int
    batch_events: int
    seed: int
    master: str
    probes: int
    measured: str
    history_files: int
    batch_files: int
    cluster_started_s: dict[str, float]
    round_trip_s: dict[str, float]
    jvm_start_s: float
    runs: dict[str, dict[str, SparkStep]]
    load_average: tuple[float, ...]
    notes: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class DriftRun:
    """One incremental run of the drift benchmark: its model seconds, the rows it loaded, its peak RSS."""

    model_s: float | None
    rows: int | None = None  # rows loaded; None where not recorded (the days after the runs, in older records)
    peak_rss_mb: float | None = None
    run: int = 0
    day: str = ""
    wall_s: float | None = None
    load_before: float | None = None
    models: dict[str, float] = dataclasses.field(default_factory=dict)
    days: int | None = None  # the wide run: this many days landed at once


@dataclasses.dataclass(frozen=True)
class DriftPair:
    """One day after the runs, landed on the warehouse as the runs left it and on the compacted copy."""

    day: str
    first: str  # which copy ran first: as_is or compact
    as_is: DriftRun
    compact: DriftRun


@dataclasses.dataclass(frozen=True)
class Timed:
    wall_s: float
    model_s: float | None = None
    peak_rss_mb: float | None = None
    size_mb: float | None = None


@dataclasses.dataclass(frozen=True)
class DriftMachine:
    cpu: str
    nproc: int
    mem_gb: float
    dbt_threads: int
    memory_limit: str
    commit: str
    rss_probe: str  # how peak RSS was read: "wrapper" (bench/measure.py), or the child directly before it
    dirty_files: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class DriftResults:
    """docs/benchmarks-drift.results.json: the machine and every measured figure of the drift run."""

    machine: DriftMachine
    history_events: int
    history_days: int
    events_per_day: int
    seed: int
    runs: tuple[DriftRun, ...] = ()
    history_build: Timed | None = None
    runs_wall_s: float = 0.0
    size_after_mb: float | None = None
    compaction: Timed | None = None
    next_pairs: tuple[DriftPair, ...] = ()
    next_equal: tuple[TableDiff, ...] = ()
    wide: DriftRun | None = None
    generated_at: str = ""


@dataclasses.dataclass(frozen=True)
class LargeStep:
    """One dbt run of a history built in steps: its days, files, spill and warehouse, its times."""

    first_day: str
    last_day: str
    files: int
    spill_peak_mb: float
    warehouse_mb: float
    wall_s: float
    model_s: float | None
    overhead_s: float | None
    peak_rss_mb: float | None


@dataclasses.dataclass(frozen=True)
class Prediction:
    """The per-row line of the reference results (bench/per_row.py) for one measure, at this size."""

    name: str
    a: float
    b: float
    fitted: tuple[float, ...]
    predicted: float


@dataclasses.dataclass(frozen=True)
class LargeResults:
    """docs/benchmarks-large.results.json: one large history, its disk plan, and the prediction it is set beside."""

    machine: Machine
    memory_limit: str
    reference: str
    disk: DiskPlan
    default_disk: DiskPlan
    predictions: tuple[Prediction, ...]
    n: int
    label: str
    days: int
    events_per_day: int
    history_files: int
    batch_files: int
    history_mb: float
    batch_mb: float
    history_rows: int
    batch_rows: int
    history_steps: tuple[LargeStep, ...]
    incremental: Run
    warehouse_after_build_mb: float
    warehouse_mb: float
    warehouse_peak_mb: float
    generate_s: float | None = None
    finished_at: str = ""
    total_s: float | None = None
