"""The pipeline on another engine against DuckDB, in either Spark lane (`spark`: a SparkPipeline
on `--target spark`, or a ClusterPipeline on `--target spark_thrift`): the same deliveries
staged there and on DuckDB give the same staged rows (values, reason codes, file and record
ordinals, row ids, payload hashes, run stamps) and the same delivery verdicts; built day by
day, the same business tables, quarantine, late queue and ledger as on DuckDB (`engine_state`).
Postgres runs the generated-deliveries scenario too (tests/postgres/test_postgres_target.py).

Known difference, asserted here: Spark's file source gives no row for a 0-byte file, so an
empty delivery is not recorded in stg_landing__deliveries on Spark (it has no record to stage;
`records_empty_deliveries`, tests/pipeline/project.py).
"""

from __future__ import annotations

from pathlib import Path

from pipeline_demo.generate import GeneratorConfig, generate
from tests.pipeline.project import Pipeline, assert_every_kind, deliveries_by_day, engine_state, event
from tests.pipeline.test_at_least_once import MALFORMED
from tests.spark.project import LanePipeline
from tests.spark.scenarios.repair import REPAIR

STAGING = ("--select", "stg_landing__deliveries", "stg_landing__events")
HEADER = "event_id,event_type,company_id,order_id,order_item_id,amount_cents,currency,event_time,ingested_at,version"
# Staged columns compared across engines: all but event_key, whose type is the engine's
# (DuckDB: a 128-bit integer of the md5; Spark: the md5 text).
STAGED = (
    "_row_id, event_id, event_type, company_id, order_id, order_item_id, amount_cents, currency,"
    " event_time, ingested_at, version, payload_hash, invalid_reason, raw_amount_cents, raw_event_time,"
    " raw_ingested_at, raw_version, source_file, source_line, _file_id, _loaded_run_seq"
)
DELIVERIES = (
    "file_id, file_name, status, reason, header_columns, records, size, content_md5,"
    " first_seen_run_seq, last_seen_run_seq"
)


def staged(pipeline: Pipeline) -> dict[str, list[tuple]]:
    return {
        "staged": sorted(pipeline.query(f"select {STAGED} from stg_landing__events"), key=repr),
        "deliveries": sorted(
            pipeline.query(f"select {DELIVERIES} from stg_landing__deliveries where size > 0"), key=repr
        ),
    }


def assert_same(duck: Pipeline, spark: Pipeline) -> dict[str, list[tuple]]:
    expected, got = staged(duck), staged(spark)
    for name in expected:
        missing = [row for row in expected[name] if row not in got[name]][:3]
        extra = [row for row in got[name] if row not in expected[name]][:3]
        assert got[name] == expected[name], f"{name} differs on Spark: missing {missing}, extra {extra}"
    return expected


