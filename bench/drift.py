"""Does the incremental run stay fast over many days? 100 consecutive daily batches on a 10M history.

    .venv/bin/python -m bench drift                    # make bench-drift: 10M history, 100 runs, ~31 min
    .venv/bin/python -m bench drift --history 200000 --runs 5 --out /tmp/d --doc /tmp/d/drift.md   # smoke

One process on this machine, the generator and dbt invocations of bench/measure.py:

1. generate ``history / batch_events + runs + 1 + wide`` delivery days (seed 7, every pathology);
2. ``dbt run`` the history (every file dated before the first batch day);
3. land one more day and ``dbt run``, ``--runs`` times: t_inc per run (model time from
   run_results.json), the rows each run loaded, peak RSS;
4. the layout test: two copies of the warehouse, one rewritten by ``dbt run --full-refresh``
   (the compaction: every model that a full refresh rebuilds written again in day order; the
   file inspection, the ledger and the recorded corrections are ``full_refresh=false`` and keep
   their layout), then the next two days landed on both, the first day's run as-is first and the
   second's compacted first (A-B, B-A: neither copy always has the warmer page cache). The
   history has grown by ``runs`` days since run 1, so the drift of t_inc over the runs mixes two
   causes; the as-is / compacted ratio on the same batches and history is the layout's share;
5. memory against the batch: the peak RSS of every run against the rows it loaded, and one run
   of ``--wide`` days landed at once.

Writes the record to ``<doc>.results.json`` beside the Markdown report ``--doc``
(docs/benchmarks-drift.md) and renders the page and its PNG from it. Nothing here asserts a timing.
``--render-only`` renders the page again from that file, running nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from bench import measure
from bench.common import (
    BENCH,
    BENCH_NOW,
    ROOT,
    START,
    bench_env,
    label,
    link_files,
    log,
    machine,
    remove,
    snapshot_project,
    utc_now,
)
from bench.compare import fct_pairs, scalar, table_diff
from bench.measure import dbt
from bench.records import DriftMachine, DriftPair, DriftResults, DriftRun, Timed
from bench.results import TableDiff, load, save
from bench.tables import fmt
from pipeline_demo.generate import GeneratorConfig, generate

# How a run's peak RSS was read: through the wrapper process (bench/measure.py), or, in runs before
# it, from the child directly (os.wait4), which the page then says.
RSS_PROBE = "wrapper"
RSS_CAVEAT = (
    "The peak RSS figures of this run were read from the child directly, without the wrapper process: "
    "each is at least the benchmark process's own peak at the time (Linux copies it into a forked child), "
    "so a figure below that peak is hidden by it; equal figures in one table are the benchmark's, not "
    "the step's."
)
DRIFT_TARGET = 0.20  # the threshold: more drift than this needs a compaction step


def _copy(src: Path, dst: Path) -> None:
    for suffix in ("", ".wal"):
        if Path(f"{src}{suffix}").exists():
            shutil.copyfile(f"{src}{suffix}", f"{dst}{suffix}")


def _loaded_rows(wh: Path) -> int:
    return scalar(
        wh,
        "select count(*) from main.stg_landing__events where _loaded_run_seq = "
        "(select max(_loaded_run_seq) from main.stg_landing__events)",
    )


def _inc(project: Path, env: dict[str, str], wh: Path, work: Path, vars_: dict[str, str], name: str) -> DriftRun:
    r = dbt(
        project,
        ["run"],
        dict(env, DBT_DUCKDB_PATH=str(wh)),
        work / f"target_{wh.stem}",
        work / "logs" / name,
        vars_,
        name,
    )
    return DriftRun(
        model_s=r.inside_s,
        rows=_loaded_rows(wh),
        peak_rss_mb=r.peak_rss_mb,
        wall_s=r.wall_s,
        load_before=r.load_before,
        models=dict(r.models),
    )


def _deliveries(a: argparse.Namespace, work: Path) -> tuple[list[Path], int]:
    """Generate (or reuse) every day the run lands: (the files, the history's days)."""
    epd = a.batch_events
    hist_days = max(2, a.history // epd)
    total_days = hist_days + a.runs + 2 + a.wide
    cfg = GeneratorConfig(seed=a.seed, start_date=START, days=total_days, events_per_day=epd)
    deliveries = work / "deliveries"
    marker = deliveries / "_config.json"
    key = json.dumps(dataclasses.asdict(cfg), default=str, sort_keys=True)
    if not (marker.exists() and marker.read_text() == key):
        shutil.rmtree(deliveries, ignore_errors=True)
        log(f"drift: generating {total_days} days x {epd:,} events")
        generate(cfg, deliveries)
        marker.write_text(key)
    for folder in ("landing", "logs"):
        shutil.rmtree(work / folder, ignore_errors=True)
    for db in work.glob("*.duckdb*"):
        remove(db)
    return sorted(deliveries.glob("*.csv")), hist_days


def _day(i: int) -> str:
    return (START + dt.timedelta(days=i)).isoformat()


def _on(files: list[Path], i: int) -> list[Path]:
    return [f for f in files if f.name[:10] == _day(i)]


def _layout_test(
    project: Path, env: dict[str, str], work: Path, vars_: dict[str, str], files: list[Path], nxt: int
) -> tuple[Timed, tuple[DriftPair, ...], tuple[TableDiff, ...]]:
    """The same next batches on the warehouse as the runs left it and on a copy rewritten by
    --full-refresh, in A-B then B-A order (no third copy: at 20M events each is ~13 GB)."""
    as_is, compact = work / "wh.duckdb", work / "compact.duckdb"
    _copy(as_is, compact)
    log("drift: compaction (dbt run --full-refresh on a copy)")
    c = dbt(
        project,
        ["run", "--full-refresh"],
        dict(env, DBT_DUCKDB_PATH=str(compact)),
        work / "target_compact",
        work / "logs" / "compaction",
        vars_,
        "compaction",
    )
    compaction = Timed(c.wall_s, c.inside_s, c.peak_rss_mb, compact.stat().st_size / 1e6)
    pairs = []
    name = {as_is: "as_is", compact: "compact"}
    for j, order in enumerate(((as_is, compact), (compact, as_is))):
        link_files(_on(files, nxt + j), work / "landing")
        got = {name[db]: _inc(project, env, db, work, vars_, f"next_{j + 1}_{name[db]}") for db in order}
        pairs.append(DriftPair(day=_day(nxt + j), first=name[order[0]], as_is=got["as_is"], compact=got["compact"]))
    return compaction, tuple(pairs), table_diff(as_is, compact, fct_pairs())


def run_drift(a: argparse.Namespace, env: dict[str, str], project: Path, d: DriftResults, saved: Path) -> DriftResults:
    """Every step of the module docstring, in order; the record is saved after each daily run."""
    work = Path(a.out)
    files, hist_days = _deliveries(a, work)
    landing = work / "landing"
    link_files([f for f in files if f.name[:10] < _day(hist_days)], landing)
    wh = work / "wh.duckdb"
    vars_ = {"landing_path": str(landing), "rerun_safe_now": BENCH_NOW}  # bench/common.py: why
    e = dict(env, DBT_DUCKDB_PATH=str(wh))
    log(f"drift: dbt run (history, {hist_days} days)")
    dbt(project, ["seed"], e, work / "target_wh", work / "logs" / "seed", vars_, "seed")
    h = dbt(project, ["run"], e, work / "target_wh", work / "logs" / "history", vars_, "history")
    d = dataclasses.replace(d, history_build=Timed(h.wall_s, h.inside_s, h.peak_rss_mb))
    t0 = time.perf_counter()
    for i in range(a.runs):
        link_files(_on(files, hist_days + i), landing)
        r = dataclasses.replace(
            _inc(project, env, wh, work, vars_, f"run_{i + 1:03d}"), run=i + 1, day=_day(hist_days + i)
        )
        d = dataclasses.replace(d, runs=(*d.runs, r))
        log(
            f"drift: run {i + 1}/{a.runs} ({r.day}): {r.model_s or 0:.2f} model-s, {r.rows or 0:,} rows, "
            f"{r.peak_rss_mb or 0:,.0f} MB"
        )
        save(d, saved)  # a run stopped part-way keeps the runs it measured
    nxt = hist_days + a.runs
    d = dataclasses.replace(
        d,
        runs_wall_s=time.perf_counter() - t0,
        size_after_mb=sum(p.stat().st_size for p in work.glob("wh.duckdb*")) / 1e6,
    )
    compaction, pairs, equal = _layout_test(project, env, work, vars_, files, nxt)
    d = dataclasses.replace(d, compaction=compaction, next_pairs=pairs, next_equal=equal)
    if a.wide:  # memory against the batch: several days landed at once
        link_files([f for i in range(nxt + 2, nxt + 2 + a.wide) for f in _on(files, i)], landing)
        d = dataclasses.replace(d, wide=dataclasses.replace(_inc(project, env, wh, work, vars_, "wide"), days=a.wide))
    if not a.keep:
        for db in work.glob("*.duckdb*"):
            remove(db)
        shutil.rmtree(landing, ignore_errors=True)
    return d


def _change(x: float | None, y: float | None) -> float | None:
    """x / y - 1; None without both (no model time recorded)."""
    return x / y - 1 if x and y else None


def _mean(values: list[float | None]) -> float:
    return float(statistics.mean(v or 0.0 for v in values))


@dataclasses.dataclass(frozen=True)
class Summary:
    """The means of the first and last k runs, the drift, the same per loaded row, the layout's share."""

    k: int
    first: float
    last: float
    drift: float | None
    per_row_first: float
    per_row_last: float
    drift_per_row: float | None
    layout: float | None


def summary(d: DriftResults) -> Summary:
    runs = d.runs
    k = max(1, min(10, len(runs) // 4))
    first, last = _mean([r.model_s for r in runs[:k]]), _mean([r.model_s for r in runs[-k:]])
    per_first = _mean([(r.model_s or 0.0) / max(1, r.rows or 0) * 1e6 for r in runs[:k]])
    per_last = _mean([(r.model_s or 0.0) / max(1, r.rows or 0) * 1e6 for r in runs[-k:]])
    pairs = d.next_pairs
    layout = (
        _change(_mean([x.as_is.model_s for x in pairs]), _mean([x.compact.model_s for x in pairs])) if pairs else None
    )
    return Summary(k, first, last, _change(last, first), per_first, per_last, _change(per_last, per_first), layout)


def pct(v: float | None) -> str:
    return "-" if v is None else f"{v * 100:+.1f} %"


def _header(d: DriftResults) -> list[str]:
    runs, mach = d.runs, d.machine
    return [
        f"# Benchmark: incremental cost over {len(runs)} consecutive daily batches",
        "",
        f"Generated by `python -m bench drift` (`make bench-drift`) from results.json, measured "
        f"{d.generated_at}, code at commit {mach.commit}; {mach.cpu}, nproc "
        f"{mach.nproc}, {mach.mem_gb} GB; dbt threads {mach.dbt_threads}, DuckDB memory_limit "
        f"{mach.memory_limit}. One run, no repetitions.",
        "",
        "## Method",
        "",
        f"A history of {d.history_events:,} events ({d.history_days} days x {d.events_per_day:,}, seed "
        f"{d.seed}, every pathology of the generator) is built with one `dbt run`. Then {len(runs)} days are "
        "landed one at a time, each followed by `dbt run` (t_inc: the models' summed `execution_time`). The "
        f"history grows by {len(runs)} days meanwhile, so the drift from the first runs to the last mixes the "
        "growth of the history with the decay of the layout (rows deleted and re-inserted out of day order by "
        "every run). The layout's share alone: two copies of the warehouse after the runs, one rewritten by "
        "`dbt run --full-refresh` (the compaction: every model a full refresh rebuilds is written again in day "
        "order; the file inspection, the ledger and the recorded corrections are `full_refresh=false` and keep "
        "their layout), then the next two days landed on both, the first run as-is first and the second "
        "compacted first, so that neither copy always has the warmer page cache.",
        "",
    ]


def _result(d: DriftResults, s: Summary) -> list[str]:
    runs, hb = d.runs, d.history_build
    out = [
        "## Result",
        "",
        "| measure | value |",
        "|---|---:|",
        f"| history build ({d.history_days} days), wall | {fmt(hb.wall_s if hb else None)} s |",
        f"| t_inc, mean of runs 1-{s.k} | {fmt(s.first)} model-s |",
        f"| t_inc, mean of runs {len(runs) - s.k + 1}-{len(runs)} | {fmt(s.last)} model-s |",
        f"| **drift** of t_inc, last / first - 1 | **{pct(s.drift)}** |",
        f"| the same per loaded row (us per row) | {fmt(s.per_row_first)} -> {fmt(s.per_row_last)} "
        f"({pct(s.drift_per_row)}) |",
    ]
    if d.next_pairs and d.compaction:
        for x in d.next_pairs:
            out.append(
                f"| next day {x.day} ({x.first.replace('_', '-')} first): as-is / compacted | "
                f"{fmt(x.as_is.model_s)} / {fmt(x.compact.model_s)} model-s |"
            )
        eq = all(x.equal for x in d.next_equal)
        out += [
            f"| **layout's share**: as-is / compacted - 1 (mean of both days) | **{pct(s.layout)}** |",
            f"| business tables, as-is vs compacted after those days | {'equal' if eq else 'NOT equal'} |",
            f"| compaction: full refresh of {d.history_days + len(runs)} days, wall | {fmt(d.compaction.wall_s)} s |",
            f"| warehouse file after the runs / the compacted copy | {d.size_after_mb or 0:,.0f} MB / "
            f"{d.compaction.size_mb or 0:,.0f} MB |",
        ]
    out += [f"| all {len(runs)} runs, wall (dbt start-up included) | {d.runs_wall_s / 60:.1f} min |", ""]
    if s.drift is not None and s.layout is not None:
        if s.drift <= DRIFT_TARGET:
            verdict = "within the 20 % threshold: no compaction step is needed"
        elif s.layout <= DRIFT_TARGET / 2:
            verdict = (
                "past the 20 % threshold, and not the layout's doing: a compaction buys back only "
                f"{pct(s.layout)}, the rest is the cost of the larger history (R1 in benchmarks.md)"
            )
        else:
            verdict = "past the 20 % threshold; the compaction (the full refresh) buys back the layout's share"
        out += [
            f"Verdict: the drift over {len(runs)} runs is {pct(s.drift)}, {verdict}. The layout's share on "
            f"the same batches is {pct(s.layout)}.",
            "",
        ]
    return out


def _memory(d: DriftResults) -> list[str]:
    runs = d.runs
    out = [
        "## Memory against the batch",
        "",
        "Peak RSS of the dbt process (DuckDB inside it) for each incremental run, against the rows the run "
        "loaded (the batch day's files, redeliveries of older files included, so the batch size varies).",
        "",
        "| batch | runs | rows loaded (median) | peak RSS MB (median, max) | model-s (median) |",
        "|---|---:|---:|---:|---:|",
    ]
    srt = sorted(runs, key=lambda r: r.rows or 0)
    thirds = [srt[: len(srt) // 3], srt[len(srt) // 3 : 2 * len(srt) // 3], srt[2 * len(srt) // 3 :]]
    names: tuple[str, ...] = ("smallest third", "middle third", "largest third")
    if len(srt) < 3:
        thirds, names = [srt], ("every run",)
    for name, grp in zip(names, thirds, strict=True):
        if grp:
            out.append(
                f"| {name} | {len(grp)} | {statistics.median(r.rows or 0 for r in grp):,.0f} | "
                f"{statistics.median(r.peak_rss_mb or 0.0 for r in grp):,.0f}, "
                f"{max(r.peak_rss_mb or 0.0 for r in grp):,.0f} | "
                f"{fmt(statistics.median(r.model_s or 0.0 for r in grp))} |"
            )
    if w := d.wide:
        out.append(f"| {w.days} days at once | 1 | {w.rows or 0:,} | {w.peak_rss_mb or 0:,.0f} | {fmt(w.model_s)} |")
    out.append("")
    if d.machine.rss_probe != RSS_PROBE:
        out += [
            RSS_CAVEAT + " Here the benchmark process had only counted rows before each daily run, but it had "
            "diffed the business tables of both warehouses (EXCEPT ALL, in its own DuckDB) before the "
            f"{d.wide.days if d.wide else '-'}-day run, so that figure is an upper bound.",
            "",
        ]
    return out


def render(d: DriftResults, plot: Path | None) -> str:
    """The page, from the drift record alone (its results.json)."""
    s = summary(d)
    lines = [*_header(d), *_result(d, s)]
    if plot:
        lines += [f"![t_inc over consecutive runs]({plot.name})", ""]
    lines += [
        *_memory(d),
        "Per run (model-s, rows loaded, peak RSS MB), in order:",
        "",
        "| run | day | model-s | rows | peak RSS MB |",
        "|---:|---|---:|---:|---:|",
    ]
    lines += [f"| {r.run} | {r.day} | {fmt(r.model_s)} | {r.rows or 0:,} | {r.peak_rss_mb or 0:,.0f} |" for r in d.runs]
    return "\n".join([*lines, ""])


def _compaction_panel(cx: Any, pairs: tuple[DriftPair, ...], runs: int, gain: float | None) -> None:
    """The days after the runs on both copies, as-is and compacted, side by side."""
    width = 0.38
    for i, x in enumerate(pairs):
        for j, (c, name, colour) in enumerate((("as_is", "as-is", "C1"), ("compact", "compacted", "C2"))):
            v = getattr(x, c).model_s or 0.0
            at = i + (j - 0.5) * width
            cx.bar(at, v, width, color=colour)
            cx.annotate(f"{v:.2f}", (at, v), textcoords="offset points", xytext=(0, 3), ha="center", fontsize=8)
            cx.text(at, v * 0.04, name, rotation=90, ha="center", va="bottom", color="white", fontsize=9)
    cx.set_xticks(range(len(pairs)))
    cx.set_xticklabels([f"{x.day}\n({x.first.replace('_', '-')} first)" for x in pairs], fontsize=8)
    cx.set_xlabel(f"the {len(pairs)} days after run {runs}, on both copies")
    bought = (
        "compaction buys " + pct(gain).lstrip("+")
        if gain is not None and gain > 0
        else ("compaction buys nothing: " + pct(gain))
    )
    cx.set_title(bought + "\n(as-is / compacted - 1, mean of both days)", fontsize=10)
    cx.grid(True, axis="y", alpha=0.3)


def make_plot(d: DriftResults, path: Path) -> bool:
    """Left: t_inc of every daily run, with the means the drift compares. Right, when the layout test
    ran: the two days after the runs on both copies, as-is and compacted, side by side: what the
    compaction bought. Its own panel: those days come after every run, on a larger history."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        return False
    runs, s = d.runs, summary(d)
    pairs = d.next_pairs
    if pairs:
        fig, (ax, cx) = plt.subplots(1, 2, figsize=(12, 5), sharey=True, gridspec_kw={"width_ratios": [3, 1]})
    else:
        fig, ax = plt.subplots(figsize=(11, 5))
    xs = [r.run for r in runs]
    ax.plot(xs, [r.model_s or 0.0 for r in runs], "o-", ms=3, lw=1, color="C0", label="t_inc of each run")
    k = s.k
    for grp, mean, where in ((xs[:k], s.first, "first"), (xs[-k:], s.last, "last")):
        ax.plot(
            [grp[0], grp[-1]],
            [mean, mean],
            color="k",
            lw=3,
            solid_capstyle="butt",
            label=f"mean of the first and last {k} runs" if where == "first" else None,
        )
        ax.annotate(
            f"mean {mean:.2f} s",
            (statistics.mean(grp), mean),
            textcoords="offset points",
            xytext=(0, -30),
            ha="center",
            fontsize=9,
            bbox={"fc": "white", "ec": "k", "lw": 0.5},
            arrowprops={"arrowstyle": "-", "lw": 0.5},
        )
    ax.set_xlabel(f"daily run (each lands one more day of {d.events_per_day:,} events, then `dbt run`)")
    ax.set_ylabel("t_inc, model seconds (sum of the models' execution_time)")
    ax.set_ylim(
        bottom=0,
        top=max([r.model_s or 0.0 for r in runs] + [y.model_s or 0.0 for x in pairs for y in (x.as_is, x.compact)])
        * 1.15,
    )
    ax.set_title(
        f"{len(runs)} runs on a {label(d.history_events)}-event history that grows by one day "
        f"a run:\nt_inc drifts {pct(s.drift)} (last {k} / first {k} - 1; "
        f"threshold {DRIFT_TARGET * 100:.0f} %)",
        fontsize=10,
    )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    if pairs:
        _compaction_panel(cx, pairs, len(runs), s.layout)
    verdict = (
        "within the threshold: no compaction step needed"
        if s.drift is not None and s.drift <= DRIFT_TARGET
        else "past the threshold"
    )
    fig.suptitle(f"rerun_safe: incremental cost over {len(runs)} consecutive daily batches, {verdict}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def results_path(doc: Path) -> Path:
    return doc.with_suffix(".results.json")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench drift", description="t_inc over consecutive daily batches (docs/benchmarks-drift.md)"
    )
    p.add_argument("--history", type=int, default=10_000_000, help="events in the history (default 10M)")
    p.add_argument("--runs", type=int, default=100, help="consecutive daily batches (default 100)")
    p.add_argument("--batch-events", type=int, default=100_000, help="events per delivery day (default 100000)")
    p.add_argument(
        "--wide",
        type=int,
        default=10,
        help="after the runs, this many days landed at once: memory of a bigger batch (0: skip)",
    )
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--threads", type=int, default=1, help="dbt threads (default 1, as the size sweep)")
    p.add_argument("--out", type=Path, default=BENCH / "out-drift", help="work folder")
    p.add_argument(
        "--doc",
        type=Path,
        default=ROOT / "docs" / "benchmarks-drift.md",
        help="Markdown report; its results.json goes beside it",
    )
    p.add_argument("--keep", action="store_true", help="keep the warehouses and the landing folder")
    p.add_argument("--render-only", action="store_true", help="measure nothing: the page again from its results.json")
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    a = p.parse_args(argv)
    if a.history < 1 or a.runs < 2 or a.batch_events < 1 or a.wide < 0 or a.threads < 1:
        p.error("--history, --batch-events, --threads must be positive, --runs at least 2, --wide at least 0")
    doc = a.doc.resolve()
    if a.render_only:
        d = load(DriftResults, results_path(doc))
    else:
        a.out = a.out.resolve()
        a.out.mkdir(parents=True, exist_ok=True)
        env = bench_env()
        measure.DBT_THREADS = a.threads
        project, commit, dirty = snapshot_project(a.out / "project")
        m = machine(a.threads, env["DBT_DUCKDB_MEMORY_LIMIT"], commit, dirty)
        mach = DriftMachine(m.cpu, m.nproc, m.mem_gb, a.threads, m.memory_limit, commit, RSS_PROBE, dirty)
        hist_days = max(2, a.history // a.batch_events)
        d = DriftResults(
            machine=mach,
            history_events=hist_days * a.batch_events,
            history_days=hist_days,
            events_per_day=a.batch_events,
            seed=a.seed,
        )
        d = dataclasses.replace(run_drift(a, env, project, d, results_path(doc)), generated_at=utc_now())
        save(d, results_path(doc))
    doc.parent.mkdir(parents=True, exist_ok=True)
    plot = doc.with_suffix(".png")
    has_plot = make_plot(d, plot)
    doc.write_text(render(d, plot if has_plot else None))
    s = summary(d)
    print(
        f"drift over {len(d.runs)} runs: {pct(s.drift)} (per row {pct(s.drift_per_row)}); "
        f"layout's share on the next batches: {pct(s.layout)}; wrote {doc}"
    )
    return 0
