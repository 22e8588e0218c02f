"""The ratios the benchmark judges, each a named function of the results. Each gives the ratio on
wall time and on the time inside the engine (the models' execution_time for dbt, the time inside
DuckDB for the floor), on which its target is judged."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Sequence

from bench.common import label
from bench.results import Results, SizeResult, Step


class Verdict(enum.StrEnum):
    MET = "met"
    NOT_MET = "not met"
    NOT_MEASURED = "not measured"
    REFERENCE = "reference"
    COMPLETED = "met (completed)"
    FAILED = "not met (failed: see its size)"


@dataclasses.dataclass(frozen=True)
class Ratio:
    id: str
    name: str
    wall: float | None
    inside: float | None
    target: float | None
    at_most: bool  # the target is an upper bound (<=), else a lower bound (>=)
    verdict: Verdict
    note: str = ""


def quotient(num: float | None, den: float | None) -> float | None:
    return num / den if num is not None and den else None


def judge(value: float | None, target: float, at_most: bool) -> Verdict:
    if value is None:
        return Verdict.NOT_MEASURED
    return Verdict.MET if (value <= target if at_most else value >= target) else Verdict.NOT_MET


def wall(r: SizeResult | None, step: Step) -> float | None:
    run = r.runs.get(step) if r else None
    return run.wall_s if run else None


def inside(r: SizeResult | None, step: Step) -> float | None:
    run = r.runs.get(step) if r else None
    return run.inside_s if run else None


def _step_ratio(
    rid: str,
    name: str,
    top: tuple[SizeResult | None, Step],
    bottom: tuple[SizeResult | None, Step],
    target: float,
    at_most: bool,
    note: str = "",
) -> Ratio:
    w = quotient(wall(*top), wall(*bottom))
    m = quotient(inside(*top), inside(*bottom))
    return Ratio(rid, name, w, m, target, at_most, judge(m if m is not None else w, target, at_most), note)


def _ends(sizes: Sequence[SizeResult]) -> tuple[SizeResult, SizeResult, SizeResult]:
    """(smallest, middle: 10M when measured, largest)."""
    by = {r.n: r for r in sizes}
    ns = sorted(by)
    lo, hi = by[ns[0]], by[ns[-1]]
    mid = (by.get(10_000_000) or by[ns[len(ns) // 2]]) if len(ns) > 1 else hi
    return lo, mid, hi


def r1_history_growth(sizes: Sequence[SizeResult]) -> Ratio:
    """R1: the incremental run at the largest history against the smallest, the same batch."""
    lo, _mid, hi = _ends(sizes)
    return _step_ratio(
        "R1", f"t_inc({hi.label}) / t_inc({lo.label})", (hi, Step.INCREMENTAL), (lo, Step.INCREMENTAL), 1.5, True
    )


def r1n_per_batch_row(sizes: Sequence[SizeResult]) -> Ratio:
    """R1n: R1 per batch row (the batch's redelivered files are drawn from the history)."""
    lo, _mid, hi = _ends(sizes)
    per = [quotient(inside(r, Step.INCREMENTAL) or 0.0, max(1, r.batch_rows)) for r in (hi, lo)]
    m = quotient(per[0], per[1])
    return Ratio(
        "R1n",
        f"the same per batch row ({hi.batch_rows:,} rows at {hi.label}, {lo.batch_rows:,} at "
        f"{lo.label}: the redelivered files on the batch day are drawn at random from the history, "
        "so its size varies with N)",
        None,
        m,
        1.5,
        True,
        judge(m, 1.5, True),
    )


def r1f_floor_growth(sizes: Sequence[SizeResult]) -> Ratio:
    """R1f: the floor's own growth, for reference (not judged)."""
    lo, _mid, hi = _ends(sizes)
    r = _step_ratio(
        "R1f",
        f"t_floor({hi.label}) / t_floor({lo.label}): the floor's own growth, for reference (exact SQL by hand, no dbt)",
        (hi, Step.FLOOR),
        (lo, Step.FLOOR),
        0.0,
        True,
    )
    return dataclasses.replace(r, target=None, verdict=Verdict.REFERENCE)


def r2_full_over_incremental(sizes: Sequence[SizeResult]) -> Ratio:
    """R2: the full refresh against the incremental run, at the largest size with a full refresh."""
    _lo, _mid, hi = _ends(sizes)
    r = max((x for x in sizes if Step.FULL_REFRESH in x.runs), key=lambda x: x.n, default=hi)
    return _step_ratio(
        "R2", f"t_full({r.label}) / t_inc({r.label})", (r, Step.FULL_REFRESH), (r, Step.INCREMENTAL), 10, False
    )


def r3_over_floor(sizes: Sequence[SizeResult]) -> list[Ratio]:
    """R3a, R3b: the incremental run against the floor, at the middle and the largest size."""
    _lo, mid, hi = _ends(sizes)
    return [
        _step_ratio(
            f"R3{'ab'[i]}", f"t_inc({r.label}) / t_floor({r.label})", (r, Step.INCREMENTAL), (r, Step.FLOOR), 1.5, True
        )
        for i, r in enumerate([mid, hi] if mid is not hi else [hi])
    ]


def rf_full_over_one_pass(sizes: Sequence[SizeResult]) -> Ratio:
    """RF: our full refresh against the one-pass floor (the one baseline for a full recompute)."""
    _lo, mid, hi = _ends(sizes)
    one_pass = [r for r in sizes if Step.FLOOR_FULL in r.runs]
    r = mid if Step.FLOOR_FULL in mid.runs else max(one_pass, key=lambda x: x.n) if one_pass else hi
    return _step_ratio(
        "RF",
        f"t_full({r.label}) / t_one_pass_floor({r.label})",
        (r, Step.FULL_REFRESH),
        (r, Step.FLOOR_FULL),
        1.0,
        True,
    )


GROWN_TARGET = 1.2  # the incremental run on a history grown by runs, against one built at once
CHECKPOINT_TARGET_S = 2.0  # DuckDB's checkpoint at the end of that run, seconds


def _grown(sizes: Sequence[SizeResult]) -> SizeResult | None:
    return next((r for r in sizes if Step.GROWN_INCREMENTAL in r.runs), None)


def checkpoint_s(r: SizeResult, step: Step) -> float | None:
    """DuckDB's CHECKPOINT (the last on-run-end hook) in a dbt run, seconds."""
    run = r.runs.get(step)
    return run.statements.get("(run level)", {}).get("checkpoint") if run else None


def rg_grown_over_once(sizes: Sequence[SizeResult]) -> list[Ratio]:
    """RG: the incremental run on a history grown by runs against the same history built at once,
    the same batch; RGc: the checkpoint of that run on the grown history, seconds (not a ratio)."""
    r = _grown(sizes)
    if r is None:
        name = "t_inc(grown) / t_inc(built at once)"
        return [Ratio("RG", name, None, None, GROWN_TARGET, True, Verdict.NOT_MEASURED)]
    equal = bool(r.grown_vs_once) and all(d.equal for d in r.grown_vs_once)
    rg = _step_ratio(
        "RG",
        f"t_inc({r.label} grown in {r.grown_steps} runs) / t_inc({r.label} built in one run)",
        (r, Step.GROWN_INCREMENTAL),
        (r, Step.INCREMENTAL),
        GROWN_TARGET,
        True,
        "the business tables equal after the batch" if equal else "the business tables NOT equal after the batch",
    )
    if not equal:  # a speed without the same answer is no measure
        rg = dataclasses.replace(rg, verdict=Verdict.NOT_MET)
    grown_c, once_c = checkpoint_s(r, Step.GROWN_INCREMENTAL), checkpoint_s(r, Step.INCREMENTAL)
    rgc = Ratio(
        "RGc",
        "DuckDB's checkpoint in that run on the grown history, s (built in one run: "
        + (f"{once_c:.2f} s)" if once_c is not None else "-)"),
        grown_c,
        None,
        CHECKPOINT_TARGET_S,
        True,
        judge(grown_c, CHECKPOINT_TARGET_S, True),
    )
    return [rg, rgc]


def r4_peer(sizes: Sequence[SizeResult]) -> list[Ratio]:
    """R4 (R4a, R4b... one per size the peer ran at): the microbatch peer against our incremental run;
    R4= the peer with a window wide enough to be right."""
    peers = sorted((r for r in sizes if Step.PEER_INCREMENTAL in r.runs), key=lambda r: r.n)
    rid: Callable[[int], str] = lambda i: "R4" + (chr(ord("a") + i) if len(peers) > 1 else "")  # noqa: E731
    if not peers:
        return [Ratio("R4", "t_microbatch(-) / t_inc(-)", None, None, 2, False, Verdict.NOT_MEASURED)]
    out = []
    for i, pr in enumerate(peers):
        ok = pr.peer is not None and pr.peer.equal
        days = pr.peer.days_wrong if pr.peer else 0
        out.append(
            _step_ratio(
                rid(i),
                f"t_microbatch({pr.label}) / t_inc({pr.label})",
                (pr, Step.PEER_INCREMENTAL),
                (pr, Step.INCREMENTAL),
                2,
                False,
                "equal daily revenue" if ok else f"NOT equal correctness: {days} revenue day(s) wrong",
            )
        )
    for i, pr in enumerate(peers):
        pc = pr.peer_correct
        if Step.PEER_CORRECT not in pr.runs or pc is None:
            continue
        out.append(
            _step_ratio(
                rid(i) + "=",
                f"t_microbatch_correct({pr.label}) / t_inc({pr.label}): the peer at "
                f"equal correctness, its window from {pc.window_start} "
                f"({pc.window_days} days)",
                (pr, Step.PEER_CORRECT),
                (pr, Step.INCREMENTAL),
                2,
                False,
                "equal daily revenue" if pc.equal else f"still NOT equal: {pc.days_wrong} revenue day(s) wrong",
            )
        )
    return out


def r5_idempotency(sizes: Sequence[SizeResult], idempotency_size: int) -> Ratio:
    """R5: the harness's idempotency check against one build (wall time only)."""
    ir = next((r for r in sizes if r.idempotency), None)
    v = quotient(ir.idempotency.wall_s, wall(ir, Step.HISTORY_BUILD)) if ir and ir.idempotency else None
    il = ir.label if ir else (label(idempotency_size) if idempotency_size > 0 else "not run")
    return Ratio("R5", f"t_idempotency_check({il}) / t_build({il})", v, None, 2.5, True, judge(v, 2.5, True))


def m_memory(sizes: Sequence[SizeResult]) -> list[Ratio]:
    """M: the memory run's peak RSS (it must complete, spilling); not a ratio."""
    mr = next((r for r in sizes if r.memory_run), None)
    if mr is None or mr.memory_run is None:
        return []
    x = mr.memory_run
    return [
        Ratio(
            "M",
            f"full build of the {mr.label} history from empty at memory_limit {x.limit}: peak RSS, MB "
            "(it must complete, spilling)",
            x.peak_rss_mb,
            None,
            None,
            True,
            Verdict.COMPLETED if x.completed else Verdict.FAILED,
        )
    ]


def t_total(total_s: float | None, target_min: float) -> list[Ratio]:
    """T: the whole benchmark run, minutes; not a ratio."""
    if total_s is None:
        return []
    v = total_s / 60
    return [
        Ratio(
            "T",
            "this benchmark run, minutes (generation included)",
            v,
            None,
            target_min,
            True,
            judge(v, target_min, True),
        )
    ]


def ratios(res: Results) -> list[Ratio]:
    """Every row of the page's ratio table, in its order."""
    s = res.sizes
    return [
        r1_history_growth(s),
        r1n_per_batch_row(s),
        r1f_floor_growth(s),
        r2_full_over_incremental(s),
        *r3_over_floor(s),
        rf_full_over_one_pass(s),
        *rg_grown_over_once(s),
        *r4_peer(s),
        r5_idempotency(s, res.idempotency_size),
        *m_memory(s),
        *t_total(res.total_s, res.t_target_min),
    ]


def floor_ratios(sizes: Sequence[SizeResult]) -> list[tuple[int, float | None, float | None]]:
    """(n, t_inc / t_floor on wall time, on inside time) at every size: the plot's right panel."""
    return [
        (
            r.n,
            quotient(wall(r, Step.INCREMENTAL), wall(r, Step.FLOOR)),
            quotient(inside(r, Step.INCREMENTAL), inside(r, Step.FLOOR)),
        )
        for r in sizes
    ]
