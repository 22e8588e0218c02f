"""What the verdicts rest on, without dbt where possible: a build that cannot start ends the
run, a data test that errors is a test failure, long values shown where they differ, rows
written in reverse order, a lane's landing folder compared as `<landing>`, NULL merge keys."""

from __future__ import annotations

import csv
from pathlib import Path

import duckdb

from harness.checks.base import Check, NoOptions
from harness.cli import main
from harness.context import CheckContext
from harness.dbt_invoke import DbtRun, DbtSettings, NodeResult
from harness.deliveries import write_reversed
from harness.diff import Side, diff_sides, excerpt, relation_columns, shorten_where_they_differ
from harness.engines.duckdb import DuckDBSql, DuckDBStore, take_snapshot
from harness.results import CheckResult, Status
from harness.runner import run_checks
from harness.workspace import LANDING_PLACEHOLDER, cannot_start
from tests.harness.helpers import DELIVERIES


def run_of(*nodes: tuple[str, str], error: str | None = None) -> DbtRun:
    return DbtRun(
        command="build",
        args=[],
        target_path=Path("."),
        error=error,
        duration_s=0.0,
        nodes=[NodeResult(uid, status, "boom" if status == "error" else "") for uid, status in nodes],
    )


def test_a_build_that_built_nothing_cannot_start() -> None:
    assert cannot_start(run_of(error="Compilation Error in model m")) == "Compilation Error in model m"
    every_node_failed = run_of(("model.p.a", "error"), ("model.p.b", "skipped"))
    assert cannot_start(every_node_failed) == "model.p.a: error: boom"
    # one model built: the build started, a model's error is a finding of the check
    assert cannot_start(run_of(("model.p.a", "success"), ("model.p.b", "error"))) == ""
    # a seed that loaded leaves nothing to judge when every model failed
    assert cannot_start(run_of(("seed.p.s", "success"), ("model.p.a", "error"))) == "model.p.a: error: boom"


def test_a_data_test_that_errors_is_reported_like_one_that_fails() -> None:
    run = run_of(("model.p.a", "success"), ("test.p.unique_a_id", "error"), ("test.p.nn", "fail"))
    assert run.ok and run.problems == []
    assert run.test_failures == ["test.p.unique_a_id: error: boom", "test.p.nn: fail"]


def _check(name: str, stops: str = "") -> Check[NoOptions]:
    class Fake(Check[NoOptions]):
        help = "a check"
        options_type = NoOptions

        def run(self, ctx: CheckContext, options: NoOptions) -> CheckResult:
            return CheckResult(name=name, status=Status.ERROR if stops else Status.PASS, cannot_start=stops)

    Fake.name = name
    return Fake()


def test_a_build_that_cannot_start_ends_the_run(tmp_path: Path) -> None:
    ctx = CheckContext(settings=DbtSettings(project_dir=tmp_path), workdir=tmp_path)
    results = run_checks([_check("a"), _check("b", stops="no such file"), _check("c"), _check("d")], ctx)
    assert [r.status for r in results] == [Status.PASS, Status.ERROR, Status.SKIPPED, Status.SKIPPED]
    assert results[2].reason == "not run: the build cannot start (reported by b)"


