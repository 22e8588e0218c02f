"""Deliveries that change between their inspection (stg_landing__deliveries) and staging's read,
on DuckDB and on Postgres: nothing read from other bytes is staged under the inspected
identity, the other deliveries of the run load, and the next run loads the new content once."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.bad_input.catalogue import csv_text, row
from tests.bad_input.test_deliveries_over_time import frozen_stat
from tests.pipeline.project import Pipeline

Change = Callable[[Path], None]


@contextmanager
def changed_before_staging_reads(monkeypatch: pytest.MonkeyPatch, changes: dict[Path, Change]) -> Iterator[list[str]]:
    """Apply `changes` (a file -> what happens to it) just before the first statement that reads
    the landing folder for staging (its scan numbers records: `_record_number`), after the
    inspection committed its verdicts. Yields the statements that fired it (one, or the test fails)."""
    from dbt.adapters.sql.connections import SQLConnectionManager

    real_add_query = SQLConnectionManager.add_query
    fired: list[str] = []

    def add_query(self, sql: str, *args, **kwargs):
        if not fired and "_record_number" in sql:
            fired.append(sql)
            for path, change in changes.items():
                change(path)
        return real_add_query(self, sql, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(SQLConnectionManager, "add_query", add_query)
        yield fired


def sized(rows: list[dict[str, str]], size: int) -> str:
    """The CSV of `rows`, the last row's order_id padded so that the text has exactly `size` bytes."""
    text = csv_text(rows)
    missing = size - len(text.encode("utf-8"))
    assert missing >= 0, f"{len(text)} bytes already, over {size}"
    last = dict(rows[-1], order_id=rows[-1]["order_id"] + "x" * missing)
    text = csv_text([*rows[:-1], last])
    assert len(text.encode("utf-8")) == size
    return text


def rewrite_keeping_size_and_mtime(text: str) -> Change:
    """Other rows in place, the same size, the old mtime put back (cp -p, rsync -t)."""

    def change(path: Path) -> None:
        before = path.stat()
        data = text.encode("utf-8")
        assert len(data) == before.st_size
        with open(path, "r+b") as handle:
            handle.write(data)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))

    return change


def append(text: str) -> Change:
    def change(path: Path) -> None:
        with open(path, "ab") as handle:
            handle.write(text.encode("utf-8"))

    return change


def test_the_md5_staging_checks_is_the_inspections(tmp_path: Path) -> None:
    """rerun_safe_content_md5, staging's hash after its read, gives the inspection's MD5 of the
    same bytes (here over several of its 1 MiB pieces), and null for a file it cannot read."""
    from rerun_safe_duckdb import content_md5, inspect_delivery

    path = tmp_path / "big.csv"
    path.write_bytes(csv_text([row(f"m{i}", order_id="o" * 200) for i in range(12000)]).encode("utf-8"))
    assert path.stat().st_size > 2 * (1 << 20)
    assert content_md5(str(path)) == inspect_delivery(str(path))["content_md5"]
    assert content_md5(str(tmp_path / "gone.csv")) is None


REWRITTEN = [row("cw2", "1000"), row("cw3", "2000"), row("cw4", "4000")]
APPENDED = [row("cw6", "30")]


