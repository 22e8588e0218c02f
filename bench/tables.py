"""The Markdown tables of docs/benchmarks.md, each from the typed results (bench/results.py)."""

from __future__ import annotations

from collections.abc import Sequence

from bench.ratios import Ratio
from bench.results import FLOORS, Run, SizeResult, Step, TableDiff


def fmt(v: float | None, nd: int = 2) -> str:
    return "-" if v is None else f"{v:,.{nd}f}"


def overhead(x: Run) -> str:
    if x.dbt_elapsed_s is not None:
        return fmt(x.overhead_s)
    v = (x.overhead_s or 0.0) + (x.hooks_s or 0.0)
    return fmt(v) if v >= 0 else "n/a (models overlapped)"


def load(x: Run | None) -> str:
    if x is None or x.load_before is None or x.load_after is None:
        return "-"
    return f"{x.load_before:.1f} / {x.load_after:.1f}"


def step_titles(r: SizeResult) -> list[tuple[Step, str]]:
    mem = f", memory_limit {r.memory_run.limit}" if r.memory_run and r.memory_run.completed else ""
    best = f", the fastest of {r.repeat_count}" if r.repeat_count > 1 else ""
    window = f" (from {r.peer_correct.window_start})" if r.peer_correct else ""
    return [
        (Step.HISTORY_BUILD, f"dbt {r.history_cmd} (history{mem})"),
        (Step.INCREMENTAL, f"dbt run (incremental, +1 batch{best})"),
        (Step.FULL_REFRESH, "dbt run --full-refresh"),
        (Step.FLOOR, f"floor: bench/floor.sql (DuckDB{best})"),
        (Step.FLOOR_FULL, "one-pass floor: bench/floor.py --full-from"),
        (Step.PEER_HISTORY, f"microbatch peer: dbt run (history, {r.peer_history_batches or 'day'} batches)"),
        (Step.PEER_INCREMENTAL, "microbatch peer: dbt run (lookback 3)"),
        (Step.PEER_CORRECT, "microbatch peer: dbt run, window wide enough to be right" + window),
        (Step.GROWN_HISTORY, f"the same history grown by {r.grown_steps} dbt runs (their sums; the largest peak)"),
        (Step.GROWN_INCREMENTAL, f"dbt run (incremental on the grown history, +1 batch{best})"),
    ]