def generated_deliveries_build_identically(tmp_path: Path, spark: Pipeline) -> None:
    """Generated deliveries (redeliveries, resends, versions, moves, conflicts, late and
    malformed rows, empty and header-only files), landed day by day, every model run after each
    day, the last day's run also recording a correction of the late rows before the first day
    (one run less on the slow engine than a correction of its own): after every day staging
    equals DuckDB's on the other engine (`spark`:
    a Spark lane's pipeline, or a PostgresPipeline), and at the end the business tables,
    quarantine, late queue and ledger (posting ids included) are identical. (A run with nothing
    new changing nothing on Spark is the harness's idempotency check in test_harness_on_spark.py.)"""
    deliveries = tmp_path / "deliveries"
    # 2 days (each day is a Spark run, a minute or two of CI): seed 84 has each of GENERATED_KINDS and,
    # after the correction, a late row still waiting (seed 7 in 3 days had no conflict and no move)
    summary = generate(GeneratorConfig(days=2, events_per_day=60, seed=84), deliveries)
    assert_every_kind(summary.pathologies)
    duck = Pipeline(tmp_path / "duck")
    files = sorted(deliveries.glob("*.csv"))
    days = deliveries_by_day(deliveries)
    correction = {"correct_from": "2026-10-01", "correct_to": files[0].name[:10]}
    for number, day in enumerate(days, start=1):
        for pipeline in (duck, spark):
            pipeline.deliver(*day)
        day_vars = correction if number == len(days) else None
        assert duck.run(vars=day_vars).success
        spark.run_ok(vars=day_vars)
        state = assert_same(duck, spark)
    assert len(state["staged"]) > 100
    assert any(row[12] is not None for row in state["staged"]), "the generated data has invalid rows"
    empty = [p.name for p in files if p.stat().st_size == 0]
    assert empty, "the generator lands an empty file"
    recorded = spark.query(f"select count(*) from stg_landing__deliveries where file_name in ('{empty[0]}')")
    assert recorded == [(1 if spark.records_empty_deliveries else 0,)], recorded
    expected, got = engine_state(duck), engine_state(spark)
    assert len(expected["items"]) > 50 and expected["quarantine"] and expected["late"] and expected["ledger"]
    assert {status for _id, status, *_ in expected["late"]} == {"applied", "waiting"}, expected["late"]
    assert "conflicting_version" in {row[1] for row in expected["quarantine"]}, "no conflicting version"
    for name in expected:
        assert got[name] == expected[name], f"{name} differs between DuckDB and Spark"
    assert spark.query("select distinct status from rerun_safe_runs") == [("success",)]


def malformed_rows_and_odd_files_stage_as_on_duckdb(tmp_path: Path, spark: LanePipeline) -> None:
    """Every row reason code with its line, an extra field, quoted commas and quotes, CRLF, a
    BOM, blank lines, a header in another order; and the files rejected whole, with the same
    reason codes as DuckDB."""
    duck = Pipeline(tmp_path / "duck")
    reordered = HEADER.split(",")[::-1]
    for pipeline in (duck, spark):
        pipeline.land("2026-11-01_001_main.csv", [event("good", 500), *list(MALFORMED.values())])
        pipeline.land(
            "2026-11-01_002_broken.csv",
            raw=HEADER + "\n"
            "x1,sale,co1,o1,i1,100,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1,EXTRA\n"
            "x2,sale,co1,o1,i1,99999999999999999999,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1\n"
            "x3,sale,co1,o1,i1,100,EUR,2026-02-29T10:00:00Z,2026-11-01T11:00:00Z,1\n"
            "x4,sale,co1,o1,i1,100,EUR,2026-11-01T24:00:00Z,2026-11-01T11:00:00Z,1\n",
        )
        pipeline.land(
            "2026-11-01_003_quoting.csv",
            raw="\ufeff" + HEADER + "\r\n"
            '"q1",sale,"co,1","o""1",i1,100,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1\r\n'
            "\r\n"
            'q2,sale,co1,"o,2",i2,200,EUR,2026-11-01 10:00:00,2026-11-01 11:00:00,1\r\n'
            "q3,sale,co1,o1,i3,300,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1,\r\n",
        )
        pipeline.land(
            "2026-11-01_004_reordered.csv",
            raw=",".join(reordered) + "\n" + ",".join(event("r1", 700)[c] for c in reordered) + "\n",
        )
        pipeline.land("2026-11-01_005_headeronly.csv", [])
        pipeline.land("2026-11-01_006_unterminated.csv", raw=HEADER + '\n"u1,sale,co1,o1,i1,100,EUR,x,y,1\n')
        pipeline.land("2026-11-01_007_unknown.csv", raw=HEADER + ",colour\n")
        pipeline.land(
            "2026-11-01_008_noheader.csv", raw="a1,sale,co1,o1,i1,100,EUR,2026-11-01T10:00:00Z,2026-11-01T11:00:00Z,1\n"
        )
        pipeline.land("2026-11-01_009_duplicate.csv", raw=HEADER + ",version\n")
        pipeline.land("2026-11-01_010_incomplete.csv", raw=HEADER.replace(",version", "") + "\n")
        (pipeline.landing / "2026-11-01_011_latin1.csv").write_bytes(
            (HEADER + "\nl1,sale,caf\xe9,o1,i1,1,EUR,x,y,1\n").encode("latin-1")
        )
    assert duck.run(*STAGING).success
    spark.run_ok(*STAGING)
    state = assert_same(duck, spark)
    verdicts = {row[1]: (row[2], row[3]) for row in state["deliveries"]}
    assert verdicts["2026-11-01_006_unterminated.csv"] == ("rejected", "unterminated_quote")
    assert verdicts["2026-11-01_007_unknown.csv"] == ("rejected", "unknown_columns")
    assert verdicts["2026-11-01_008_noheader.csv"] == ("rejected", "missing_header")
    assert verdicts["2026-11-01_009_duplicate.csv"] == ("rejected", "duplicate_columns")
    assert verdicts["2026-11-01_010_incomplete.csv"] == ("rejected", "incomplete_header")
    assert verdicts["2026-11-01_011_latin1.csv"] == ("rejected", "invalid_encoding")
    assert sorted(
        spark.query(
            "select event_id, company_id, order_id, source_line from stg_landing__events"
            " where source_file = '2026-11-01_003_quoting.csv'"
        )
    ) == [("q1", "co,1", 'o"1', 2), ("q2", "co1", "o,2", 3), ("q3", "co1", "o1", 4)]
    assert spark.query(
        "select event_id, amount_cents from stg_landing__events where source_file like '%reordered.csv'"
    ) == [("r1", 700)]