def test_a_project_whose_build_cannot_start_says_so_once(tmp_path: Path, capsys) -> None:
    project = tmp_path / "p"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(
        "name: p\nversion: '1.0'\nconfig-version: 2\nprofile: p\nmodel-paths: ['models']\n"
        "flags:\n  send_anonymous_usage_stats: false\n"
    )
    (project / "profiles.yml").write_text(
        "p:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: unused.duckdb\n"
    )
    (project / "models" / "m.sql").write_text("select * from read_csv('no_such_file.csv')\n")
    code = main(
        [
            "all",
            "--project-dir",
            str(project),
            "--deliveries",
            str(DELIVERIES),
            "--work-dir",
            str(tmp_path / "work"),
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert code == 2, out
    assert out.count("no_such_file.csv") == 1, out
    assert "== keys: ERROR" in out and "== idempotency: SKIPPED" in out
    assert "not run: the build cannot start (reported by keys)" in out


def test_a_long_value_is_shown_where_the_two_sides_differ() -> None:
    same = "x" * 60
    rows: list[tuple[object, ...]] = [("-", 1, "'k1'", f"'{same}AAAA'"), ("+", 1, "'k1'", f"'{same}BBBB'")]
    left, right = (row[3] for row in shorten_where_they_differ(rows, (2,)))
    assert "AAAA" in str(left) and "BBBB" in str(right) and str(left).startswith("…")
    assert excerpt("short", 3) == "short"
    assert excerpt("a" * 100, 0) == "a" * 40 + "…"


def test_reversed_files_keep_header_values_and_mtime(tmp_path: Path) -> None:
    source = tmp_path / "2026-11-01_a.csv"
    source.write_text('id,note\n1,"two\nlines"\n2,plain\n3,"a ""quote"""\n')
    target = tmp_path / "out" / source.name
    write_reversed(source, target)
    rows = list(csv.reader(target.open()))
    assert rows == [["id", "note"], ["3", 'a "quote"'], ["2", "plain"], ["1", "two\nlines"]]
    assert target.stat().st_mtime == source.stat().st_mtime
    parquet = tmp_path / "p.parquet"
    duckdb.sql(f"copy (select range as id from range(5)) to '{parquet}' (format parquet)")
    write_reversed(parquet, tmp_path / "out" / "p.parquet")
    relation = duckdb.sql(f"select id from '{tmp_path / 'out' / 'p.parquet'}'")
    assert relation is not None  # a query gives a relation (None: a statement without rows)
    reversed_ids = relation.fetchall()
    assert [r[0] for r in reversed_ids] == [4, 3, 2, 1, 0]


def test_a_lane_s_landing_folder_compares_as_a_placeholder(tmp_path: Path) -> None:
    snapshots = []
    for lane in ("one", "two"):
        warehouse = tmp_path / lane / "w.duckdb"
        warehouse.parent.mkdir()
        landing = tmp_path / lane / "landing"
        with duckdb.connect(str(warehouse)) as con:
            con.execute(f"create table files as select '{landing}/2026-11-01_a.csv' as filename, 4 as n")
        snapshot = take_snapshot(warehouse, tmp_path / lane / "snap", lane)
        assert DuckDBStore().unroot(snapshot, [str(landing)], LANDING_PLACEHOLDER) == 1
        snapshots.append(snapshot)
    with DuckDBStore().comparing(*snapshots) as (con, name_of):
        left, right = (name_of(s, s.relations[0]) for s in snapshots)
        sides = (Side(name, relation_columns(con, name)) for name in (left, right))
        diff = diff_sides(con, "main.files", *sides)
        assert diff.identical
        assert con.fetchone(f"select filename from {left}") == ("<landing>/2026-11-01_a.csv",)


def test_repeated_keys_with_a_null_column_are_counted(tmp_path: Path) -> None:
    con = DuckDBSql(duckdb.connect())
    con.execute("create table l as select * from (values ('e1', null, 1), ('e2', 'R', 2)) t(id, code, n)")
    con.execute("create table r as select * from l union all select 'e1', null, 1")
    diff = diff_sides(
        con, "main.t", Side("l", relation_columns(con, "l")), Side("r", relation_columns(con, "r")), key=("id", "code")
    )
    assert diff.duplicate_keys_right == 1 and diff.null_key_duplicates_right == 1


def test_a_model_reading_its_files_layout_and_its_children_only_warn(tmp_path: Path) -> None:
    import json

    from harness.checks.determinism import downstream_of, layout_readers, warn_layout
    from harness.project import Model, Project
    from harness.results import Comparison, TableDiff

    manifest = tmp_path / "manifest.json"
    manifest.write_text(
        json.dumps(
            {
                "nodes": {
                    "model.p.stg": {"config": {"meta": {"rerun_safe": {"reads_file_layout": True}}}},
                    "model.p.fct": {"config": {"meta": {}}},
                    "model.p.other": {"meta": {"rerun_safe": {"reads_file_layout": False}}},
                }
            }
        )
    )
    readers = layout_readers(manifest)
    assert readers == ["model.p.stg"]

    def model(name: str, *parents: str) -> Model:
        return Model(f"model.p.{name}", name, "model", "", "main", name, "table", parents=parents)

    project = Project("p", (model("stg"), model("fct", "model.p.stg"), model("other")))
    assert downstream_of(project, readers) == {"stg": "stg", "fct": "stg"}
    comparison = Comparison(
        label="reversed",
        left="a",
        right="b",
        diffs=[TableDiff(table=f"main.{name}", surplus_left=1, surplus_right=1) for name in ("stg", "fct", "other")],
    )
    warn_layout(comparison, downstream_of(project, readers))
    assert [bool(d.warning) for d in comparison.diffs] == [True, True, False]
    assert "stg reads its delivery files' layout" in comparison.diffs[1].warning


def test_a_diff_keeps_a_few_new_values_of_each_changed_column() -> None:
    con = DuckDBSql(duckdb.connect())
    con.execute("create table l as select * from (values (1, 'a', 10), (2, 'b', 20)) t(id, name, cents)")
    con.execute("create table r as select id, name, cents + 5 as cents from l")
    diff = diff_sides(
        con, "main.t", Side("l", relation_columns(con, "l")), Side("r", relation_columns(con, "r")), key=("id",)
    )
    assert diff.changed_columns == {"cents": 2}
    assert sorted(diff.changed_values["cents"]) == ["15", "25"]
