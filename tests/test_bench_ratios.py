"""bench/ratios.py and bench/results.py without a benchmark: each named ratio from a few typed
results, the verdict it gives, and results.json read back into the same records."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bench import ratios as r
from bench.results import (
    Idempotency,
    Machine,
    MemoryRun,
    Mode,
    PeerCheck,
    PeerCorrect,
    Results,
    Run,
    SizeResult,
    Step,
    TableDiff,
    load,
    save,
)


def size(n: int, label: str, **runs: tuple[float, float]) -> SizeResult:
    return SizeResult(
        n=n,
        label=label,
        days=n // 100_000,
        events_per_day=100_000,
        history_files=1,
        batch_files=1,
        history_mb=1.0,
        batch_mb=1.0,
        history_rows=n,
        history_events=n,
        batch_rows=100_000,
        history_cmd="run",
        runs={Step(k): Run(wall_s=w, inside_s=m) for k, (w, m) in runs.items()},
    )


SMALL = size(
    1_000_000,
    "1M",
    incremental=(10.0, 4.0),
    floor=(5.0, 4.5),
    history_build=(20.0, 15.0),
    peer_incremental=(30.0, 12.0),
)
MID = size(
    10_000_000, "10M", incremental=(12.0, 6.0), floor=(6.0, 5.0), full_refresh=(150.0, 140.0), floor_full=(160.0, 150.0)
)
LARGE = size(30_000_000, "30M", incremental=(13.0, 7.0), floor=(8.0, 8.0))
SIZES = [SMALL, MID, LARGE]


def test_r1_is_the_largest_history_against_the_smallest_on_model_time() -> None:
    got = r.r1_history_growth(SIZES)
    assert (got.name, got.wall, got.inside) == ("t_inc(30M) / t_inc(1M)", 1.3, 1.75)
    assert got.verdict is r.Verdict.NOT_MET  # judged on model time: 1.75 > 1.5, though wall 1.3 is within


def test_r2_r3_rf_each_at_the_size_it_is_judged() -> None:
    assert r.r2_full_over_incremental(SIZES).name == "t_full(10M) / t_inc(10M)"
    assert r.r2_full_over_incremental(SIZES).inside == pytest.approx(140 / 6)
    r3a, r3b = r.r3_over_floor(SIZES)
    assert (r3a.name, r3a.inside, r3a.verdict) == ("t_inc(10M) / t_floor(10M)", 6 / 5, r.Verdict.MET)
    assert (r3b.name, r3b.inside) == ("t_inc(30M) / t_floor(30M)", 7 / 8)
    rf = r.rf_full_over_one_pass(SIZES)
    assert (rf.name, rf.inside, rf.verdict) == ("t_full(10M) / t_one_pass_floor(10M)", 140 / 150, r.Verdict.MET)


def test_r1f_is_for_reference_and_r1n_per_batch_row() -> None:
    assert r.r1f_floor_growth(SIZES).verdict is r.Verdict.REFERENCE and r.r1f_floor_growth(SIZES).target is None
    big = dataclasses.replace(LARGE, batch_rows=200_000)
    assert r.r1n_per_batch_row([SMALL, big]).inside == pytest.approx(1.75 / 2)


def test_r4_names_the_peers_correctness_and_r5_the_idempotency_check() -> None:
    wrong = PeerCheck("2026-11-08", False, 20, 2, 100, 1, 1, 1)
    peer = dataclasses.replace(SMALL, peer=wrong)
    (r4,) = r.r4_peer([peer, MID])
    assert (r4.id, r4.inside, r4.verdict) == ("R4", 3.0, r.Verdict.MET)
    assert r4.note == "NOT equal correctness: 2 revenue day(s) wrong"
    assert r.r4_peer([MID])[0].verdict is r.Verdict.NOT_MEASURED
    idem = dataclasses.replace(SMALL, idempotency=Idempotency("python -m harness idempotency", True, 0, 30.0))
    assert (r.r5_idempotency([idem], 1_000_000).wall, r.r5_idempotency([SMALL], -1).name) == (
        1.5,
        "t_idempotency_check(not run) / t_build(not run)",
    )


def test_rg_is_the_grown_history_against_the_one_built_at_once_only_with_equal_tables() -> None:
    equal = (TableDiff("fct_order_items", 0, 0), TableDiff("fct_daily_revenue", 0, 0))
    at_checkpoint = {"(run level)": {"checkpoint": 2.5}}
    grown = dataclasses.replace(
        MID,
        grown_steps=10,
        grown_vs_once=equal,
        runs={
            **MID.runs,
            Step.INCREMENTAL: Run(wall_s=12.0, inside_s=6.0, statements={"(run level)": {"checkpoint": 0.9}}),
            Step.GROWN_INCREMENTAL: Run(wall_s=15.0, inside_s=7.0, statements=at_checkpoint),
        },
    )
    rg, rgc = r.rg_grown_over_once([SMALL, grown, LARGE])
    assert (rg.name, rg.wall, rg.inside, rg.verdict) == (
        "t_inc(10M grown in 10 runs) / t_inc(10M built in one run)",
        1.25,
        7 / 6,
        r.Verdict.MET,  # judged on model time
    )
    assert (rgc.wall, rgc.verdict, rgc.name.endswith("(built in one run: 0.90 s)")) == (2.5, r.Verdict.NOT_MET, True)
    unequal = dataclasses.replace(grown, grown_vs_once=(TableDiff("fct_order_items", 1, 2),))
    assert r.rg_grown_over_once([unequal])[0].verdict is r.Verdict.NOT_MET
    assert [x.verdict for x in r.rg_grown_over_once(SIZES)] == [r.Verdict.NOT_MEASURED]


def test_results_json_reads_back_as_the_same_records(tmp_path: Path) -> None:
    machine = Machine("cpu", 2, 8.0, "linux", "3.11", "1.11", "1.11", "2.0", 1, "8GB", "abc", ("models/x.sql",))
    full = dataclasses.replace(
        MID,
        floor_vs_dbt=(TableDiff("fct_order_items", 0, 1),),
        memory_run=MemoryRun("2GB", True, 10.0),
        peer_correct=PeerCorrect("2026-11-06", 6, True, 0, 0),
        runs={**MID.runs, Step.FLOOR: Run(wall_s=6.0, inside_s=5.0, floor_statements=(("commit", 0.1),))},
    )
    res = Results(
        mode=Mode.FULL, generated_at="2026-12-07 00:17 UTC", seed=7, machine=machine, sizes=(SMALL, full), total_s=60.0
    )
    save(res, tmp_path / "b.results.json")
    back = load(Results, tmp_path / "b.results.json")
    assert back == res
    assert type(back.mode) is Mode and all(type(k) is Step for s in back.sizes for k in s.runs)  # enums, not text
    assert type(back.sizes[1].memory_run) is MemoryRun and back.sizes[1].runs[Step.FLOOR].phases is None
    assert not back.sizes[1].floor_vs_dbt[0].equal and back.sizes[1].runs[Step.FLOOR].floor_statements == (
        ("commit", 0.1),
    )
    assert [o.id for o in r.ratios(back)][-2:] == ["M", "T"]
