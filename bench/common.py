"""What every benchmark driver shares: the repository's paths, the fixed clock and start day of the
generated histories, size labels, logging, the project snapshot and the machine's description."""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from bench.results import Machine

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
PEER = BENCH / "microbatch_peer"
PY = sys.executable
DBT = str(Path(PY).parent / "dbt")
# Quick and smoke runs write here (git ignores target/); only full runs write the committed pages.
SCRATCH = ROOT / "target" / "bench"

START = dt.date(2026, 11, 1)
LOOKBACK_DAYS = 3
LATENESS_H = 72
# The clock of every benchmark run (var rerun_safe_now): the generated history runs up to 1,000
# days from 2026-11-01, past the machine's date, and an ingested_at more than
# max_ingested_ahead_hours after a run's clock is quarantined. A fixed clock after every generated
# day keeps the figures independent of the day the bench runs.
BENCH_NOW = "2030-01-01 00:00:00"

PROJECT_PARTS = (
    "dbt_project.yml",
    "profiles.yml",
    "packages.yml",
    "dependencies.yml",
    "package-lock.yml",
    "models",
    "macros",
    "seeds",
    "snapshots",
    "analyses",
    "tests/dbt",
)


def label(n: int) -> str:
    """1000000 -> 1M, 20000 -> 20k, 1500000 -> 1.5M."""
    for div, suffix in ((1_000_000, "M"), (1_000, "k")):
        if n >= div and n % (div // 10) == 0:
            return f"{n / div:g}{suffix}"
    return str(n)


def parse_size(text: str) -> int:
    """ "1M", "300k", "250000" -> events; argparse's error naming the text otherwise."""
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)([kKmM]?)", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 100k, 1M, 10M, 250000)")
    return int(float(m.group(1)) * {"": 1, "k": 1_000, "m": 1_000_000}[m.group(2).lower()])


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def remove(p: Path) -> None:
    """A file, or a folder (`<db>.duckdb.tmp`: DuckDB's spill folder, left behind by a killed run)."""
    if p.is_dir():
        shutil.rmtree(p)
    else:
        p.unlink()


def step_days(history: list[Path], steps: int) -> list[list[Path]]:
    """The history's files in `steps` groups of whole consecutive days (a file's day is its name's
    first 10 characters), as even in days as they divide."""
    days = sorted({f.name[:10] for f in history})
    bounds = [days[len(days) * i // steps] for i in range(steps)] + ["9999"]
    return [[f for f in history if lo <= f.name[:10] < hi] for lo, hi in itertools.pairwise(bounds)]


def link_files(files: list[Path], dest: Path) -> None:
    """Hard links (same inode: same size and mtime, so the same delivery id), else copies."""
    dest.mkdir(parents=True, exist_ok=True)
    for f in files:
        target = dest / f.name
        if target.exists():
            continue
        try:
            os.link(f, target)
        except OSError:
            shutil.copy2(f, target)


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def snapshot_project(dest: Path) -> tuple[Path, str, tuple[str, ...]]:
    """Copy the dbt project (code only) so one benchmark run measures one version of the models,
    whatever is edited in the checkout meanwhile: (the copy, its commit, uncommitted model files)."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for part in PROJECT_PARTS:
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, dest / part)
        elif src.exists():
            shutil.copy2(src, dest / part)
    try:
        commit = _git("rev-parse", "--short", "HEAD").strip()
        dirty = _git("status", "--porcelain", "--", "models", "macros", "dbt_project.yml").splitlines()
    except (OSError, subprocess.CalledProcessError):
        return dest, "?", ()
    return dest, commit, tuple(line[3:] for line in dirty)


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "?"


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def machine(threads: int, memory_limit: str, commit: str, dirty: tuple[str, ...]) -> Machine:
    mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return Machine(
        cpu=_cpu(),
        nproc=os.cpu_count() or 0,
        mem_gb=round(mem_gb, 1),
        os=platform.platform(),
        python=platform.python_version(),
        dbt_core=_version("dbt-core"),
        dbt_duckdb=_version("dbt-duckdb"),
        duckdb=_version("duckdb"),
        dbt_threads=threads,
        memory_limit=memory_limit,
        commit=commit,
        dirty_files=dirty,
    )


def bench_env(memory_limit: str | None = None) -> dict[str, str]:
    """The environment of every subprocess: no usage stats, the repository importable, DuckDB's
    memory_limit (8GB unless set)."""
    env = dict(os.environ)
    env.setdefault("DBT_DUCKDB_MEMORY_LIMIT", memory_limit or "8GB")
    env["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def utc_now() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
