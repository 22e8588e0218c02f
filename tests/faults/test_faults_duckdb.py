"""Kill points on DuckDB: `dbt build` SIGKILLed after statement N, N drawn over the whole run
(tests/faults/campaign.py), then the next normal build must equal the clean build of the same
deliveries: business tables, quarantine, late queue, ledger (posting ids included), copies,
staged rows and correction log.

Short form (make test): SHORT_POINTS points; `make faults` (FAULTS_FULL=1): FULL_POINTS.
Replay one: FAULT_SEED=<seed> FAULT_POINTS=<N> .venv/bin/python -m pytest tests/faults/test_faults_duckdb.py -k killed
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from tests.faults.campaign import Bench, bench_points, differences, duckdb_bench, point_count, repair, seed, state

ADAPTER = "duckdb"


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Bench:
    return duckdb_bench(tmp_path_factory.mktemp("faults_duckdb"))


@pytest.fixture(scope="module")
def points(bench: Bench) -> list[int]:
    return bench_points(bench, ADAPTER)


@pytest.mark.parametrize("index", range(point_count()))
def test_a_build_killed_at_a_statement_is_repaired_by_the_next_build(
    bench: Bench, points: list[int], index: int
) -> None:
    number = points[index]
    replay = (
        f"replay: FAULT_SEED={seed()} FAULT_POINTS={number} "
        f".venv/bin/python -m pytest tests/faults/test_faults_{ADAPTER}.py -k killed"
    )
    bench.restore()
    killed = bench.spawn(kill_after=number)
    assert killed.killed, (
        f"point {number} ({bench.statement(number)}) did not kill the build "
        f"(exit {killed.returncode}); {replay}\n{killed.output}"
    )
    # the next normal build
    repair(bench, f"seed {seed()}, killed after statement {number}: {killed.last()}; {replay}")
    got = state(bench.work)
    assert got == bench.reference, (
        f"{ADAPTER}: seed {seed()}, killed after statement {number}: {killed.last()}\n"
        f"(clean build's statement {number}: {bench.statement(number)})\n{replay}\n" + differences(bench.reference, got)
    )


BLOCK = 262144  # DuckDB's block size; a file is 3 header pages of 4096 bytes and whole blocks
HEADER = 3 * 4096


def _cut(path: Path, aligned: bool) -> int:
    """Cut a built warehouse file to half its size (or to the whole block just below half)."""
    size = path.stat().st_size
    half = size // 2
    if aligned:
        half = HEADER + (half - HEADER) // BLOCK * BLOCK
    os.truncate(path, half)
    return size


@pytest.mark.parametrize("aligned", [False, True], ids=["half", "half_on_a_block_boundary"])
def test_a_truncated_warehouse_file_fails_naming_it_and_never_builds_green(bench: Bench, aligned: bool) -> None:
    """DuckDB opens a cut file without a word (its header is intact) and fails only when it
    reads a block past the end: the build must fail before any node, naming the file, and
    again on a retry (never a green run on half a file)."""
    bench.restore()
    size = _cut(bench.work.warehouse, aligned)
    for attempt in (1, 2):
        result = bench.work.dbt("build", vars=bench.vars)
        message = " ".join(result.messages.values())
        assert not result.success, f"attempt {attempt}: a green build on a warehouse cut from {size} bytes"
        assert not result.statuses, f"attempt {attempt}: nodes ran on a cut warehouse: {result.statuses}"
        assert str(bench.work.warehouse.relative_to(bench.work.root)) in message, message


def test_a_truncated_warehouse_file_is_reported_as_such(bench: Bench) -> None:
    bench.restore()
    _cut(bench.work.warehouse, aligned=False)
    result = bench.work.dbt("build", vars=bench.vars)
    message = " ".join(result.messages.values())
    assert not result.success
    assert message.lstrip().startswith("rerun_safe:") or "rerun_safe: " in message, message
    assert "truncated" in message or "damaged" in message, message


def _header_block_count(path: Path) -> int:
    """The block count of the active database header (the one of the higher iteration), as DuckDB
    wrote it at its last checkpoint: DuckDB's DatabaseHeader (iteration, meta block, free list,
    block count, ...) follows an 8-byte checksum at 4096 and at 8192."""
    with open(path, "rb") as handle:
        handle.seek(4096)
        headers = [struct.unpack_from("<QQqqQ", handle.read(4096)) for _ in range(2)]
    return max(headers, key=lambda header: header[1])[4]


def _write_trimmed(path: Path) -> None:
    """A whole DuckDB file shorter than its header's block count: 2M rows written, dropped and
    checkpointed away, so DuckDB cuts the free blocks at the end."""
    import duckdb

    conn = duckdb.connect(str(path))
    conn.execute("create table kept as select range as i from range(100000)")
    conn.execute("checkpoint")
    conn.execute("create table dropped as select range as i, md5(range::varchar) as s from range(2000000)")
    conn.execute("checkpoint")
    conn.execute("drop table dropped")
    conn.execute("checkpoint")
    conn.close()


def test_a_whole_file_shorter_than_its_header_says_is_not_refused_and_a_cut_one_is(tmp_path: Path) -> None:
    """The false alarm that removed the first size check (a94cca4): DuckDB writes a checkpoint's
    header with the block count, then cuts the free blocks at the end of the file, so a whole file
    (a compacted one in particular) is shorter than the header and pragma_database_size say. The
    check compares the file with the blocks DuckDB's catalog still uses instead."""
    import duckdb

    from rerun_safe_duckdb.whole_file import BLOCK_START, WarehouseDamagedError, check_whole

    path = tmp_path / "trimmed.duckdb"
    _write_trimmed(path)
    size = path.stat().st_size
    assert size < BLOCK_START + _header_block_count(path) * BLOCK, "the file is not shorter than its header: no test"
    compacted = tmp_path / "compacted.duckdb"
    conn = duckdb.connect(":memory:")
    conn.execute(f"attach '{path}' as a; attach '{compacted}' as b; copy from database a to b")
    conn.close()
    for whole in (path, compacted):
        conn = duckdb.connect(str(whole))
        try:
            check_whole(conn, str(whole))  # not refused
            assert conn.execute("select count(*) from kept").fetchone() == (100000,)
        finally:
            conn.close()
    os.truncate(path, size - BLOCK)  # the last block holds data of `kept`
    conn = duckdb.connect(str(path))
    try:
        with pytest.raises(WarehouseDamagedError, match="truncated or damaged"):
            check_whole(conn, str(path))
    finally:
        conn.close()


