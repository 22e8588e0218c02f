"""Does the incremental run stay fast over many days? 100 consecutive daily batches on a 10M history.

    .venv/bin/python bench/drift.py                    # make bench-drift: 10M history, 100 runs, ~31 min
    .venv/bin/python bench/drift.py --history 200000 --runs 5 --out /tmp/d --doc /tmp/d/drift.md   # smoke

One process on this machine, the generator and dbt invocations of bench/run.py:

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

Writes ``--out``/drift.json and the Markdown report ``--doc`` (docs/benchmarks-drift.md, which
docs/benchmarks.md includes) with a PNG plot next to it. Nothing here asserts a timing.

    .venv/bin/python bench/drift.py --replot-from docs/benchmarks-drift.md   # redraw its PNG, run nothing

redraws the plot from the page's own tables (drift.json is not kept), refusing a page whose per-run
table does not give its Result table.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import re
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run as bench  # noqa: E402  (bench/run.py: generator, dbt invocation, helpers)

DRIFT_TARGET = 0.20  # the threshold: more drift than this needs a compaction step


def _copy(src: Path, dst: Path) -> None:
    for suffix in ("", ".wal"):
        if Path(f"{src}{suffix}").exists():
            shutil.copyfile(f"{src}{suffix}", f"{dst}{suffix}")


def _loaded_rows(wh: Path) -> int:
    return bench.query(wh, "select count(*) from main.stg_landing__events where _loaded_run_seq = "
                           "(select max(_loaded_run_seq) from main.stg_landing__events)")[0][0]


def _inc(project: Path, env: dict, wh: Path, work: Path, vars_: dict, name: str) -> dict:
    r = bench.dbt(project, ["run"], dict(env, DBT_DUCKDB_PATH=str(wh)), work / f"target_{wh.stem}",
                  work / "logs" / name, vars_, name)
    return {"wall_s": r["wall_s"], "model_s": r["model_s"], "peak_rss_mb": r["peak_rss_mb"],
            "models": r["models"], "rows": _loaded_rows(wh), "load_before": r["load_before"]}


def measure(a: argparse.Namespace, env: dict, project: Path, mach: dict) -> dict:
    work = Path(a.out)
    epd = a.batch_events
    hist_days = max(2, a.history // epd)
    total_days = hist_days + a.runs + 2 + a.wide
    cfg = bench.GeneratorConfig(seed=a.seed, start_date=bench.START, days=total_days, events_per_day=epd)
    deliveries = work / "deliveries"
    marker = deliveries / "_config.json"
    key = json.dumps(dataclasses.asdict(cfg), default=str, sort_keys=True)
    if not (marker.exists() and marker.read_text() == key):
        shutil.rmtree(deliveries, ignore_errors=True)
        bench.log(f"drift: generating {total_days} days x {epd:,} events")
        bench.generate(cfg, deliveries)
        marker.write_text(key)
    for p in ("landing", "logs"):
        shutil.rmtree(work / p, ignore_errors=True)
    for p in work.glob("*.duckdb*"):
        bench.remove(p)
    files = sorted(deliveries.glob("*.csv"))
    day = lambda i: (bench.START + dt.timedelta(days=i)).isoformat()  # noqa: E731
    on = lambda i: [f for f in files if f.name[:10] == day(i)]  # noqa: E731
    landing = work / "landing"
    bench.link_files([f for f in files if f.name[:10] < day(hist_days)], landing)
    wh = work / "wh.duckdb"
    vars_ = {"landing_path": str(landing), "rerun_safe_now": bench.BENCH_NOW}  # bench/run.py: why
    e = dict(env, DBT_DUCKDB_PATH=str(wh))
    out: dict = {"history_events": hist_days * epd, "history_days": hist_days, "events_per_day": epd,
                 "runs": [], "seed": a.seed}
    bench.log(f"drift: dbt run (history, {hist_days} days)")
    bench.dbt(project, ["seed"], e, work / "target_wh", work / "logs" / "seed", vars_, "seed")
    h = bench.dbt(project, ["run"], e, work / "target_wh", work / "logs" / "history", vars_, "history")
    out["history_build"] = {"wall_s": h["wall_s"], "model_s": h["model_s"], "peak_rss_mb": h["peak_rss_mb"]}
    t0 = time.perf_counter()
    for i in range(a.runs):
        bench.link_files(on(hist_days + i), landing)
        r = _inc(project, env, wh, work, vars_, f"run_{i + 1:03d}")
        r.update(run=i + 1, day=day(hist_days + i))
        out["runs"].append(r)
        bench.log(f"drift: run {i + 1}/{a.runs} ({r['day']}): {r['model_s']:.2f} model-s, {r['rows']:,} rows, "
                  f"{r['peak_rss_mb']:,.0f} MB")
        Path(work, "drift.json").write_text(json.dumps({"machine": mach, "drift": out}, indent=1, default=str))
    out["runs_wall_s"] = time.perf_counter() - t0
    out["size_after_mb"] = sum(p.stat().st_size for p in work.glob("wh.duckdb*")) / 1e6

    # the layout test: the same next batches on a copy of the warehouse as the runs left it and on a
    # copy rewritten by --full-refresh, in A-B then B-A order
    as_is, compact = wh, work / "compact.duckdb"  # no third copy: at 20M events each is ~13 GB
    _copy(wh, compact)
    bench.log("drift: compaction (dbt run --full-refresh on a copy)")
    c = bench.dbt(project, ["run", "--full-refresh"], dict(env, DBT_DUCKDB_PATH=str(compact)),
                  work / "target_compact", work / "logs" / "compaction", vars_, "compaction")
    out["compaction"] = {"wall_s": c["wall_s"], "model_s": c["model_s"], "peak_rss_mb": c["peak_rss_mb"],
                         "size_mb": compact.stat().st_size / 1e6}
    nxt = hist_days + a.runs
    pairs = []
    for j, order in enumerate(((as_is, compact), (compact, as_is))):
        bench.link_files(on(nxt + j), landing)
        name = {as_is: "as_is", compact: "compact"}
        got = {name[db]: _inc(project, env, db, work, vars_, f"next_{j + 1}_{name[db]}") for db in order}
        pairs.append({"day": day(nxt + j), "first": name[order[0]], **got})
    out["next_pairs"] = pairs
    out["next_as_is"] = {"model_s": statistics.mean(x["as_is"]["model_s"] for x in pairs)}
    out["next_compacted"] = {"model_s": statistics.mean(x["compact"]["model_s"] for x in pairs)}
    out["next_equal"] = bench.table_diff(as_is, compact, bench.fct_pairs())

    # memory against the batch: several days landed at once
    if a.wide:
        bench.link_files([f for i in range(nxt + 2, nxt + 2 + a.wide) for f in on(i)], landing)
        out["wide"] = _inc(project, env, as_is, work, vars_, "wide")
        out["wide"]["days"] = a.wide
    if not a.keep:
        for p in work.glob("*.duckdb*"):
            bench.remove(p)
        shutil.rmtree(landing, ignore_errors=True)
    return out


def summary(d: dict) -> dict:
    runs = d["runs"]
    k = max(1, min(10, len(runs) // 4))
    first = statistics.mean(r["model_s"] for r in runs[:k])
    last = statistics.mean(r["model_s"] for r in runs[-k:])
    per_row = lambda rs: statistics.mean(r["model_s"] / max(1, r["rows"]) * 1e6 for r in rs)  # noqa: E731
    change = lambda x, y: x / y - 1 if x and y else None  # noqa: E731  (None: no model time recorded)
    s = {"k": k, "first": first, "last": last, "drift": change(last, first),
         "per_row_first": per_row(runs[:k]), "per_row_last": per_row(runs[-k:])}
    s["drift_per_row"] = change(s["per_row_last"], s["per_row_first"])
    s["layout"] = (change(d["next_as_is"]["model_s"], d["next_compacted"]["model_s"])
                   if "next_as_is" in d else None)
    return s


def pct(v) -> str:
    return "-" if v is None else f"{v * 100:+.1f} %"


def render(d: dict, mach: dict, plot: Path | None) -> str:
    s = summary(d)
    runs = d["runs"]
    fmt = bench.fmt
    L: list[str] = []
    add = L.append
    add("# Benchmark: incremental cost over 100 consecutive daily batches" if len(runs) == 100
        else f"# Benchmark: incremental cost over {len(runs)} consecutive daily batches")
    add("")
    add(f"Generated by `bench/drift.py` (`make bench-drift`) on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"code at commit {mach.get('code', {}).get('commit', '?')}; {mach['cpu']}, nproc {mach['nproc']}, "
        f"{mach['mem_gb']} GB; dbt threads {mach.get('dbt_threads')}, DuckDB memory_limit "
        f"{mach.get('memory_limit', '8GB')}. One run, no repetitions.")
    add("")
    add("## Method")
    add("")
    add(f"A history of {d['history_events']:,} events ({d['history_days']} days x {d['events_per_day']:,}, seed "
        f"{d['seed']}, every pathology of the generator) is built with one `dbt run`. Then {len(runs)} days are "
        "landed one at a time, each followed by `dbt run` (t_inc: the models' summed `execution_time`). The "
        f"history grows by {len(runs)} days meanwhile, so the drift from the first runs to the last mixes the "
        "growth of the history with the decay of the layout (rows deleted and re-inserted out of day order by "
        "every run). The layout's share alone: two copies of the warehouse after the runs, one rewritten by "
        "`dbt run --full-refresh` (the compaction: every model a full refresh rebuilds is written again in day "
        "order; the file inspection, the ledger and the recorded corrections are `full_refresh=false` and keep "
        "their layout), then the next two days landed on both, the first run as-is first and the second "
        "compacted first, so that neither copy always has the warmer page cache.")
    add("")
    add("## Result")
    add("")
    add("| measure | value |")
    add("|---|---:|")
    add(f"| history build ({d['history_days']} days), wall | {fmt(d['history_build']['wall_s'])} s |")
    add(f"| t_inc, mean of runs 1-{s['k']} | {fmt(s['first'])} model-s |")
    add(f"| t_inc, mean of runs {len(runs) - s['k'] + 1}-{len(runs)} | {fmt(s['last'])} model-s |")
    add(f"| **drift** of t_inc, last / first - 1 | **{pct(s['drift'])}** |")
    add(f"| the same per loaded row (us per row) | {fmt(s['per_row_first'])} -> {fmt(s['per_row_last'])} "
        f"({pct(s['drift_per_row'])}) |")
    if "next_pairs" in d:
        for x in d["next_pairs"]:
            add(f"| next day {x['day']} ({x['first'].replace('_', '-')} first): as-is / compacted | "
                f"{fmt(x['as_is']['model_s'])} / {fmt(x['compact']['model_s'])} model-s |")
        add(f"| **layout's share**: as-is / compacted - 1 (mean of both days) | **{pct(s['layout'])}** |")
        eq = all(x["equal"] for x in d["next_equal"].values())
        add(f"| business tables, as-is vs compacted after those days | {'equal' if eq else 'NOT equal'} |")
        add(f"| compaction: full refresh of {d['history_days'] + len(runs)} days, wall | "
            f"{fmt(d['compaction']['wall_s'])} s |")
        add(f"| warehouse file after the runs / the compacted copy | {d['size_after_mb']:,.0f} MB / "
            f"{d['compaction']['size_mb']:,.0f} MB |")
    add(f"| all {len(runs)} runs, wall (dbt start-up included) | {d.get('runs_wall_s', 0) / 60:.1f} min |")
    add("")
    if s["drift"] is not None and s["layout"] is not None:
        if s["drift"] <= DRIFT_TARGET:
            verdict = "within the 20 % threshold: no compaction step is needed"
        elif s["layout"] <= DRIFT_TARGET / 2:
            verdict = ("past the 20 % threshold, and not the layout's doing: a compaction buys back only "
                       f"{pct(s['layout'])}, the rest is the cost of the larger history (R1 in benchmarks.md)")
        else:
            verdict = "past the 20 % threshold; the compaction (the full refresh) buys back the layout's share"
        add(f"Verdict: the drift over {len(runs)} runs is {pct(s['drift'])}, {verdict}. The layout's share on the "
            f"same batches is {pct(s['layout'])}.")
        add("")
    if plot:
        add(f"![t_inc over consecutive runs]({plot.name})")
        add("")
    add("## Memory against the batch")
    add("")
    add("Peak RSS of the dbt process (DuckDB inside it) for each incremental run, against the rows the run "
        "loaded (the batch day's files, redeliveries of older files included, so the batch size varies).")
    add("")
    add("| batch | runs | rows loaded (median) | peak RSS MB (median, max) | model-s (median) |")
    add("|---|---:|---:|---:|---:|")
    srt = sorted(runs, key=lambda r: r["rows"])
    thirds = [srt[: len(srt) // 3], srt[len(srt) // 3: 2 * len(srt) // 3], srt[2 * len(srt) // 3:]]
    names = ("smallest third", "middle third", "largest third")
    if len(srt) < 3:
        thirds, names = [srt], ("every run",)
    for name, grp in zip(names, thirds):
        if grp:
            add(f"| {name} | {len(grp)} | {statistics.median(r['rows'] for r in grp):,.0f} | "
                f"{statistics.median(r['peak_rss_mb'] for r in grp):,.0f}, {max(r['peak_rss_mb'] for r in grp):,.0f} | "
                f"{fmt(statistics.median(r['model_s'] for r in grp))} |")
    if "wide" in d:
        w = d["wide"]
        add(f"| {w['days']} days at once | 1 | {w['rows']:,} | {w['peak_rss_mb']:,.0f} | {fmt(w['model_s'])} |")
    add("")
    if mach.get("rss_probe") != bench.RSS_PROBE:
        add(bench.RSS_CAVEAT + " Here the benchmark process had only counted rows before each daily run, but "
            "it had diffed the business tables of both warehouses (EXCEPT ALL, in its own DuckDB) before the "
            f"{d.get('wide', {}).get('days', '-')}-day run, so that figure is an upper bound.")
        add("")
    add("Per run (model-s, rows loaded, peak RSS MB), in order:")
    add("")
    add("| run | day | model-s | rows | peak RSS MB |")
    add("|---:|---|---:|---:|---:|")
    for r in runs:
        add(f"| {r['run']} | {r['day']} | {fmt(r['model_s'])} | {r['rows']:,} | {r['peak_rss_mb']:,.0f} |")
    add("")
    return "\n".join(L)


def make_plot(d: dict, path: Path) -> bool:
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
    runs, s = d["runs"], summary(d)
    pairs = d.get("next_pairs") or []
    if pairs:
        fig, (ax, cx) = plt.subplots(1, 2, figsize=(12, 5), sharey=True, gridspec_kw={"width_ratios": [3, 1]})
    else:
        fig, ax = plt.subplots(figsize=(11, 5))
    xs = [r["run"] for r in runs]
    ax.plot(xs, [r["model_s"] for r in runs], "o-", ms=3, lw=1, color="C0", label="t_inc of each run")
    k = s["k"]
    for grp, mean, where in ((xs[:k], s["first"], "first"), (xs[-k:], s["last"], "last")):
        ax.plot([grp[0], grp[-1]], [mean, mean], color="k", lw=3, solid_capstyle="butt",
                label=f"mean of the first and last {k} runs" if where == "first" else None)
        ax.annotate(f"mean {mean:.2f} s", (statistics.mean(grp), mean), textcoords="offset points",
                    xytext=(0, -30), ha="center", fontsize=9, bbox={"fc": "white", "ec": "k", "lw": 0.5},
                    arrowprops={"arrowstyle": "-", "lw": 0.5})
    ax.set_xlabel(f"daily run (each lands one more day of {d['events_per_day']:,} events, then `dbt run`)")
    ax.set_ylabel("t_inc, model seconds (sum of the models' execution_time)")
    ax.set_ylim(bottom=0, top=max([r["model_s"] for r in runs]
                                  + [x[c]["model_s"] for x in pairs for c in ("as_is", "compact")]) * 1.15)
    ax.set_title(f"{len(runs)} runs on a {bench.label(d['history_events'])}-event history that grows by one day "
                 f"a run:\nt_inc drifts {pct(s['drift'])} (last {k} / first {k} - 1; "
                 f"threshold {DRIFT_TARGET * 100:.0f} %)", fontsize=10)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    if pairs:
        width = 0.38
        for i, x in enumerate(pairs):
            for j, (c, name, colour) in enumerate((("as_is", "as-is", "C1"), ("compact", "compacted", "C2"))):
                v = x[c]["model_s"]
                at = i + (j - 0.5) * width
                cx.bar(at, v, width, color=colour)
                cx.annotate(f"{v:.2f}", (at, v), textcoords="offset points", xytext=(0, 3), ha="center", fontsize=8)
                cx.text(at, v * 0.04, name, rotation=90, ha="center", va="bottom", color="white", fontsize=9)
        cx.set_xticks(range(len(pairs)))
        cx.set_xticklabels([f"{x['day']}\n({x['first'].replace('_', '-')} first)" for x in pairs], fontsize=8)
        cx.set_xlabel(f"the {len(pairs)} days after run {len(runs)}, on both copies")
        gain = s["layout"]
        cx.set_title(("compaction buys " + pct(gain).lstrip("+") if gain is not None and gain > 0 else
                      "compaction buys nothing: " + pct(gain))
                     + "\n(as-is / compacted - 1, mean of both days)", fontsize=10)
        cx.grid(True, axis="y", alpha=0.3)
    verdict = ("within the threshold: no compaction step needed" if s["drift"] is not None
               and s["drift"] <= DRIFT_TARGET else "past the threshold")
    fig.suptitle(f"rerun_safe: incremental cost over {len(runs)} consecutive daily batches, {verdict}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _number(cell: str) -> float:
    return float(cell.strip().strip("*").replace(",", ""))


def drift_from_page(text: str) -> dict:
    """The `d` make_plot draws, rebuilt from a page render() wrote: the history from its Method, every
    run from its per-run table, the layout test from its Result table, figures as the page shows them."""
    hist = re.search(r"A history of ([\d,]+) events \((\d+) days x ([\d,]+), seed (\d+)", text)
    if not hist:
        raise ValueError("no 'A history of N events (D days x E, seed S' in the page's Method")
    d: dict = {"history_events": int(hist[1].replace(",", "")), "history_days": int(hist[2]),
               "events_per_day": int(hist[3].replace(",", "")), "seed": int(hist[4]), "runs": []}
    per_run = text.split("\nPer run (", 1)[-1] if "\nPer run (" in text else ""
    for m in re.finditer(r"^\| (\d+) \| (\d{4}-\d\d-\d\d) \| ([\d.,]+) \| ([\d,]+) \| ([\d,]+) \|$", per_run,
                         flags=re.M):
        d["runs"].append({"run": int(m[1]), "day": m[2], "model_s": _number(m[3]), "rows": int(_number(m[4])),
                          "peak_rss_mb": _number(m[5])})
    if not d["runs"]:
        raise ValueError("no row in the page's per-run table")
    pairs = []
    for m in re.finditer(r"^\| next day (\d{4}-\d\d-\d\d) \((as-is|compact) first\): as-is / compacted \| "
                         r"([\d.,]+) / ([\d.,]+) model-s \|$", text, flags=re.M):
        pairs.append({"day": m[1], "first": m[2].replace("-", "_"), "as_is": {"model_s": _number(m[3])},
                      "compact": {"model_s": _number(m[4])}})
    if pairs:
        d["next_pairs"] = pairs
        d["next_as_is"] = {"model_s": statistics.mean(x["as_is"]["model_s"] for x in pairs)}
        d["next_compacted"] = {"model_s": statistics.mean(x["compact"]["model_s"] for x in pairs)}
    return d


def page_summary_check(d: dict, text: str) -> tuple[int, list[str]]:
    """summary() of `d` against the page's Result table: the means, the drift, the per-row drift and
    the layout's share, each as the page formats it. (How many agree, the ones that do not.)"""
    s, n = summary(d), len(d["runs"])
    fmt = bench.fmt
    want = [(f"| t_inc, mean of runs 1-{s['k']} | ", f"{fmt(s['first'])} model-s |"),
            (f"| t_inc, mean of runs {n - s['k'] + 1}-{n} | ", f"{fmt(s['last'])} model-s |"),
            ("| **drift** of t_inc, last / first - 1 | ", f"**{pct(s['drift'])}** |"),
            ("| the same per loaded row (us per row) | ",
             f"{fmt(s['per_row_first'])} -> {fmt(s['per_row_last'])} ({pct(s['drift_per_row'])}) |")]
    if "next_pairs" in d:
        want.append(("| **layout's share**: as-is / compacted - 1 (mean of both days) | ", f"**{pct(s['layout'])}** |"))
    agree, wrong = 0, []
    for head, value in want:
        line = next((ln for ln in text.splitlines() if ln.startswith(head)), None)
        if line == head + value:
            agree += 1
        else:
            wrong.append(f"page {line!r}, from its per-run table {head + value!r}")
    return agree, wrong


