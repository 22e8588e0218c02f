"""The fault campaign on a PostgreSQL server of its own (tests/faults/server.py): kill points
drawn over the whole build, a server crash mid-build, and a backend terminated mid-transaction.
After each, the next build must equal the clean build of the same deliveries
(tests/faults/campaign.py: business tables, quarantine, late queue, ledger with posting ids,
copies, staged rows, correction log).

Every build here runs with rerun_safe_lease_stale_seconds 1 (campaign.POSTGRES_LEASE): a
killed run's lease is documented to block the next build for the stale period (1800 s by
default), and the campaign checks that it is then taken over, not that half an hour passes.

Short form (make test): SHORT_POINTS kill points; `make faults` (FAULTS_FULL=1): FULL_POINTS.
Replay one: FAULT_SEED=<seed> FAULT_POINTS=<N> .venv/bin/python -m pytest tests/faults/test_faults_postgres.py -k killed
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.faults.campaign import Bench, bench_points, differences, point_count, postgres_bench, repair, seed, state
from tests.faults.server import WORK_DB, FaultServer, fault_server, stop_and_remove

ADAPTER = "postgres"
LEASE = "select holder_invocation_id, taken_over_from from rerun_safe_lease"


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    started = fault_server()
    try:
        yield started
    finally:
        stop_and_remove(started)


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory, server: FaultServer) -> Bench:
    return postgres_bench(tmp_path_factory.mktemp("faults_postgres"), server)


@pytest.fixture(scope="module")
def points(bench: Bench) -> list[int]:
    return bench_points(bench, ADAPTER)


def _assert_repaired(bench: Bench, what: str) -> None:
    got = state(bench.work)
    assert got == bench.reference, f"{ADAPTER}: {what}\n" + differences(bench.reference, got)


@pytest.mark.parametrize("index", range(point_count()))
def test_a_build_killed_at_a_statement_is_repaired_by_the_next_build(
    bench: Bench, points: list[int], index: int
) -> None:
    number = points[index]
    replay = (
        f"replay: FAULT_SEED={seed()} FAULT_POINTS={number} .venv/bin/python -m pytest "
        "tests/faults/test_faults_postgres.py -k killed"
    )
    bench.restore()
    killed = bench.spawn(kill_after=number)
    assert killed.killed, (
        f"point {number} ({bench.statement(number)}) did not kill the build "
        f"(exit {killed.returncode}); {replay}\n{killed.output}"
    )
    # the next build (a killed run's lease is stale after 1 s)
    repair(bench, f"seed {seed()}, killed after statement {number}: {killed.last()}; {replay}")
    holder, _ = bench.work.query(LEASE)[0]
    assert holder is None, f"the lease is still held after the repair build: {holder}"
    _assert_repaired(
        bench,
        f"seed {seed()}, killed after statement {number}: {killed.last()}\n"
        f"(clean build's statement {number}: {bench.statement(number)})\n{replay}",
    )


def test_a_server_crash_mid_build_then_a_restart_is_repaired_and_its_lease_taken_over(
    bench: Bench, server: FaultServer
) -> None:
    """`pg_ctl stop -m immediate` while fct_order_items is about to COMMIT; the build dies on
    the lost server; the server restarts (crash recovery); the crashed run's lease is still
    held; the next build takes it over once stale and gives the clean tables."""
    commit = bench.first("model.rerun_safe.fct_order_items", "commit")
    bench.restore()

    def crash(_child) -> None:
        server.crash()

    try:
        crashed = bench.spawn(pause_before=commit, while_paused=crash)
    finally:
        if not server.running:
            server.start()
    assert crashed.returncode == 1, f"the build went on after the server crash (exit {crashed.returncode})"
    assert "commit" in crashed.paused_at.lower(), crashed.paused_at
    holder, _ = bench.work.query(LEASE)[0]
    assert holder is not None, "the lease was released by a run whose server had crashed?"
    started = bench.work.query(f"select status from rerun_safe_runs where invocation_id = '{holder}'")
    assert started == [("started",)], started
    time.sleep(1.5)  # past the stale period of POSTGRES_LEASE
    repair(bench, f"server crash before statement {commit} ({crashed.paused_at})")
    assert bench.work.query(LEASE)[0] == (None, holder), "the next build did not take the crashed run's lease over"
    _assert_repaired(bench, f"server crash before statement {commit} ({crashed.paused_at})")


def test_a_backend_terminated_mid_transaction_is_repaired(bench: Bench, server: FaultServer) -> None:
    """pg_terminate_backend, from another connection, of the backend of fct_daily_revenue while
    its transaction is open (its writes done, COMMIT not sent): the model fails, nothing of it
    is committed, the run ends (and releases its lease); the next build gives the clean tables."""
    model = "model.rerun_safe.fct_daily_revenue"
    commit = bench.first(model, "commit")
    bench.restore()
    terminated: list[int] = []

    def terminate(_child) -> None:
        in_transaction = f"datname = '{WORK_DB}' and state = 'idle in transaction' and pid <> pg_backend_pid()"
        pids = [
            pid for (pid,) in server.server(WORK_DB).query(f"select pid from pg_stat_activity where {in_transaction}")
        ]
        assert len(pids) == 1, f"expected the one backend of {model} in a transaction, found {pids}"
        server.server(WORK_DB).query(f"select pg_terminate_backend({pids[0]}, 10000)")
        terminated.extend(pids)

    killed = bench.spawn(pause_before=commit, while_paused=terminate)
    assert terminated and killed.returncode == 1, f"exit {killed.returncode}:\n{killed.output}"
    run_seq = bench.work.scalar("select max(run_seq) from rerun_safe_runs")
    assert (
        bench.work.scalar(
            f"select count(*) from rerun_safe_run_log where run_seq = {run_seq} and model = 'fct_daily_revenue'"
        )
        == 0
    ), "a terminated transaction left progress"
    repair(bench, f"backend terminated before statement {commit} ({killed.paused_at})")
    _assert_repaired(bench, f"backend terminated before statement {commit} ({killed.paused_at})")
