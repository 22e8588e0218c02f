"""`python -m bench` end to end at tiny sizes: one smoke run of the DuckDB sweep serves every
assertion on it (its results.json, the page rendered from it alone, the tables and ratios), and
one drift run. No timing is asserted: the benchmark reports its ratios against targets, it never
fails on them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.grown import GrownWarehouse
from bench.ratios import Verdict, ratios
from bench.render import render
from bench.results import Results, Step, load
from bench.tables import fmt

ROOT = Path(__file__).resolve().parent.parent
RATIO_IDS = ("R1", "R2", "R3a", "R4", "R5", "RF", "RG", "RGc")
STEPS = ("history_build", "incremental", "floor")  # at both sizes


def bench(*args: str, timeout: int = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def test_repeats_below_one_are_refused_before_any_write(tmp_path: Path) -> None:
    proc = bench(
        "--size",
        "small",
        "--repeats",
        "0",
        "--out",
        str(tmp_path / "out"),
        "--doc",
        str(tmp_path / "b.md"),
        timeout=120,
    )
    assert proc.returncode == 2 and "--repeats must be 1 or more" in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "b.md").exists()


def test_a_bad_size_is_refused_naming_the_flag_before_any_write(tmp_path: Path) -> None:
    proc = bench("--size", "1M;rm", "--out", str(tmp_path / "out"), "--doc", str(tmp_path / "b.md"), timeout=120)
    assert proc.returncode == 2 and "--size" in proc.stderr and "not a size" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "b.md").exists()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--grown-size", "5M"), "--grown-size must be one of the run's sizes"),
        (("--grown-size", "36k;x"), "not a size"),
        (("--grown-steps", "1"), "--grown-steps must be 2 to the grown history's 6 days"),
        (("--grown-steps", "7"), "--grown-steps must be 2 to the grown history's 6 days"),
        (("--grown-steps", "9" * 30), "--grown-steps must be 2 to the grown history's 6 days"),
        (("--grown-size", "36k 12k"), "not a size"),
    ],
)
def test_a_bad_grown_history_flag_is_refused_naming_it_before_any_write(
    tmp_path: Path, flags: tuple[str, str], message: str
) -> None:
    out, doc = tmp_path / "out", tmp_path / "b.md"
    proc = bench("--size", "small", *flags, "--out", str(out), "--doc", str(doc), timeout=120)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists() and not doc.exists()


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """One smoke run (12k and 36k events): the page, its text and the run's stdout."""
    tmp = tmp_path_factory.mktemp("bench_small")
    doc = tmp / "b.md"
    proc = bench(
        "--size",
        "small",
        "--out",
        str(tmp / "out"),
        "--doc",
        str(doc),
        "--full-refresh-sizes",
        "12k",
        "--memory-size",
        "12k",
        "--memory-limit",
        "1GB",
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return doc, doc.read_text(), proc.stdout


def test_the_run_writes_results_json_and_the_page_is_rendered_from_it_alone(small: tuple[Path, str, str]) -> None:
    doc, text, _ = small
    res = load(Results, doc.with_suffix(".results.json"))
    assert [r.label for r in res.sizes] == ["12k", "36k"]
    assert render(res, doc.with_suffix(".png").name) == text
    assert doc.with_suffix(".png").stat().st_size > 0


def test_the_ratio_table_is_the_named_ratio_functions_of_the_results(small: tuple[Path, str, str]) -> None:
    doc, text, stdout = small
    rows = ratios(load(Results, doc.with_suffix(".results.json")))
    assert [r.id for r in rows][:3] == ["R1", "R1n", "R1f"] and {r.id for r in rows} >= set(RATIO_IDS) - {"R4"}
    for r in rows:
        cells = r"\| (.*) \| ([^|]+) \| ([^|]+) \| [^|]+ \| \*\*([^*]+)\*\*"
        line = re.search(rf"^\| {re.escape(r.id)} {cells}", text, re.M)
        assert line, r.id
        assert (line[2].strip(), line[3].strip(), line[4]) == (fmt(r.wall), fmt(r.inside), str(r.verdict)), r.id
    assert next(r for r in rows if r.id == "R1f").verdict is Verdict.REFERENCE
    assert "R1 t_inc(36k) / t_inc(12k)" in stdout


def test_the_steps_and_comparisons_of_each_size_are_on_the_page(small: tuple[Path, str, str]) -> None:
    doc, text, _ = small
    res = load(Results, doc.with_suffix(".results.json"))
    per_size = text.split("## Results per size", 1)[1].split("## Where the incremental time goes", 1)[0]
    for step in STEPS:
        assert len(re.findall(rf"^\| {step} \| .*\| [0-9.,]+ \|", per_size, flags=re.M)) == 2, step
    # the full refresh and the one-pass floor only where asked (12k), the 12k history build at the memory limit
    assert [r.label for r in res.sizes if Step.FULL_REFRESH in r.runs] == ["12k"]
    assert [r.label for r in res.sizes if Step.FLOOR_FULL in r.runs] == ["12k"]
    assert len(re.findall(r"^\| history_build \| dbt run \(history, memory_limit 1GB\) \|", text, flags=re.M)) == 1
    assert re.search(r"memory run: .* memory_limit 1GB: \*\*completed\*\* .* spill folder [0-9,]+ MB", text)
    assert re.search(r"^\| R2 \| t_full\(12k\) / t_inc\(12k\) \|", text, flags=re.M)
    # the incremental run and the floor twice per size; the tables show the fastest of each
    for r in res.sizes:
        assert len(r.repeats[Step.INCREMENTAL]) == 2 and len(r.repeats[Step.FLOOR]) == 2
        assert r.runs[Step.INCREMENTAL].inside_s == min(x.inside_s for x in r.repeats[Step.INCREMENTAL])
        assert r.runs[Step.FLOOR].inside_s == min(x.inside_s for x in r.repeats[Step.FLOOR])
        assert all(d.equal for d in r.floor_vs_dbt), r.floor_vs_dbt
    assert all(d.equal for r in res.sizes for d in (*r.full_vs_incremental, *r.full_vs_floor_full))
    # the peer at equal correctness (at 36k): its window reaches back far enough, and its revenue equals ours
    peer = res.sizes[-1]
    assert peer.peer_correct is not None and peer.peer_correct.equal, peer.peer_correct
    assert Step.PEER_CORRECT in peer.runs and Step.PEER_INCREMENTAL in peer.runs
    assert peer.idempotency is not None and peer.idempotency.passed
    assert "floor vs dbt incremental: fct_order_items **equal**, fct_daily_revenue **equal**" in text
    # the largest size's history grown in 2 runs beside the one built at once: the same batch on both,
    # alternately, and the same business tables after it
    grown = [r for r in res.sizes if Step.GROWN_INCREMENTAL in r.runs]
    assert [r.label for r in grown] == ["36k"] and grown[0].grown_steps == 2
    assert len(grown[0].repeats[Step.GROWN_INCREMENTAL]) == 2 and grown[0].grown_vs_once
    assert all(d.equal for d in grown[0].grown_vs_once), grown[0].grown_vs_once
    assert len(re.findall(r"^\| grown_(history|incremental) \| .*\| [0-9.,]+ \|", per_size, flags=re.M)) == 2
    assert "history grown in 2 runs vs built in one run, after the batch: fct_order_items **equal**" in text
    assert grown[0].runs[Step.GROWN_INCREMENTAL].statements["(run level)"]["checkpoint"] is not None
    # its registry after the batch: the seed, the 2 growing runs and the batch's last repeat, which
    # ran on a fresh copy of the grown warehouse (a copy of the other one, or none, counts otherwise)
    assert grown[0].grown_registry_runs == 1 + 2 + 1, grown[0].grown_registry_runs


def test_the_grown_landing_folder_holds_copies_that_leave_the_history_files_untouched(tmp_path: Path) -> None:
    """A new hard link changes the file's ctime, which the landing door reads as a changed file: the
    warehouse built at once would inspect every history file again in its timed run."""
    src = tmp_path / "2026-11-01_a.csv"
    src.write_text("event_id\n1\n")
    before = src.stat()
    grown = GrownWarehouse(ROOT, {}, tmp_path / "work")
    grown.landing.mkdir(parents=True)
    grown.land([src])
    after, copy = src.stat(), (grown.landing / src.name).stat()
    assert (after.st_nlink, after.st_ctime_ns) == (before.st_nlink, before.st_ctime_ns)
    assert copy.st_ino != after.st_ino and (grown.landing / src.name).read_text() == src.read_text()


def test_the_incremental_run_is_timed_in_phases_and_parsed_partially(small: tuple[Path, str, str]) -> None:
    doc, text, _ = small
    for r in load(Results, doc.with_suffix(".results.json")).sizes:
        run = r.runs[Step.INCREMENTAL]
        assert run.phases is not None and run.phases.full_parse is None, (r.label, run.phases)
        assert run.statements.get("(run level)", {}).get("checkpoint") is not None, r.label
    assert "| the whole project parsed again (no partial parse) | no | no |" in text
    assert "## Per history row: the growth, and what it predicts" in text


def test_drift_smoke_measures_runs_layout_and_memory(tmp_path: Path) -> None:
    """`python -m bench drift` end to end on a tiny history: every run, the compaction comparison
    (same business tables on both warehouses) and the memory table, rendered from its results.json."""
    doc = tmp_path / "drift.md"
    proc = bench(
        "drift",
        "--history",
        "16000",
        "--batch-events",
        "8000",
        "--runs",
        "2",
        "--wide",
        "2",
        "--out",
        str(tmp_path / "out"),
        "--doc",
        str(doc),
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    text = doc.read_text()
    runs = re.findall(r"^\| (\d+) \| 2026-11-\d\d \| [0-9.]+ \| ([0-9,]+) \| [0-9,]+ \|$", text, flags=re.M)
    assert [r[0] for r in runs] == ["1", "2"] and all(int(r[1].replace(",", "")) > 0 for r in runs), text
    assert re.search(r"^\| \*\*drift\*\* of t_inc, last / first - 1 \| \*\*[+-][0-9.]+ %\*\* \|$", text, flags=re.M)
    assert "| business tables, as-is vs compacted after those days | equal |" in text
    assert (
        len(
            re.findall(
                r"^\| next day 2026-11-\d\d \((as-is|compact) first\): as-is / compacted \| [0-9.]+ / "
                r"[0-9.]+ model-s \|$",
                text,
                flags=re.M,
            )
        )
        == 2
    )
    assert re.search(r"^\| 2 days at once \| 1 \| [0-9,]+ \| [0-9,]+ \| [0-9.]+ \|$", text, flags=re.M)
    assert "drift over 2 runs:" in proc.stdout
    doc.unlink()
    again = bench("drift", "--render-only", "--doc", str(doc), timeout=120)
    assert again.returncode == 0 and doc.read_text() == text, again.stderr
