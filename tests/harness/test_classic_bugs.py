"""Every classic incremental bug fails the check meant for it, with a readable hint, in both
delivery modes; the correct twins pass `all`.

| bug | landing folders (`buggy`) | sources (`jaffle_sources_buggy`) | check |
|---|---|---|---|
| append with `>` | `append_gt` | `orders_append_gt` | convergence (rows dropped) |
| append with `>=` | `append_gte` | `orders_append_gte` | idempotency (duplicates from append) |
| non-unique key | `merge_non_unique` | `payments_by_order` | keys (names the duplicate keys) |
| current_timestamp | `current_time` | `customers_stamped` | idempotency (volatile column) |
| dropped late row | `lookback_zero` | `orders_late_dropped` | convergence (rows dropped) |
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from harness.cli import main
from harness.hints import APPEND_DUPLICATES, DROPPED_LATE
from tests.harness.helpers import DELIVERIES, FIXTURES, PROJECTS

SOURCE_DELIVERIES = FIXTURES / "deliveries_sources"


@dataclass(frozen=True)
class Mode:
    """A buggy twin: its project, deliveries and extra flags, and the model with each bug."""

    project: str
    deliveries: Path
    extra: tuple[str, ...]
    gt: str  # drops a late row (convergence)
    gte: str  # appends rows again (idempotency)
    key: str  # repeats its key (keys)
    now: str  # stamps the build's time (idempotency)
    late: str  # drops a late row behind its lookback (convergence)
    key_sample: str  # the sample of its duplicate keys


MODES = {
    "landing": Mode(
        project="buggy",
        deliveries=DELIVERIES,
        extra=(),
        gt="append_gt",
        gte="append_gte",
        key="merge_non_unique",
        now="current_time",
        late="lookback_zero",
        key_sample="'i1' x3",
    ),
    "sources": Mode(
        project="jaffle_sources_buggy",
        deliveries=SOURCE_DELIVERIES,
        extra=("--load-sources",),
        gt="orders_append_gt",
        gte="orders_append_gte",
        key="payments_by_order",
        now="customers_stamped",
        late="orders_late_dropped",
        key_sample="1 x2",
    ),
}


def _run(args: list[str], capsys) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


def classic_bugs_args(mode: str, summary: Path, work: Path) -> list[str]:
    case = MODES[mode]
    return [
        "all",
        "--project-dir",
        str(PROJECTS / case.project),
        "--deliveries",
        str(case.deliveries),
        *case.extra,
        "--only",
        "keys",
        "idempotency",
        "convergence",
        "--summary",
        str(summary),
        "--work-dir",
        str(work),
        "--quiet",
    ]


@pytest.mark.parametrize("mode", sorted(MODES))
def test_each_classic_bug_fails_the_check_meant_for_it(mode: str, tmp_path: Path, capsys) -> None:
    summary = tmp_path / "summary.md"
    code, out = _run(classic_bugs_args(mode, summary, tmp_path / "work"), capsys)
    assert_each_bug_failed_its_check(mode, code, out, summary.read_text())


def assert_each_bug_failed_its_check(mode: str, code: int, out: str, text: str) -> None:
    """The models × checks table and the hints of a run of `classic_bugs_args` (also used by
    tests/postgres/test_harness_on_postgres.py)."""  # noqa: RUF002 the heading it names has a multiplication sign
    case = MODES[mode]
    assert code == 1, out
    heading = "### models × checks"  # noqa: RUF001 the summary's heading has a multiplication sign (U+00D7)
    rows = text.split(heading, 1)[1].strip().split("\n\n", 1)[0].splitlines()
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    assert header == ["model", "keys", "idempotency", "convergence"]
    table = {
        cells[0]: dict(zip(header[1:], cells[1:], strict=True))
        for cells in ([c.strip() for c in row.strip("|").split("|")] for row in rows[2:])
    }
    assert table[case.key]["keys"] == "DUPLICATE KEYS", text
    assert table[case.gte]["idempotency"] == "DIFF" and table[case.now]["idempotency"] == "DIFF", text
    assert table[case.gt]["convergence"] == "DIFF" and table[case.late]["convergence"] == "DIFF", text
    # each once: later checks list what idempotency already reported
    assert table[case.gte]["convergence"] == "= idempotency" and table[case.now]["convergence"] == "= idempotency"
    assert table[case.gt]["idempotency"] == "ok" and table[case.late]["idempotency"] in ("ok", "= keys")
    assert table[case.gt]["keys"] == "no key"  # append, no key: listed, not "ok"
    # readable hints and named duplicate keys
    assert f"hint: {case.gte}: {APPEND_DUPLICATES}" in out
    assert f"hint: {case.now}: volatile column(s)" in out
    assert f"hint: {case.gt}: {DROPPED_LATE}" in out
    assert f"hint: {case.late}: {DROPPED_LATE}" in out
    assert f"DUPLICATE KEYS {case.key}:" in out and case.key_sample in out


def test_the_sources_twin_passes_all(tmp_path: Path, capsys) -> None:
    # Every check that applies (no --only); lateness does not (no event/ingestion times).
    code, out = _run(
        [
            "all",
            "--project-dir",
            str(PROJECTS / "jaffle_sources"),
            "--deliveries",
            str(SOURCE_DELIVERIES),
            "--load-sources",
            "--work-dir",
            str(tmp_path / "work"),
            "--quiet",
            # crash: 1 stop and 1 kill (the defaults are 3 and 2); tests/harness/test_crash.py stops
            # and kills the landing twin 2 and 2 times
            "--crash-points",
            "1",
            "--kill-points",
            "1",
        ],
        capsys,
    )
    assert code == 0, out
    assert "8 passed, 0 failed, 0 not exercised, 1 skipped, 0 could not run" in out
    assert "== lateness: SKIPPED" in out and "no column event_time, ingested_at" in out
    assert "rows appended to sources 21" in out  # replay loaded every batch again
    # the loaded source tables are named as the input, not as something a hook made
    assert "main_raw.raw_orders: not judged: a source of the project" in out, out
    assert "kill points tried 1" in out, out
    # The profile's own file was never created.
    assert not (PROJECTS / "jaffle_sources" / "jaffle_shop.duckdb").exists()


def _as_hive_parquet(source: Path, dest: Path) -> None:
    """The same deliveries as an EL tool's object store writes them: table/batch=KEY/*.parquet."""
    con = duckdb.connect()
    try:
        for csv in sorted(source.glob("*.csv")):
            key, table = csv.stem.split("_", 1)
            folder = dest / table / f"batch={key}"
            folder.mkdir(parents=True)
            con.execute(
                f"copy (select * from read_csv('{csv}', header = true)) "
                f"to '{folder / 'part-0.parquet'}' (format parquet)"
            )
    finally:
        con.close()


def test_hive_style_parquet_deliveries_load_into_sources(tmp_path: Path, capsys) -> None:
    hive = tmp_path / "deliveries"
    _as_hive_parquet(SOURCE_DELIVERIES, hive)
    code, out = _run(
        [
            "all",
            "--project-dir",
            str(PROJECTS / "jaffle_sources_buggy"),
            "--deliveries",
            str(hive),
            "--load-sources",
            "--only",
            "convergence",
            "--work-dir",
            str(tmp_path / "work"),
            "--quiet",
        ],
        capsys,
    )
    assert code == 1, out
    assert "batches built one by one 4, files 10" in out
    assert "2 table(s) differ: orders_append_gt, orders_late_dropped" in out or "orders_append_gt" in out
