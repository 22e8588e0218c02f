"""The typed records of the Postgres and Spark runs, written to the results.json beside their pages
(bench/results.py's codec); their pages are rendered from these alone."""

from __future__ import annotations

import dataclasses


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