def size_table(r: SizeResult) -> list[str]:
    rows = [
        "| step | command | wall s | model s | tests s | dbt overhead s | peak RSS MB | load avg before/after |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for step, title in step_titles(r):
        x = r.runs.get(step)
        if x is None:
            continue
        if step in FLOORS:
            rows.append(
                f"| {step} | {title} | {fmt(x.wall_s)} | {fmt(x.inside_s)} | - | "
                f"{fmt(x.wall_s - (x.inside_s or 0.0))} | {fmt(x.peak_rss_mb, 0)} | {load(x)} |"
            )
        else:
            rows.append(
                f"| {step} | {title} | {fmt(x.wall_s)} | {fmt(x.inside_s)} | {fmt(x.tests_s)} | "
                f"{overhead(x)} | {fmt(x.peak_rss_mb, 0)} | {load(x)} |"
            )
    if idem := r.idempotency:
        loads = (
            f"{idem.load_before:.1f} / {idem.load_after:.1f}"
            if idem.load_before is not None and idem.load_after is not None
            else "-"
        )
        rows.append(
            f"| idempotency | {idem.method} | {fmt(idem.wall_s)} | - | - | - | {fmt(idem.peak_rss_mb, 0)} | {loads} |"
        )
    return rows


def _model_names(sizes: Sequence[SizeResult], step: Step) -> list[str]:
    names: list[str] = []
    for r in sizes:
        run = r.runs.get(step)
        for name in run.models if run else {}:
            if name not in names:
                names.append(name)
    return names


def model_breakdown(sizes: Sequence[SizeResult], step: Step) -> list[str]:
    runs = [r.runs.get(step) for r in sizes]
    rows = ["| model | " + " | ".join(r.label for r in sizes) + " |", "|---|" + "---:|" * len(sizes)]
    for name in _model_names(sizes, step):
        rows.append(f"| {name} | " + " | ".join(fmt(x.models.get(name) if x else None) for x in runs) + " |")
    rows.append("| **sum of models** | " + " | ".join(fmt(x.inside_s if x else None) for x in runs) + " |")
    rows.append(
        "| dbt start-up, parse (wall - dbt elapsed) | " + " | ".join(overhead(x) if x else "-" for x in runs) + " |"
    )
    rows.append("| **wall** | " + " | ".join(fmt(x.wall_s if x else None) for x in runs) + " |")
    return rows


PHASE_NAMES = (
    ("start", "start: process and Python imports, to dbt's first log line"),
    ("parse", "parse: project, partial parse, manifest"),
    ("run", "run: hooks, adapter cache, models (dbt's elapsed)"),
    ("artifacts", "artifacts: run_results, manifest, summary"),
    ("exit", "exit: connections closed, interpreter shutdown"),
)


def phase_table(runs: Sequence[tuple[str, Run]], step: Step) -> list[str]:
    """The wall time of `step`, one column per (label, run), in phases, with the models' sum beside the
    run phase; [] when no run has them."""
    runs = [(name, x) for name, x in runs if x.phases is not None]
    if not runs:
        return []
    rows = [
        f"The `{step}` run's wall time in phases (seconds; from dbt's JSON log timestamps and the wall clock, "
        "bench/measure.py wall_phases):",
        "",
        "| phase | " + " | ".join(name for name, _x in runs) + " |",
        "|---|" + "---:|" * len(runs),
    ]
    for key, title in PHASE_NAMES:
        rows.append(f"| {title} | " + " | ".join(fmt(getattr(x.phases, key)) for _r, x in runs) + " |")
    rows.append(
        "| the whole project parsed again (no partial parse) | "
        + " | ".join(f"yes: {x.phases.full_parse}" if x.phases and x.phases.full_parse else "no" for _r, x in runs)
        + " |"
    )
    rows.append("| of the run phase, in models | " + " | ".join(fmt(x.inside_s) for _r, x in runs) + " |")
    rows.append(
        "| of the run phase, DuckDB's checkpoint (the last on-run-end hook) | "
        + " | ".join(fmt(x.statements.get("(run level)", {}).get("checkpoint")) for _r, x in runs)
        + " |"
    )
    rows.append("| **wall** | " + " | ".join(fmt(x.wall_s) for _r, x in runs) + " |")
    return [*rows, ""]


def statement_table(r: SizeResult, step: Step) -> list[str]:
    run = r.runs.get(step)
    st = run.statements if run else {}
    kinds = sorted({k for v in st.values() for k in v})
    rows = ["| node | " + " | ".join(kinds) + " |", "|---|" + "---:|" * len(kinds)]
    for node, per in sorted(st.items(), key=lambda kv: -sum(kv[1].values())):
        rows.append(f"| {node} | " + " | ".join(fmt(per.get(k)) for k in kinds) + " |")
    return rows


def landing_door_table(sizes: Sequence[SizeResult]) -> list[str]:
    rows = [
        "| history | files, MB | inspection of every file (history build) | per MB | incremental (new batch + "
        "stat of all) |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in sizes:
        hb, inc = r.runs.get(Step.HISTORY_BUILD), r.runs.get(Step.INCREMENTAL)
        hist = hb.models.get("stg_landing__deliveries") if hb else None
        new = inc.models.get("stg_landing__deliveries") if inc else None
        per_mb = hist / r.history_mb if hist and r.history_mb else None
        rows.append(
            f"| {r.label} | {r.history_files:,}, {r.history_mb:,.0f} | {fmt(hist)} s | {fmt(per_mb, 3)} s "
            f"| {fmt(new)} s |"
        )
    return rows


def ratio_table(rows: Sequence[Ratio]) -> list[str]:
    out = ["| id | ratio | wall | models only | target | verdict |", "|---|---|---:|---:|---|---|"]
    for o in rows:
        tgt = "-" if o.target is None else ("<= " if o.at_most else ">= ") + f"{o.target:g}"
        note = f" ({o.note})" if o.note else ""
        out.append(f"| {o.id} | {o.name} | {fmt(o.wall)} | {fmt(o.inside)} | {tgt} | **{o.verdict}**{note} |")
    return out


def diff_line(title: str, diffs: Sequence[TableDiff]) -> str:
    return f"- {title}: " + ", ".join(
        f"{d.table} **equal**" if d.equal else f"{d.table} **NOT equal** ({d.only_a} / {d.only_b} rows differ)"
        for d in diffs
    )