def replot_from_page(page: Path, plot: Path) -> dict:
    """Redraw the PNG of a page this script wrote from the page's own figures (nothing is run), with
    the make_plot a bench run calls; refuses when the summary of its per-run table is not the page's."""
    text = page.read_text()
    d = drift_from_page(text)
    agree, wrong = page_summary_check(d, text)
    if wrong:
        raise ValueError(f"{page}: its per-run table does not give its Result table: " + "; ".join(wrong))
    if not make_plot(d, plot):
        raise RuntimeError("matplotlib is not installed: no plot")
    bench.log(f"replotted {plot} from {page}: {len(d['runs'])} runs, {len(d.get('next_pairs', []))} next days; "
              f"{agree} summary figures equal the page's")
    return d


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="t_inc over consecutive daily batches (docs/benchmarks-drift.md)")
    p.add_argument("--history", type=int, default=10_000_000, help="events in the history (default 10M)")
    p.add_argument("--runs", type=int, default=100, help="consecutive daily batches (default 100)")
    p.add_argument("--batch-events", type=int, default=100_000, help="events per delivery day (default 100000)")
    p.add_argument("--wide", type=int, default=10,
                   help="after the runs, this many days landed at once: memory of a bigger batch (0: skip)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--threads", type=int, default=1, help="dbt threads (default 1, as bench/run.py)")
    p.add_argument("--out", default=str(bench.BENCH / "out-drift"), help="work folder")
    p.add_argument("--doc", default=str(bench.ROOT / "docs" / "benchmarks-drift.md"), help="Markdown report")
    p.add_argument("--keep", action="store_true", help="keep the warehouses and the landing folder")
    p.add_argument("--render-only", action="store_true", help="re-render --doc from --out/drift.json")
    p.add_argument("--replot-from", type=Path, default=None, metavar="PAGE",
                   help="do not measure: redraw the PNG next to a page this script wrote "
                        "(docs/benchmarks-drift.md) from the page's own tables, to --plot")
    p.add_argument("--plot", default=None, help="PNG plot (default: next to --doc, or to --replot-from's page)")
    a = p.parse_args(argv)
    if a.replot_from is not None:
        replot_from_page(a.replot_from, Path(a.plot) if a.plot else a.replot_from.with_suffix(".png"))
        return 0
    if a.history < 1 or a.runs < 2 or a.batch_events < 1 or a.wide < 0:
        p.error("--history, --batch-events must be positive, --runs at least 2, --wide at least 0")
    a.out = str(Path(a.out).resolve())
    Path(a.out).mkdir(parents=True, exist_ok=True)
    doc = Path(a.doc).resolve()
    plot = Path(a.plot).resolve() if a.plot else doc.with_suffix(".png")
    env = dict(os.environ, DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    env.setdefault("DBT_DUCKDB_MEMORY_LIMIT", "8GB")
    env["PYTHONPATH"] = str(bench.ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if a.render_only:
        saved = json.loads(Path(a.out, "drift.json").read_text())
        d, mach = saved["drift"], saved["machine"]
    else:
        bench.DBT_THREADS = a.threads
        mach = bench.machine()
        mach["dbt_threads"] = a.threads
        mach["code"] = bench.snapshot_project(Path(a.out) / "project")
        mach["memory_limit"] = env["DBT_DUCKDB_MEMORY_LIMIT"]
        mach["rss_probe"] = bench.RSS_PROBE
        d = measure(a, env, Path(mach["code"]["path"]), mach)
        Path(a.out, "drift.json").write_text(json.dumps({"machine": mach, "drift": d}, indent=1, default=str))
    doc.parent.mkdir(parents=True, exist_ok=True)
    has_plot = make_plot(d, plot)
    doc.write_text(render(d, mach, plot if has_plot else None))
    s = summary(d)
    print(f"drift over {len(d['runs'])} runs: {pct(s['drift'])} (per row {pct(s['drift_per_row'])}); "
          f"layout's share on the next batches: {pct(s['layout'])}; wrote {doc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
