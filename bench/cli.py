"""The one benchmark driver: `python -m bench`.

    python -m bench --target duckdb --size full       # make bench: 1M, 10M, 30M; docs/benchmarks.md (~30 min)
    python -m bench --target duckdb --size quick      # make bench-quick: 1M, 3M; target/bench/quick/
    python -m bench --target duckdb --size small      # the CI smoke: 12k, 36k; target/bench/small/
    python -m bench --target postgres --size 1M,10M   # make bench-postgres
    python -m bench --target spark --size 1M          # make bench-spark
    python -m bench drift                             # make bench-drift
    python -m bench large --size 100M                 # make bench-large
    python -m bench render docs/benchmarks.results.json   # the page and its PNG from results.json, run nothing

A DuckDB run writes its results to `<page>.results.json` beside its page (--doc) after every size,
then renders the page from that file alone (bench/render.py). Only `--size full` writes a committed
page by default; the quick and smoke runs write under target/bench/.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

from bench import measure
from bench.common import BENCH, ROOT, SCRATCH, bench_env, label, log, machine, parse_size, snapshot_project, utc_now
from bench.ratios import ratios
from bench.render import write_page
from bench.results import Mode, Results, load, save
from bench.sizes import Plan, bench_size

TARGETS = ("duckdb", "postgres", "spark")
PRESETS = {Mode.FULL: "1M,10M,30M", Mode.QUICK: "1M,3M", Mode.SMALL: "12k,36k"}
PAGES = {
    Mode.FULL: ROOT / "docs" / "benchmarks.md",
    Mode.QUICK: SCRATCH / "quick" / "benchmarks-quick.md",
    Mode.SMALL: SCRATCH / "small" / "benchmarks-small.md",
    Mode.CUSTOM: SCRATCH / "custom" / "benchmarks.md",
}
WORK = {
    Mode.FULL: BENCH / "out",
    Mode.QUICK: SCRATCH / "quick" / "work",
    Mode.SMALL: SCRATCH / "small" / "work",
    Mode.CUSTOM: SCRATCH / "custom" / "work",
}


def results_path(doc: Path) -> Path:
    """The results.json beside a page: docs/benchmarks.md -> docs/benchmarks.results.json."""
    return doc.with_suffix(".results.json")


def sizes_arg(text: str) -> list[int]:
    sizes = sorted({parse_size(s) for s in text.split(",") if s.strip()})
    if not sizes:
        raise argparse.ArgumentTypeError(f"no size in {text!r}")
    return sizes


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench", description="incremental cost against history size")
    p.add_argument("--target", choices=TARGETS, default="duckdb")
    p.add_argument(
        "--size",
        default="full",
        help="full (1M,10M,30M), quick (1M,3M), small (12k,36k, batch 6000) or sizes such as 1M,3M",
    )
    p.add_argument("--batch-events", type=int, default=None, help="events per delivery day (100000; small: 6000)")
    p.add_argument("--history-tests", action="store_true", help="build the history with dbt build (tests timed apart)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", type=Path, default=None, help="work folder (deliveries, warehouses)")
    p.add_argument("--doc", type=Path, default=None, help="the page to write; its results.json goes beside it")
    p.add_argument("--idempotency-size", default=None, help="size of the idempotency check (1M; small: the largest)")
    p.add_argument("--no-idempotency", action="store_true")
    p.add_argument("--full-refresh-sizes", default=None, help="sizes with a full refresh (the largest up to 10M)")
    p.add_argument("--one-pass-sizes", default=None, help="sizes with the one-pass floor (the largest full refresh)")
    p.add_argument("--memory-size", default="30M", help="size whose history build runs at --memory-limit (0: none)")
    p.add_argument("--memory-limit", default="2GB", help="DuckDB memory_limit of the memory run")
    p.add_argument("--repeats", type=int, default=2, help="incremental runs and floors per size; the fastest counts")
    p.add_argument("--no-peer", dest="peer", action="store_false", help="skip the microbatch peer")
    p.add_argument("--peer-sizes", default=None, help="sizes with the microbatch peer (1M; small: the largest)")
    p.add_argument("--peer-correct-sizes", default=None, help="sizes with the peer at equal correctness (its sizes)")
    p.add_argument(
        "--grown-size",
        default=None,
        help="size whose history is also grown by runs, beside the one built at once (full: 10M; quick: 3M; "
        "small: the largest; sizes given one by one: none; 0: none)",
    )
    p.add_argument(
        "--grown-steps", type=int, default=None, help="runs that grow that history (10, at most its days; small: 2)"
    )
    p.add_argument("--threads", type=int, default=1, help="dbt threads (DuckDB parallelizes each statement itself)")
    p.add_argument("--keep", action="store_true", help="keep warehouses and landing folders")
    p.add_argument("--keep-deliveries", action="store_true", help="keep generated deliveries for a re-run")
    return p


def _set(text: str | None, default: list[int]) -> frozenset[int]:
    return frozenset(sizes_arg(text) if text else default)


def plan(a: argparse.Namespace, p: argparse.ArgumentParser) -> tuple[Mode, list[int], Plan, Path]:
    """The run's mode, sizes, plan and page from the flags; a bad flag exits 2 naming it, before any write."""
    mode = Mode(a.size) if a.size in PRESETS else Mode.CUSTOM
    try:
        sizes = sizes_arg(PRESETS.get(mode, a.size))
        memory_size = parse_size(a.memory_size) if a.memory_size not in ("0", "-1") else -1
        idem = (
            parse_size(a.idempotency_size) if a.idempotency_size else (sizes[-1] if mode is Mode.SMALL else 1_000_000)
        )
        peer_default = sizes[-1:] if mode is Mode.SMALL else [1_000_000]
        peer_sizes = _set(a.peer_sizes, peer_default)
        full_sizes = _set(a.full_refresh_sizes, [n for n in sizes if n <= 10_000_000][-1:])
        one_pass = _set(a.one_pass_sizes, sorted(full_sizes)[-1:])
        peer_correct = _set(a.peer_correct_sizes, sorted(peer_sizes))
        grown_default = {Mode.FULL: 10_000_000, Mode.QUICK: 3_000_000, Mode.SMALL: sizes[-1]}.get(mode, -1)
        grown_size = grown_default if a.grown_size is None else -1 if a.grown_size == "0" else parse_size(a.grown_size)
    except argparse.ArgumentTypeError as e:
        p.error(f"--size and the size flags: {e}")
    if grown_size != -1 and grown_size not in sizes:
        p.error(
            f"--grown-size must be one of the run's sizes ({', '.join(map(label, sizes))}) or 0; "
            f"got {label(grown_size)}"
        )
    if a.repeats < 1:
        p.error(f"--repeats must be 1 or more (each size needs one incremental run and one floor); got {a.repeats}")
    if a.batch_events is not None and a.batch_events < 1:
        p.error(f"--batch-events must be 1 or more; got {a.batch_events}")
    batch = a.batch_events or (6000 if mode is Mode.SMALL else 100_000)
    grown_days = max(2, grown_size // batch)  # bench/sizes.py deliveries: the history's days
    grown_steps = a.grown_steps if a.grown_steps is not None else 2 if mode is Mode.SMALL else min(10, grown_days)
    if grown_size != -1 and not 2 <= grown_steps <= grown_days:
        p.error(f"--grown-steps must be 2 to the grown history's {grown_days} days; got {grown_steps}")
    if a.threads < 1:
        p.error(f"--threads must be 1 or more; got {a.threads}")
    if not one_pass <= full_sizes:
        p.error(
            "--one-pass-sizes: the one-pass floor runs after the full refresh, so each of its sizes must be in "
            "--full-refresh-sizes"
        )
    if a.no_idempotency or mode is Mode.QUICK:
        idem = -1
    out = (a.out or WORK[mode]).resolve()
    pl = Plan(
        out=out,
        batch_events=batch,
        seed=a.seed,
        repeats=a.repeats,
        history_tests=a.history_tests,
        idempotency_size=idem,
        memory_size=memory_size,
        memory_limit=a.memory_limit,
        peer=a.peer,
        peer_sizes=peer_sizes,
        peer_correct_sizes=peer_correct,
        full_refresh_sizes=full_sizes,
        one_pass_sizes=one_pass,
        keep=a.keep,
        keep_deliveries=a.keep_deliveries,
        grown_size=grown_size,
        grown_steps=grown_steps,
    )
    return mode, sizes, pl, (a.doc or PAGES[mode]).resolve()


def run_duckdb(argv: list[str]) -> int:
    p = parser()
    a = p.parse_args(argv)
    mode, sizes, pl, doc = plan(a, p)
    measure.DBT_THREADS = a.threads
    pl.out.mkdir(parents=True, exist_ok=True)
    env = bench_env()
    project, commit, dirty = snapshot_project(pl.out / "project")
    res = Results(
        mode=mode,
        generated_at=utc_now(),
        seed=a.seed,
        sizes=(),
        machine=machine(a.threads, env["DBT_DUCKDB_MEMORY_LIMIT"], commit, dirty),
        t_target_min=5 if mode is Mode.QUICK else 30,
        idempotency_size=pl.idempotency_size,
    )
    t0 = time.perf_counter()
    for n in sizes:
        res = dataclasses.replace(res, sizes=(*res.sizes, bench_size(n, pl, env, project)))
        save(res, results_path(doc))  # a run stopped part-way keeps the sizes it measured
    res = dataclasses.replace(res, total_s=time.perf_counter() - t0)
    save(res, results_path(doc))
    write_page(load(Results, results_path(doc)), doc)
    for o in ratios(res):
        print(f"{o.id} {o.name}: wall {o.wall}, models {o.inside} -> {o.verdict}")
    log(f"done in {res.total_s or 0:.0f} s; wrote {results_path(doc)} and {doc}")
    return 0


def render_command(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bench render", description="a page again from its results.json")
    p.add_argument("results", type=Path, help="a results.json a DuckDB run wrote (docs/benchmarks.results.json)")
    p.add_argument("--doc", type=Path, default=None, help="the page (default: beside the results, .md)")
    a = p.parse_args(argv)
    if not a.results.name.endswith(".results.json") or not a.results.is_file():
        p.error(f"results: not a results.json file a bench run wrote: {a.results}")
    doc = a.doc or a.results.with_name(a.results.name.removesuffix(".results.json") + ".md")
    write_page(load(Results, a.results), doc)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["render"]:
        return render_command(args[1:])
    if args[:1] in (["drift"], ["large"]):
        from bench import drift, large

        return (drift.main if args[0] == "drift" else large.main)(args[1:])
    target = argparse.ArgumentParser(add_help=False)
    target.add_argument("--target", choices=TARGETS, default="duckdb")
    known, rest = target.parse_known_args(args)
    if known.target == "postgres":
        from bench import postgres

        return postgres.main(rest)
    if known.target == "spark":
        from bench import spark

        return spark.main(rest)
    return run_duckdb(args)