def a_failure_after_the_write_is_caught_and_repaired(tmp_path: Path, spark: LanePipeline) -> None:
    """Spark has no transaction: a model that fails after its write (an injected fault, before
    its run-log row) keeps what it wrote. The copies model folds new rows into its old copies,
    so its rerun would fold them twice: the balance check stops it, naming the repair, and the
    repair (rebuild staging and its dependants) gives the tables a clean DuckDB build gives."""
    deliveries = tmp_path / "deliveries"
    generate(GeneratorConfig(days=2, events_per_day=20), deliveries)
    duck = Pipeline(tmp_path / "duck")
    days = deliveries_by_day(deliveries)
    duck.deliver(*(path for day in days for path in day))
    assert duck.run().success
    spark.deliver(*days[0])
    spark.run_ok()
    failure_after_the_write_then_repair(spark, days[1], duck)


def failure_after_the_write_then_repair(spark: LanePipeline, day: list[Path], clean: Pipeline) -> None:
    """`spark` (built up to the day before `day`) gets `day`, and its copies model fails after
    its write: the rerun stops on the balance, and the repair gives the tables of `clean` (a
    DuckDB pipeline built with every day up to `day`). The cluster lane runs this after its
    kill (tests/spark/cluster_lane/test_cluster_kill.py), on the warehouse the kill left repaired."""
    spark.deliver(*day)
    failed = spark.run(vars={"rerun_safe_fail_model": "int_event_copies_classified"})
    assert not failed.success and "injected fault" in failed.messages["model.rerun_safe.int_event_copies_classified"]
    rerun = spark.run()
    assert not rerun.success
    assert "valid staged rows != rows in copies" in rerun.messages["model.rerun_safe.int_event_copies_classified"]
    spark.run_ok(*REPAIR)
    expected, got = engine_state(clean), engine_state(spark)
    for name in ("items", "days", "quarantine", "late"):
        assert got[name] == expected[name], f"{name} differs from a clean DuckDB build after the repair"
    ledger_sums = (
        "select company_id, revenue_date, currency, sum(amount_cents) from fct_revenue_ledger"
        " group by company_id, revenue_date, currency having sum(amount_cents) != 0"
    )
    assert sorted(spark.query(ledger_sums), key=repr) == sorted(clean.query(ledger_sums), key=repr)
