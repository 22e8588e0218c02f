"""The benchmark's results as typed, frozen records, and their file: `results.json` beside each page.

A run of `python -m bench` measures into these records and writes them to JSON; the page is
rendered from that file alone (bench/render.py). No code reads a page back.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

SCHEMA = 1


class Step(enum.StrEnum):
    """The timed steps of one history size, in the order the page lists them."""

    HISTORY_BUILD = "history_build"
    INCREMENTAL = "incremental"
    FULL_REFRESH = "full_refresh"
    FLOOR = "floor"
    FLOOR_FULL = "floor_full"
    PEER_HISTORY = "peer_history"
    PEER_INCREMENTAL = "peer_incremental"
    PEER_CORRECT = "peer_correct"
    GROWN_HISTORY = "grown_history"
    GROWN_INCREMENTAL = "grown_incremental"


class Mode(enum.StrEnum):
    """Which sizes a DuckDB run measured: the committed page (full), make bench-quick, the CI smoke, or others."""

    FULL = "full"
    QUICK = "quick"
    SMALL = "small"
    CUSTOM = "custom"  # sizes given one by one (--size 1M,3M)


FLOORS = (Step.FLOOR, Step.FLOOR_FULL)


@dataclasses.dataclass(frozen=True)
class Phases:
    """A dbt process's wall time in phases (bench/measure.py wall_phases), seconds."""

    start: float
    parse: float
    run: float
    artifacts: float
    exit: float
    full_parse: str | None = None  # why dbt parsed the whole project again; None: a partial parse


@dataclasses.dataclass(frozen=True)
class Run:
    """One timed process. `inside_s` is the time inside the engine, on which ratios are judged: the
    models' summed execution_time for dbt, the time inside DuckDB for the floor."""

    wall_s: float
    inside_s: float | None = None
    tests_s: float | None = None
    hooks_s: float | None = None
    dbt_elapsed_s: float | None = None
    overhead_s: float | None = None  # wall - dbt's elapsed: start-up and parse
    peak_rss_mb: float | None = None
    load_before: float | None = None
    load_after: float | None = None
    models: dict[str, float] = dataclasses.field(default_factory=dict)
    statements: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict)
    floor_statements: tuple[tuple[str, float], ...] = ()
    phases: Phases | None = None


@dataclasses.dataclass(frozen=True)
class TableDiff:
    table: str
    only_a: int
    only_b: int

    @property
    def equal(self) -> bool:
        return self.only_a == 0 and self.only_b == 0


@dataclasses.dataclass(frozen=True)
class Repeat:
    inside_s: float
    wall_s: float


@dataclasses.dataclass(frozen=True)
class PeerCheck:
    """What the microbatch peer (lookback 3) gets wrong after the batch, against our tables."""

    window_start: str
    equal: bool
    diff_rows: int
    days_wrong: int
    abs_net_cents_wrong: int
    batch_late_rows: int
    batch_late_rows_before_window: int
    changed_events_touching_days_before_window: int


@dataclasses.dataclass(frozen=True)
class PeerCorrect:
    """The peer run again with a window wide enough to be right."""

    window_start: str
    window_days: int
    equal: bool
    diff_rows: int
    days_wrong: int


@dataclasses.dataclass(frozen=True)
class MemoryRun:
    limit: str
    completed: bool
    spill_peak_mb: float
    error: str | None = None
    peak_rss_mb: float | None = None
    wall_s: float | None = None
    inside_s: float | None = None


@dataclasses.dataclass(frozen=True)
class Idempotency:
    method: str
    passed: bool
    rc: int
    wall_s: float
    peak_rss_mb: float | None = None
    load_before: float | None = None
    load_after: float | None = None


@dataclasses.dataclass(frozen=True)
class SizeResult:
    """Everything measured at one history size."""

    n: int
    label: str
    days: int
    events_per_day: int
    history_files: int
    batch_files: int
    history_mb: float
    batch_mb: float
    history_rows: int
    history_events: int
    batch_rows: int
    history_cmd: str
    runs: dict[Step, Run]
    generate_s: float | None = None
    repeats: dict[Step, tuple[Repeat, ...]] = dataclasses.field(default_factory=dict)
    floor_vs_dbt: tuple[TableDiff, ...] = ()
    full_vs_incremental: tuple[TableDiff, ...] = ()
    full_vs_floor_full: tuple[TableDiff, ...] = ()
    peer_history_batches: str | None = None
    peer: PeerCheck | None = None
    peer_correct: PeerCorrect | None = None
    memory_run: MemoryRun | None = None
    idempotency: Idempotency | None = None
    grown_steps: int = 0  # the history grown in this many runs beside the one built at once (0: not)
    grown_vs_once: tuple[TableDiff, ...] = ()
    grown_registry_runs: int = 0  # runs the grown warehouse's registry holds after the batch

    def run(self, step: Step) -> Run | None:
        return self.runs.get(step)

    @property
    def repeat_count(self) -> int:
        return len(self.repeats.get(Step.INCREMENTAL, ()))


@dataclasses.dataclass(frozen=True)
class Machine:
    cpu: str
    nproc: int
    mem_gb: float
    os: str
    python: str
    dbt_core: str
    dbt_duckdb: str
    duckdb: str
    dbt_threads: int
    memory_limit: str
    commit: str
    dirty_files: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Results:
    """One run of the size sweep on DuckDB: what docs/benchmarks.md is rendered from."""

    mode: Mode
    generated_at: str  # "YYYY-MM-DD HH:MM UTC"
    seed: int
    machine: Machine
    sizes: tuple[SizeResult, ...]
    total_s: float | None = None
    t_target_min: float = 30.0
    idempotency_size: int = -1
    schema: int = SCHEMA


T = TypeVar("T")


def _to_json(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {str(_to_json(k)): _to_json(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_to_json(v) for v in value]
    return value


def _from_json(kind: Any, value: Any) -> Any:
    """`value` (from json.loads) as an instance of the type annotation `kind`."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return None
        return _from_json(next(a for a in args if a is not type(None)), value)
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        hints = typing.get_type_hints(kind)
        known = {f.name for f in dataclasses.fields(kind)}
        unknown = set(value) - known
        if unknown:
            raise ValueError(f"{kind.__name__}: unknown fields {sorted(unknown)}")
        return kind(**{k: _from_json(hints[k], v) for k, v in value.items()})
    if origin is dict:
        return {_from_json(args[0], k): _from_json(args[1], v) for k, v in value.items()}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from_json(args[0], v) for v in value)
        return tuple(_from_json(a, v) for a, v in zip(args, value, strict=True))
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return kind(value)
    if kind is float and isinstance(value, int):
        return float(value)
    return value


def dumps(record: object) -> str:
    return json.dumps(_to_json(record), indent=1) + "\n"


def loads(kind: type[T], text: str) -> T:
    value: T = _from_json(kind, json.loads(text))
    return value


def save(record: object, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(record))


def load(kind: type[T], path: Path) -> T:
    return loads(kind, path.read_text())