def test_a_file_as_long_as_every_allocated_block_is_accepted_without_listing_segments(tmp_path: Path) -> None:
    """The fast path of check_whole: a file that reaches the end of pragma_database_size's
    total_blocks holds every block DuckDB uses, so the per-segment listing (whose cost grows
    with the warehouse) is skipped. A whole file shorter than that count (its free tail cut) is
    still listed segment by segment, and accepted; cut files are refused by the tests above."""
    import duckdb

    import rerun_safe_duckdb.whole_file as whole_file

    whole = tmp_path / "whole.duckdb"
    conn = duckdb.connect(str(whole))
    conn.execute("create table kept as select range as i, md5(range::varchar) as s from range(300000)")
    conn.execute("checkpoint")
    conn.close()
    trimmed = tmp_path / "trimmed.duckdb"
    _write_trimmed(trimmed)
    listed = []
    real = whole_file.furthest_block

    def spy(c):
        listed.append(True)
        return real(c)

    whole_file.furthest_block = spy
    try:
        for path, fast in ((whole, True), (trimmed, False)):
            listed.clear()
            conn = duckdb.connect(str(path))
            try:
                assert whole_file.holds_every_block(conn, str(path)) is fast, path.name
                whole_file.check_whole(conn, str(path))  # accepted either way
                assert bool(listed) is not fast, f"{path.name}: listed={bool(listed)}"
            finally:
                conn.close()
    finally:
        whole_file.furthest_block = real


@pytest.mark.parametrize("cut", [3, 6000, HEADER], ids=["inside_the_magic", "inside_a_header", "after_the_headers"])
def test_a_file_cut_so_short_that_duckdb_cannot_open_it_is_reported_as_truncated(tmp_path: Path, cut: int) -> None:
    """A cut in the headers or the first block fails in DuckDB's connect ("Could not read enough
    bytes", "not a valid DuckDB database file"): the wait for the file turns it into the same
    message, naming the file, instead of a raw IOException."""
    import duckdb

    from rerun_safe_duckdb.whole_file import WarehouseDamagedError
    from rerun_safe_duckdb.writer_lock import acquire

    path = tmp_path / "short.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("create table t as select range as i from range(1000)")
    conn.close()
    os.truncate(path, cut)
    damaged = r"rerun_safe: the warehouse .*short\.duckdb.* is truncated or damaged"
    with pytest.raises(WarehouseDamagedError, match=damaged):
        acquire(str(path), {}, 0)