def run_scenario(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run 1 loads a; run 2 lists b, c and d, and between the inspection and staging's read b is
    rewritten (3 other rows, the same size, its mtime restored) and c appended to; run 3 loads
    what the folder then holds; run 4 finds nothing new. Runs 1 to 3 are `dbt run` (models
    only); run 4 is a build, whose data tests, among them "every landed row is accounted for"
    (tests/dbt), check the state the scenario ends with."""
    pipeline.land("2026-11-01_a.csv", raw=csv_text([row("cw0", "1")]))
    pipeline.run_ok()
    first_b = sized([row("cw1", "100"), row("cw1b", "200")], 400)
    b = pipeline.land("2026-11-02_b.csv", raw=first_b)
    c = pipeline.land("2026-11-02_c.csv", raw=csv_text([row("cw5", "10")]))
    pipeline.land("2026-11-02_d.csv", raw=csv_text([row("cw7", "7")]))
    changes = {
        b: rewrite_keeping_size_and_mtime(sized(REWRITTEN, 400)),
        c: append(csv_text(APPENDED).split("\n", 1)[1]),  # the rows only, no header
    }
    with changed_before_staging_reads(monkeypatch, changes) as fired:
        pipeline.run_ok()
    assert fired, "the change never happened: no statement read the landing folder for staging"
    # run 2: a and d staged, nothing of b or c (neither the bytes inspected nor the new ones)
    assert sorted(pipeline.query("select source_file, count(*) from stg_landing__events group by 1")) == [
        ("2026-11-01_a.csv", 1),
        ("2026-11-02_d.csv", 1),
    ]
    assert pipeline.scalar("select count(*) from rerun_safe_loaded_files") == 2
    assert sorted(
        pipeline.query(
            "select file_name, status, reason from stg_landing__deliveries"
            " where file_name in ('2026-11-02_b.csv', '2026-11-02_c.csv')"
        )
    ) == [
        ("2026-11-02_b.csv", "rejected", "changed_while_read"),
        ("2026-11-02_c.csv", "rejected", "changed_while_read"),
    ]
    assert pipeline.net_total() == 8
    # run 3: judged again, loaded once: b's three new rows, c's two
    pipeline.run_ok()
    assert sorted(pipeline.query("select source_file, count(*) from stg_landing__events group by 1")) == [
        ("2026-11-01_a.csv", 1),
        ("2026-11-02_b.csv", 3),
        ("2026-11-02_c.csv", 2),
        ("2026-11-02_d.csv", 1),
    ]
    assert pipeline.scalar("select count(distinct _row_id) from stg_landing__events") == 7
    assert pipeline.net_total() == 1 + 7000 + 10 + 30 + 7
    # run 4, nothing new: nothing read again
    pipeline.build()
    assert pipeline.scalar("select count(*) from stg_landing__events") == 7
    assert pipeline.scalar("select count(*) from rerun_safe_loaded_files") == 4


def test_a_delivery_changed_while_read_is_deferred_then_loaded_once(pipeline: Pipeline, monkeypatch) -> None:
    """Each inspection is stamped 3 s later than it ran, so its verdict trusts the stat (past
    the 2 s rule): the change is seen by the stat alone (the rewrite moved the change time)."""
    import rerun_safe_duckdb

    real_inspect = rerun_safe_duckdb.inspect_delivery

    def inspection(path: str):
        found = real_inspect(path)
        return {**found, "inspected_at_ns": found["inspected_at_ns"] + 3 * 10**9}

    monkeypatch.setattr(rerun_safe_duckdb, "inspect_delivery", inspection)
    run_scenario(pipeline, monkeypatch)


def test_a_change_the_stat_cannot_show_is_seen_by_the_bytes(pipeline: Pipeline, monkeypatch) -> None:
    """A rewrite in place in the same clock tick (the listing reports one fixed mtime and ctime,
    the inspection within 2 s of it): the stat is the same, so the file is hashed again after
    staging's read, and the other MD5 defers it; the next run loads the new rows once."""
    frozen_stat(monkeypatch, ctime_ns=1_700_000_000 * 10**9, inspected_after_ns=10**9)
    pipeline.land("2026-11-01_a.csv", raw=csv_text([row("cb0", "1")]))
    pipeline.run_ok()  # models only until the last build, which runs the data tests
    b = pipeline.land("2026-11-02_b.csv", raw=sized([row("cb1", "100"), row("cb1b", "200")], 400))
    inode = b.stat().st_ino
    with changed_before_staging_reads(monkeypatch, {b: rewrite_keeping_size_and_mtime(sized(REWRITTEN, 400))}) as fired:
        pipeline.run_ok()
    assert fired and b.stat().st_ino == inode
    assert pipeline.query("select source_file from stg_landing__events") == [("2026-11-01_a.csv",)]
    assert pipeline.query(
        "select status, reason from stg_landing__deliveries where file_name = '2026-11-02_b.csv'"
    ) == [("rejected", "changed_while_read")]
    pipeline.build()
    assert pipeline.scalar("select count(*) from stg_landing__events where source_file = '2026-11-02_b.csv'") == 3
    assert pipeline.net_total() == 1 + 7000


def test_a_delivery_changed_while_read_is_deferred_then_loaded_once_on_postgres(pg, monkeypatch) -> None:
    """The same on the Postgres target, whose server reads the files (pg_stat_file: whole
    seconds, no inode; pg_read_binary_file)."""
    run_scenario(pg, monkeypatch)


def test_bytes_that_changed_are_never_decoded_on_postgres(pg, monkeypatch) -> None:
    """Postgres reads a delivery's bytes once and decodes them only when their MD5 is the
    inspected one: a file rewritten with a byte that is not UTF-8 (the same size) between the
    inspection and staging's read fails nothing; it is deferred, and the next run rejects it
    (invalid_encoding)."""
    pg.land("2026-11-01_a.csv", raw=csv_text([row("cu0", "1")]))
    pg.run_ok()  # models only until the last build, which runs the data tests
    text = csv_text([row("cu1", "100")])
    b = pg.land("2026-11-02_b.csv", raw=text)

    with changed_before_staging_reads(monkeypatch, {b: not_utf8}) as fired:
        pg.run_ok()
    assert fired
    assert pg.query("select source_file from stg_landing__events") == [("2026-11-01_a.csv",)]
    assert pg.query("select status, reason from stg_landing__deliveries where file_name = '2026-11-02_b.csv'") == [
        ("rejected", "changed_while_read")
    ]
    pg.build()
    assert sorted(pg.query("select reason from stg_landing__deliveries where file_name = '2026-11-02_b.csv'")) == [
        ("changed_while_read",),
        ("invalid_encoding",),
    ]
    assert pg.net_total() == 1


def not_utf8(path: Path) -> None:
    """One byte of the file replaced by 0xff (the same size): the file is no longer UTF-8."""
    data = path.read_bytes()
    at = data.index(b"co1")
    path.write_bytes(data[:at] + b"\xff" + data[at + 1 :])


def test_a_change_that_fails_the_reader_does_not_stick_the_next_run(pipeline: Pipeline, monkeypatch) -> None:
    """DuckDB's reader fails on a byte that is not UTF-8 written between the inspection and its
    read: that run fails before COMMIT, nothing of it staged. The next run judges the file again
    (rejected, invalid_encoding); the delivery inspected before is superseded by it
    (changed_while_read), not owed, and the other delivery of the failed run loads."""
    pipeline.land("2026-11-01_a.csv", raw=csv_text([row("cf0", "1")]))
    pipeline.run_ok()  # models only until the last build, which runs the data tests
    b = pipeline.land("2026-11-02_b.csv", raw=csv_text([row("cf1", "100")]))
    pipeline.land("2026-11-02_d.csv", raw=csv_text([row("cf2", "20")]))
    with changed_before_staging_reads(monkeypatch, {b: not_utf8}) as fired:
        failed = pipeline.dbt("build")
    assert fired and not failed.success
    assert failed.status_of("stg_landing__events") == "error"
    assert pipeline.scalar("select count(*) from stg_landing__events") == 1
    pipeline.build()
    assert sorted(pipeline.query("select source_file from stg_landing__events")) == [
        ("2026-11-01_a.csv",),
        ("2026-11-02_d.csv",),
    ]
    assert sorted(
        pipeline.query("select status, reason from stg_landing__deliveries where file_name = '2026-11-02_b.csv'")
    ) == [("rejected", "changed_while_read"), ("rejected", "invalid_encoding")]
    assert pipeline.net_total() == 21
