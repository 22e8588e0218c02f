"""Deliveries that change, come back fixed, disappear or switch source window between runs,
on DuckDB: nothing landed is lost or read twice."""

from __future__ import annotations

import os
import time

import pytest

from tests.bad_input.catalogue import csv_text, row
from tests.pipeline.project import Pipeline


def _rewrite_keeping_stat(path, text: str) -> None:
    """Rewrite a file in place with the same size and its old mtime put back (cp -p, rsync -t)."""
    before = path.stat()
    data = text.encode("utf-8")
    assert len(data) == before.st_size
    path.write_bytes(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_mtime_ns == before.st_mtime_ns and path.stat().st_size == before.st_size


def test_rewrite_with_same_size_and_mtime_is_a_new_delivery(pipeline: Pipeline) -> None:
    """A file rewritten with the same size and its mtime kept: 100 becomes 900, and the new amount is published."""
    path = pipeline.land("2026-11-01_a.csv", raw=csv_text([row("rw1", "100")]))
    pipeline.run_ok()  # models only: the last build runs the data tests on the final state
    assert pipeline.net_total() == 100
    time.sleep(2.1)  # past the 2 s window in which a same-tick rewrite could hide (see the model)
    _rewrite_keeping_stat(path, csv_text([row("rw1", "900", version="2")]))
    pipeline.build()
    assert pipeline.net_total() == 900
    assert pipeline.scalar("select count(*) from stg_landing__deliveries where file_name = '2026-11-01_a.csv'") == 2
    # a rebuild can no longer read the first content: it refuses and says so
    refused = pipeline.dbt("build", "--full-refresh")
    assert not refused.success
    assert "2026-11-01_a.csv (rewritten since: its earlier content)" in " ".join(refused.messages.values())


def test_rewrite_in_the_same_second_is_still_seen(pipeline: Pipeline) -> None:
    """A rewrite right after the first run (same size, same mtime, within the racy window): still a new delivery."""
    path = pipeline.land("2026-11-01_a.csv", raw=csv_text([row("rr1", "100")]))
    pipeline.run_ok()
    _rewrite_keeping_stat(path, csv_text([row("rr1", "700", version="2")]))
    pipeline.build()
    assert pipeline.net_total() == 700


def test_same_content_rewritten_is_not_read_again(pipeline: Pipeline) -> None:
    """The same bytes written again under the same name (new mtime): the same delivery, nothing staged twice."""
    path = pipeline.land("2026-11-01_a.csv", raw=csv_text([row("sc1", "100")]))
    pipeline.run_ok()
    path.write_text(path.read_text())
    pipeline.build()
    assert pipeline.scalar("select count(*) from stg_landing__events") == 1
    assert pipeline.scalar("select count(*) from stg_landing__deliveries") == 1


def test_a_rejected_file_is_tried_again_when_it_changes(pipeline: Pipeline) -> None:
    """A file rejected for a missing column is fixed in place: the next run loads it; the rejection stays on record."""
    header = [
        "event_id",
        "event_type",
        "company_id",
        "order_id",
        "order_item_id",
        "currency",
        "event_time",
        "ingested_at",
        "version",
    ]
    pipeline.land("2026-11-01_a.csv", raw=csv_text([row("rf1", "300")], header=header))
    pipeline.land("2026-11-01_b.csv", raw=csv_text([row("rf2", "50")]))
    pipeline.run_ok()
    assert pipeline.net_total() == 50
    assert pipeline.query(
        "select status, reason from stg_landing__deliveries where file_name = '2026-11-01_a.csv'"
    ) == [("rejected", "incomplete_header")]
    metrics = pipeline.scalar(
        "select metrics from rerun_safe_run_log where model = 'stg_landing__deliveries' order by run_seq desc limit 1"
    )
    assert '"files_rejected":1' in metrics.replace(" ", "")
    pipeline.land("2026-11-01_a.csv", raw=csv_text([row("rf1", "300")]))
    pipeline.build()
    assert pipeline.net_total() == 350
    assert sorted(
        pipeline.query("select status from stg_landing__deliveries where file_name = '2026-11-01_a.csv'")
    ) == [("accepted",), ("rejected",)]


def test_full_refresh_refuses_when_loaded_files_were_archived(pipeline: Pipeline) -> None:
    """A loaded file is archived: --full-refresh refuses and names it; with accept_missing_deliveries it publishes
    without it."""
    pipeline.land("2026-11-01_a.csv", raw=csv_text([row("ar1", "100")]))
    archived = pipeline.land(
        "2026-11-02_b.csv",
        raw=csv_text([row("ar2", "40", event_time="2026-11-02T10:00:00Z", ingested_at="2026-11-02T11:00:00Z")]),
    )
    pipeline.run_ok()
    assert pipeline.net_total() == 140
    before = pipeline.business_state()
    archived.unlink()
    pipeline.run_ok()  # an incremental run does not need the archived file: fine, nothing changes
    assert pipeline.business_state() == before
    refused = pipeline.dbt("build", "--full-refresh")
    message = " ".join(refused.messages.values())
    assert not refused.success
    assert "2026-11-02_b.csv" in message and "accept_missing_deliveries" in message
    assert pipeline.business_state() == before, "the refused rebuild changed a published table"
    pipeline.build("--full-refresh", vars={"accept_missing_deliveries": True})
    assert pipeline.net_total() == 100


def test_an_accepted_file_that_vanishes_before_staging_is_named(pipeline: Pipeline) -> None:
    """A delivery accepted by one run but gone before staging loaded it: the next run names it instead of losing it."""
    pipeline.land("2026-11-01_a.csv", raw=csv_text([row("va1", "100")]))
    pipeline.build()
    gone = pipeline.land("2026-11-02_b.csv", raw=csv_text([row("va2", "40")]))
    listed_only = pipeline.run("--select", "stg_landing__deliveries")
    assert listed_only.success
    gone.unlink()
    result = pipeline.dbt("build")
    assert not result.success
    assert "2026-11-02_b.csv" in " ".join(result.messages.values())


def test_switching_source_window_loses_no_row(pipeline: Pipeline, tmp_path) -> None:
    """A file whose rows lie outside the lookback window is staged partly in lookback mode; back in files mode the
    rest loads."""
    late = dict(event_time="2026-10-01T10:00:00Z", ingested_at="2026-10-01T11:00:00Z")
    pipeline.land(
        "2026-11-05_a.csv",
        raw=csv_text([row("sw1", "100", event_time="2026-11-05T10:00:00Z", ingested_at="2026-11-05T11:00:00Z")]),
    )
    pipeline.run_ok()
    pipeline.land(
        "2026-11-05_b.csv",
        raw=csv_text(
            [
                row("sw2", "10", event_time="2026-11-05T12:00:00Z", ingested_at="2026-11-05T13:00:00Z"),
                row("sw3", "1", **late),
            ]
        ),
    )
    pipeline.run_ok(vars={"source_window": "lookback"})
    assert pipeline.scalar("select count(*) from stg_landing__events") == 2, "lookback skips the old row"
    pipeline.build(vars={"source_window": "files"})
    assert pipeline.scalar("select count(*) from stg_landing__events") == 3
    assert pipeline.scalar("select count(distinct _row_id) from stg_landing__events") == 3
    assert pipeline.scalar("select count(*) from rerun_safe_loaded_files") == 2
    # and the result equals a clean build of the same folder
    clean = Pipeline(tmp_path / "clean")
    for path in sorted(pipeline.landing.iterdir()):
        clean.land(path.name, raw=path.read_text())
    clean.build()
    assert pipeline.business_state() == clean.business_state()


def frozen_stat(monkeypatch, *, ctime_ns: int, inspected_after_ns: int) -> None:
    """The listing reports one fixed mtime and ctime for every file (a rewrite in the same clock
    tick, on a file system whose clock is coarse), and each inspection is stamped
    `inspected_after_ns` after that ctime: the two stamps the racy-window rule compares."""
    import rerun_safe_duckdb

    real_list, real_inspect = rerun_safe_duckdb.list_landing, rerun_safe_duckdb.inspect_delivery

    def listing(folder: str):
        return [{**entry, "mtime_ns": ctime_ns, "ctime_ns": ctime_ns} for entry in real_list(folder)]

    def inspection(path: str):
        return {**real_inspect(path), "inspected_at_ns": ctime_ns + inspected_after_ns}

    monkeypatch.setattr(rerun_safe_duckdb, "list_landing", listing)
    monkeypatch.setattr(rerun_safe_duckdb, "inspect_delivery", inspection)


def _rewrite_in_place(path, text: str) -> None:
    data = text.encode("utf-8")
    assert len(data) == path.stat().st_size
    inode = path.stat().st_ino
    path.write_bytes(data)
    assert path.stat().st_ino == inode


@pytest.mark.parametrize("inspected_after_s", [0, 1, 2])
def test_an_inspection_within_2_s_of_the_ctime_is_not_trusted(
    pipeline: Pipeline, monkeypatch, inspected_after_s: int
) -> None:
    """Inspected 0, 1 or exactly 2 s after the file's ctime, then rewritten with the same size,
    mtime, ctime and inode (one clock tick): the next run inspects the file again and publishes
    the new content."""
    frozen_stat(monkeypatch, ctime_ns=1_700_000_000 * 10**9, inspected_after_ns=inspected_after_s * 10**9)
    path = pipeline.land("2026-11-01_a.csv", raw=csv_text([row("rt1", "100")]))
    pipeline.run_ok()
    assert pipeline.net_total() == 100
    _rewrite_in_place(path, csv_text([row("rt1", "700", version="2")]))
    pipeline.build()
    assert pipeline.net_total() == 700
    assert pipeline.scalar("select count(*) from stg_landing__deliveries where file_name = '2026-11-01_a.csv'") == 2


def test_an_inspection_past_2_s_of_the_ctime_is_trusted(pipeline: Pipeline, monkeypatch) -> None:
    """The other side of the bound: inspected 2 s + 1 ns after the ctime, an unchanged stat is
    trusted and the file is not read again (here a rewrite that kept even its ctime, which a real
    file system cannot do, goes unseen: that is what trusting the stat means)."""
    frozen_stat(monkeypatch, ctime_ns=1_700_000_000 * 10**9, inspected_after_ns=2 * 10**9 + 1)
    path = pipeline.land("2026-11-01_a.csv", raw=csv_text([row("rt2", "100")]))
    pipeline.run_ok()
    _rewrite_in_place(path, csv_text([row("rt2", "700", version="2")]))
    pipeline.build()
    assert pipeline.net_total() == 100
    assert pipeline.scalar("select count(*) from stg_landing__deliveries where file_name = '2026-11-01_a.csv'") == 1


@pytest.mark.parametrize("miscount", [+1, -1], ids=["fewer_staged_than_records", "more_staged_than_records"])
def test_a_delivery_whose_staged_rows_differ_from_its_records_stops_the_build(
    pipeline: Pipeline, monkeypatch, miscount: int
) -> None:
    """The conservation check before COMMIT (records in a file = rows staged) fires on both sides:
    the inspection is made to count one record more (a row the reader lost) or one fewer (a row
    read twice) than the two a second delivery holds, and the build stops naming the delivery, with no row
    of it staged and the file not recorded as loaded."""
    import rerun_safe_duckdb

    real_inspect = rerun_safe_duckdb.inspect_delivery

    def inspection(path: str):
        found = real_inspect(path)
        return {**found, "records": found["records"] + miscount}

    pipeline.land("2026-11-01_a.csv", raw=csv_text([row("cv0", "50")]))
    pipeline.build()  # an honest first run
    monkeypatch.setattr(rerun_safe_duckdb, "inspect_delivery", inspection)
    pipeline.land("2026-11-02_b.csv", raw=csv_text([row("cv1", "100"), row("cv2", "250")]))
    result = pipeline.dbt("build")
    assert not result.success
    message = " ".join(result.messages.values())
    assert f"rerun_safe: delivery 2026-11-02_b.csv has {2 + miscount} records but 2 staged rows" in message, message
    # the staging model's transaction rolled back: no row of the file staged, the file not loaded
    assert pipeline.scalar("select count(*) from stg_landing__events") == 1
    assert pipeline.scalar("select count(*) from rerun_safe_loaded_files") == 1
