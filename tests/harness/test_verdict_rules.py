"""The rules that carry the harness's verdicts, each pinned by a small test that runs no dbt
build: multiset counting and NULL = NULL in the diff, no vacuous pass, the scratch target,
the crash trials, batch cutting, and the exit status. Each test is proven by the mutants of
mutation/mutants.yml (X..) that it kills."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import duckdb
import pytest

from harness import api, cli, reference
from harness.checks import crash
from harness.checks.base import Check, NoOptions
from harness.compare import Purpose, compare_snapshots
from harness.context import CheckContext, finish
from harness.dbt_invoke import DbtSettings, build_args
from harness.deliveries import Batch, discover_batches, landed_path, mark_unread, reads_observable, was_read
from harness.diff import Side, diff_sides, relation_columns
from harness.engines.base import Snapshot
from harness.engines.duckdb import DuckDBSql, take_snapshot
from harness.errors import Refused
from harness.project import CompareMode, Model, Project, RerunSafeMeta
from harness.reference import Reference
from harness.results import CheckResult, Comparison, Interruption, Status, TableDiff, Trial
from harness.runner import run_checks
from harness.target import SCHEMA_ENV, THREADS_ENV, WAREHOUSE_ENV, ScratchProfile, check_locations, scratch_profile
from harness.workspace import Lane, Spawned
from tests.harness.helpers import DELIVERIES, PROJECTS

# ---- the diff: a multiset, NULL = NULL, counts per row -------------------------------------


def _diff(tmp_path: Path, left_sql: str, right_sql: str, **kwargs) -> TableDiff:
    con = duckdb.connect()
    for name, sql in (("l", left_sql), ("r", right_sql)):
        con.execute(f"attach '{tmp_path / name}.duckdb' as {name}")
        con.execute(f"use {name}")
        con.execute(sql)
    con.execute("use memory")
    try:
        wrapped = DuckDBSql(con)
        return diff_sides(
            wrapped,
            "main.t",
            Side("l.main.t", relation_columns(wrapped, "l.main.t")),
            Side("r.main.t", relation_columns(wrapped, "r.main.t")),
            **kwargs,
        )
    finally:
        con.close()


def test_a_row_tripled_is_two_surplus_rows(tmp_path: Path) -> None:
    result = _diff(
        tmp_path,
        "create table t as select * from (values (1, 'a'), (2, 'b')) v(id, x)",
        "create table t as select * from (values (1, 'a'), (1, 'a'), (1, 'a')) v(id, x)",
    )
    assert (result.surplus_left, result.surplus_right) == (1, 2)
    # one group is on both sides with other counts (1, 'a'); (2, 'b') is on the left only
    assert result.duplicated_groups == 1


def test_pairs_of_duplicates_are_not_cancelled_by_the_fingerprint(tmp_path: Path) -> None:
    # Same row count, each side two copies of a different row: a fingerprint in which
    # duplicates cancel (XOR) would call them identical.
    result = _diff(
        tmp_path,
        "create table t as select * from (values (1, 'a'), (1, 'a')) v(id, x)",
        "create table t as select * from (values (2, 'b'), (2, 'b')) v(id, x)",
    )
    assert not result.identical
    assert (result.surplus_left, result.surplus_right) == (2, 2)


def test_a_null_key_whose_value_changed_names_the_column(tmp_path: Path) -> None:
    result = _diff(
        tmp_path,
        "create table t as select * from (values (null::int, 'a'), (1, 'c')) v(id, x)",
        "create table t as select * from (values (null::int, 'b'), (1, 'c')) v(id, x)",
        key=("id",),
    )
    assert (result.keys_added, result.keys_removed, result.keys_changed) == (0, 0, 1)
    assert result.changed_columns == {"x": 1}


def test_keys_added_and_removed_are_told_apart(tmp_path: Path) -> None:
    result = _diff(
        tmp_path,
        "create table t as select * from (values (1, 'a'), (2, 'b'), (3, 'c')) v(id, x)",
        "create table t as select * from (values (1, 'a')) v(id, x)",
        key=("id",),
    )
    assert (result.keys_removed, result.keys_added, result.keys_changed) == (2, 0, 0)


def _warehouse(path: Path, *statements: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(path))
    for statement in statements:
        con.execute(statement)
    con.close()
    return path


def _model(name: str, meta: RerunSafeMeta) -> Model:
    return Model(f"model.p.{name}", name, "model", "w", "main", name, "incremental", rerun_safe=meta)


@pytest.mark.parametrize("purpose", list(Purpose))
def test_a_history_is_compared_by_balances_only_when_converging(tmp_path: Path, purpose: Purpose) -> None:
    # The same balance, but two more postings: a rerun or replay must post nothing.
    before = take_snapshot(
        _warehouse(tmp_path / "a" / "w.duckdb", "create table ledger as select 1 as company_id, 100 as cents"),
        tmp_path / "sa",
        "before",
    )
    after = take_snapshot(
        _warehouse(
            tmp_path / "b" / "w.duckdb",
            "create table ledger as select * from (values (1, 100), (1, 50), (1, -50)) v(company_id, cents)",
        ),
        tmp_path / "sb",
        "after",
    )
    meta = RerunSafeMeta(compare=CompareMode.HISTORY, group_by=("company_id",), sum_columns=("cents",))
    comparison = compare_snapshots(before, after, Project("p", (_model("ledger", meta),)), label="x", purpose=purpose)
    assert comparison.passed is (purpose is Purpose.CONVERGE)


def test_a_table_missing_on_one_side_fails_the_comparison(tmp_path: Path) -> None:
    before = take_snapshot(
        _warehouse(
            tmp_path / "a" / "w.duckdb",
            "create table revenue as select 1 as cents",
            "create table orders as select 1 as id",
        ),
        tmp_path / "sa",
        "before",
    )
    after = take_snapshot(
        _warehouse(tmp_path / "b" / "w.duckdb", "create table revenue as select 1 as cents"), tmp_path / "sb", "after"
    )
    project = Project("p", (_model("revenue", RerunSafeMeta()), _model("orders", RerunSafeMeta())))
    comparison = compare_snapshots(before, after, project, label="x", purpose=Purpose.RERUN)
    assert not comparison.passed
    assert comparison.diff_for("orders").missing_on == "right"


# ---- no vacuous pass ------------------------------------------------------------------------


def _comparison(*diffs: TableDiff) -> Comparison:
    return Comparison(label="x", left="a", right="b", diffs=list(diffs))


def test_a_check_that_compared_no_row_is_not_exercised() -> None:
    empty = _comparison(TableDiff(table="main.t", left_rows=0, right_rows=0))
    result = finish("c", 0.0, [empty])
    assert result.status is Status.NOT_EXERCISED
    assert result.reason == "every judged table was empty in every build: nothing was compared"
    assert finish("c", 0.0, []).status is Status.NOT_EXERCISED
    assert finish("c", 0.0, [_comparison(TableDiff(table="main.t", left_rows=2, right_rows=2))]).status is Status.PASS
    said = finish("c", 0.0, [_comparison(TableDiff(table="main.t", left_rows=2, right_rows=2))], nothing="why")
    assert (said.status, said.reason) == (Status.NOT_EXERCISED, "why")


def test_a_difference_fails_the_check() -> None:
    differs = _comparison(TableDiff(table="main.t", left_rows=2, right_rows=3, surplus_right=1))
    assert finish("c", 0.0, [differs]).status is Status.FAIL


def test_a_file_marked_unread_shows_a_later_read(tmp_path: Path) -> None:
    if not reads_observable(tmp_path / "probe"):
        pytest.skip("this file system records no access times")
    path = tmp_path / "2026-11-01_a.csv"
    path.write_text("id\n1\n")
    mark_unread([path])
    assert not was_read(path)
    path.read_bytes()
    assert was_read(path)


def test_batches_with_no_other_split_is_not_exercised(tmp_path: Path) -> None:
    # One key per batch is the natural split itself: nothing is compared (runs 3 dbt builds).
    from tests.harness.helpers import run_fixture_check

    result = run_fixture_check("batches", "correct", tmp_path / "work", splits=("coarse",), keys_per_batch=1)
    assert result.status is Status.NOT_EXERCISED, result.failure_message()
    assert result.reason == "every other split equals the natural one: nothing to compare"


# ---- the scratch target: the user's warehouse is never written ------------------------------


def _project(root: Path, profile: str) -> Path:
    root.mkdir(parents=True)
    (root / "dbt_project.yml").write_text("name: tiny\nversion: '1.0'\nconfig-version: 2\nprofile: tiny\n")
    (root / "profiles.yml").write_text(textwrap.dedent(profile))
    return root


def _written(out: Path) -> dict:
    import yaml

    return yaml.safe_load((out / "profiles.yml").read_text())["tiny"]["outputs"]["rerun_safe_scratch"]


def test_a_hard_coded_duckdb_path_is_replaced(tmp_path: Path) -> None:
    project = _project(
        tmp_path / "p",
        f"""\
        tiny:
          target: prod
          outputs:
            prod: {{type: duckdb, path: "{tmp_path / "prod.duckdb"}", threads: 2}}
        """,
    )
    scratch = scratch_profile(project, project, None, {}, tmp_path / "out")
    target = _written(tmp_path / "out")
    assert target["path"] == "{{ env_var('" + WAREHOUSE_ENV + "') }}"
    assert WAREHOUSE_ENV in target["external_root"]
    assert target["threads"] == 2
    assert scratch.user_location == str(tmp_path / "prod.duckdb")


def test_the_scratch_profile_runs_duckdb_on_the_threads_a_lane_sets(tmp_path: Path) -> None:
    # determinism builds on one thread: the setting must reach the connection dbt opens
    project = _project(
        tmp_path / "p",
        """\
        tiny:
          target: dev
          outputs:
            dev: {type: duckdb, path: ":memory:", settings: {threads: 3, memory_limit: 1GB}}
        """,
    )
    scratch_profile(project, project, None, {}, tmp_path / "out")
    target = _written(tmp_path / "out")
    assert target["settings"]["memory_limit"] == "1GB"  # the user's settings are kept
    assert target["settings"]["threads"] == "{{ env_var('" + THREADS_ENV + '\', "3") }}'

    def threads_seen(env: dict[str, str]) -> str:
        done = subprocess.run(
            [str(Path(sys.executable).parent / "dbt"), "show", "--inline", "select current_setting('threads') as t",
             "--output", "json", "--log-format", "json", "--project-dir", str(project),
             "--profiles-dir", str(tmp_path / "out")],
            capture_output=True, text=True, env={**env, WAREHOUSE_ENV: str(tmp_path / "w.duckdb")}, cwd=project,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return re.findall(r'\\"t\\": (\d+)', done.stdout)[0]

    env = {k: v for k, v in os.environ.items() if k != THREADS_ENV}
    assert threads_seen(env) == "3"
    assert threads_seen({**env, THREADS_ENV: "1"}) == "1"


def test_a_writable_attachment_is_refused(tmp_path: Path) -> None:
    project = _project(
        tmp_path / "p",
        f"""\
        tiny:
          target: dev
          outputs:
            dev:
              type: duckdb
              path: ":memory:"
              attach: [{{path: "{tmp_path / "shared.duckdb"}"}}]
        """,
    )
    with pytest.raises(Refused, match="writable"):
        scratch_profile(project, project, None, {}, tmp_path / "out")
    assert not (tmp_path / "out" / "profiles.yml").exists()


def test_an_adapter_the_harness_does_not_drive_is_refused(tmp_path: Path) -> None:
    project = _project(
        tmp_path / "p",
        """\
        tiny:
          target: dev
          outputs:
            dev: {type: snowflake, account: x, schema: analytics}
        """,
    )
    with pytest.raises(Refused, match="snowflake"):
        scratch_profile(project, project, None, {}, tmp_path / "out")


@pytest.mark.parametrize("adapter", ["postgres", "spark"])
def test_a_servers_schema_becomes_the_scratch_schema(tmp_path: Path, adapter: str) -> None:
    settings = (
        "{type: postgres, host: h, port: 5432, user: u, password: '', dbname: d, schema: analytics}"
        if adapter == "postgres"
        else "{type: spark, method: session, host: localhost, schema: analytics}"
    )
    project = _project(
        tmp_path / "p",
        f"""\
        tiny:
          target: dev
          outputs:
            dev: {settings}
        """,
    )
    scratch = scratch_profile(project, project, None, {}, tmp_path / "out")
    target = _written(tmp_path / "out")
    assert target["schema"] == "{{ env_var('" + SCHEMA_ENV + "') }}"
    assert target["host"] in ("h", "localhost") and scratch.user_schema == "analytics"


def _manifest(path: Path, nodes: dict[str, dict]) -> Path:
    path.write_text(json.dumps({"nodes": nodes}))
    return path


def _node(kind: str, database: str, schema: str, materialized: str = "table") -> dict:
    return {"resource_type": kind, "database": database, "schema": schema, "config": {"materialized": materialized}}


@pytest.mark.parametrize("kind", ["model", "seed", "snapshot"])
@pytest.mark.parametrize("materialized", ["table", "view", "incremental"])
def test_a_node_outside_the_scratch_file_is_refused(tmp_path: Path, kind: str, materialized: str) -> None:
    manifest = _manifest(
        tmp_path / "manifest.json",
        {
            f"{kind}.p.here": _node(kind, "warehouse", "main", materialized),
            f"{kind}.p.elsewhere": _node(kind, "other", "main", materialized),
        },
    )
    with pytest.raises(Refused, match=rf"1 node\(s\).*{kind}.p.elsewhere -> other.main"):
        check_locations(manifest, "duckdb")
    check_locations(
        _manifest(
            tmp_path / "ok.json",
            {
                f"{kind}.p.here": _node(kind, "warehouse", "main", materialized),
                f"{kind}.p.inline": _node(kind, "other", "main", "ephemeral"),
            },
        ),
        "duckdb",
    )


def test_a_server_node_in_another_database_or_schema_is_refused(tmp_path: Path) -> None:
    ok = {
        "model.p.a": _node("model", "analytics", "rs_1_l01"),
        "model.p.b": _node("model", "analytics", "rs_1_l01_marts"),
    }
    check_locations(_manifest(tmp_path / "ok.json", ok), "postgres", "rs_1_l01", "analytics")
    # `rs_1_l010` starts with the scratch schema's name but is another lane's (l010's), not one
    # derived from it (`<scratch>_<custom>`)
    for name, node in (
        ("otherdb", _node("model", "other", "rs_1_l01")),
        ("fixed", _node("model", "analytics", "reporting")),
        ("lookalike", _node("model", "analytics", "rs_1_l010")),
    ):
        with pytest.raises(Refused, match=f"model.p.{name}"):
            check_locations(
                _manifest(tmp_path / f"{name}.json", {**ok, f"model.p.{name}": node}),
                "postgres",
                "rs_1_l01",
                "analytics",
            )


def test_the_session_refuses_a_model_outside_the_scratch_file_before_any_build(tmp_path: Path) -> None:
    # In-process (dbt ls, no build): test_safety's copy of this runs `python -m harness` in a
    # subprocess outside the repository, which imports the installed harness, not a mutant.
    from harness.session import open_session

    other = tmp_path / "other.duckdb"
    duckdb.connect(str(other)).close()
    project = _project(
        tmp_path / "p",
        f"""\
        tiny:
          target: dev
          outputs:
            dev:
              type: duckdb
              path: "{tmp_path / "dev.duckdb"}"
              attach: [{{path: "{other}", read_only: true}}]
        """,
    )
    (project / "models").mkdir()
    (project / "models" / "here.sql").write_text("select 1 as x")
    (project / "models" / "elsewhere.sql").write_text("{{ config(database='other') }}\nselect 1 as x")
    with pytest.raises(
        Refused, match=r"1 node\(s\) would be built outside the scratch warehouse: model.tiny.elsewhere -> other.main"
    ):
        open_session(DbtSettings(project_dir=project, profiles_dir=project), tmp_path / "work")
    assert not (tmp_path / "dev.duckdb").exists()


def test_every_dbt_call_uses_the_harness_profile(tmp_path: Path) -> None:
    scratch = ScratchProfile(
        profiles_dir=tmp_path / "scratch",
        profile_name="tiny",
        user_target="prod",
        adapter="duckdb",
        user_location="prod.duckdb",
    )
    settings = DbtSettings(project_dir=tmp_path, profiles_dir=tmp_path / "user", target="prod", scratch=scratch)
    args = build_args(settings, "build", target_path=tmp_path / "t", landing=None)
    assert args[args.index("--profiles-dir") + 1] == str(tmp_path / "scratch")
    assert args.count("--profiles-dir") == 1 and "--target" not in args


def test_a_lane_needs_the_scratch_profile(tmp_path: Path) -> None:
    ctx = CheckContext(settings=DbtSettings(project_dir=tmp_path, profiles_dir=tmp_path), workdir=tmp_path)
    with pytest.raises(RuntimeError, match="scratch profile"):
        ctx.lane("keys", "once")


# ---- the crash trials ------------------------------------------------------------------------


def test_the_default_crash_batch_is_the_middle_one() -> None:
    options = crash.Options
    assert crash._crash_batches(options(), 3) == [2]
    assert crash._crash_batches(options(), 5) == [3]
    assert crash._crash_batches(options(crash_batches=("all",)), 3) == [1, 2, 3]
    assert crash._crash_batches(options(crash_batches=("3", "1", "3")), 3) == [1, 3]
    for wrong in (("0",), ("4",)):
        with pytest.raises(ValueError, match=re.escape("batches 1..3")):
            crash._crash_batches(options(crash_batches=wrong), 3)


class _Lane:
    """A lane that builds nothing: it records each call of a trial, files and checkpoints by name."""

    def __init__(self, problems: list[list[str]]) -> None:
        self.calls: list[tuple] = []
        self.problems = problems  # per dbt call after the stop: its problems
        self.store = SimpleNamespace(discard=lambda snapshot: self.calls.append(("discard", snapshot)))

    def restore(self, checkpoint):
        self.calls.append(("restore", str(checkpoint)))

    def reset_deliveries(self, before, new):
        self.calls.append(("reset", tuple(map(str, before)), tuple(map(str, new))))

    def deliver(self, files):
        self.calls.append(("deliver", tuple(map(str, files))))

    def dbt(self, command, **kwargs):
        self.calls.append(("dbt", command))
        return SimpleNamespace(problems=self.problems.pop(0) if self.problems else [])

    def snapshot(self, label, project=None):
        return f"snapshot {label}"


def _ref(root: Path) -> Reference:
    """A clean reference of 3 batches of one file each (f1, f2, f3), checkpoints c0..c3 and
    snapshots s0..s3; a trial hands them to `_Lane` and to the fake compare, which name them."""
    return Reference(
        lane=Lane(root, DbtSettings(project_dir=root), progress=lambda _: None),
        batches=[Batch(key=f"k{j}", files=(Path(f"f{j}"),)) for j in range(1, 4)],
        project=Project("p", ()),
        selected=None,
        checkpoints={j: Path(f"c{j}") for j in range(4)},
        snapshots={j: Snapshot(label=f"s{j}", path=None, relations=()) for j in range(4)},
    )


# What a trial's interrupted build did unless a test says otherwise (frozen, so one is shared).
_BUILT_A = crash.Stopped("built a")


def _try(
    tmp_path: Path,
    monkeypatch,
    *,
    problems=(),
    differs: tuple[str, ...] = (),
    stopped: crash.Stopped = _BUILT_A,
) -> tuple:
    compared: list[str] = []

    def fake_compare(left, right, project, **kwargs):
        compared.append(left.label)
        extra = 1 if left.label in differs else 0
        return _comparison(TableDiff(table="main.t", left_rows=3, right_rows=3 + extra, surplus_right=extra))

    monkeypatch.setattr(reference, "compare_snapshots", fake_compare)
    ctx = CheckContext(settings=DbtSettings(project_dir=tmp_path), workdir=tmp_path)
    lane = _Lane([list(p) for p in problems])
    point = crash.Point(2, Interruption.SIGKILL, "batch 2: SIGKILL", lambda _: stopped)
    trial, comparisons = crash._try(ctx, _ref(tmp_path), lane, point, 1)  # type: ignore[arg-type]  # _Lane: a fake Lane
    return trial, comparisons, compared, lane.calls


def test_a_crashed_batch_starts_from_the_checkpoint_before_it_and_is_compared_after_it(
    tmp_path: Path, monkeypatch
) -> None:
    trial, comparisons, compared, calls = _try(tmp_path, monkeypatch)
    assert calls[:2] == [("restore", "c1"), ("reset", ("f1",), ("f2",))]
    assert compared == ["s2", "s3"]  # after batch 2, then after the last batch
    assert ("deliver", ("f3",)) in calls
    assert trial.survived and trial.reached and len(comparisons) == 2


def test_a_failed_rebuild_fails_the_point(tmp_path: Path, monkeypatch) -> None:
    trial, *_ = _try(tmp_path, monkeypatch, problems=[["model.p.a: error"]])
    assert not trial.survived
    assert trial.errors == ["rebuild after the crash: model.p.a: error"]


def test_a_difference_after_the_last_batch_fails_the_point(tmp_path: Path, monkeypatch) -> None:
    trial, *_ = _try(tmp_path, monkeypatch, differs=("s3",))
    assert not trial.survived
    assert trial.tables == ["t (rows added; after batch 3)"]


def test_a_kill_after_the_build_ended_is_not_reached(tmp_path: Path, monkeypatch) -> None:
    ended = crash.Stopped("not interrupted: the build had ended (exit 0) before the kill", reached=False)
    trial, *_ = _try(tmp_path, monkeypatch, stopped=ended)
    assert trial.survived and not trial.reached and trial.interruption is Interruption.SIGKILL


def test_findings_fail_on_a_build_error_or_a_duplicate_key_no_earlier_check_reported() -> None:
    from harness.keys import KeyViolation
    from harness.results import Findings

    def duplicate(explained_by: str = "") -> KeyViolation:
        return KeyViolation("m", "main.m", ("id",), "unique test", 1, 1, explained_by=explained_by)

    assert not Findings().failed
    assert Findings(errors=("model.p.m: error",)).failed
    assert Findings(key_violations=(duplicate(),)).failed
    assert not Findings(key_violations=(duplicate(explained_by="keys"),)).failed
    # the check's own errors first, each listed once
    mixed = Findings(errors=("lane error", "own error")).with_errors_first(["own error", "first"])
    assert mixed.errors == ("own error", "first", "lane error")
    result = mixed.into(CheckResult(name="crash", status=Status.FAIL))
    assert result.errors == ["own error", "first", "lane error"] and result.key_violations == []


def test_crash_points_are_counted_by_their_interruption_not_by_their_label() -> None:
    # A kill point whose label has no "SIGKILL" is still a kill; a stop whose label has one is
    # still a stop; only a kill that hit a running build is reached.
    trials = [
        Trial(label="batch 2: killed early", survived=True, interruption=Interruption.SIGKILL),
        Trial(label="batch 2: late", survived=True, reached=False, interruption=Interruption.SIGKILL),
        Trial(label="batch 2: stopped after SIGKILL-handler", survived=True, interruption=Interruption.STOPPED),
        Trial(label="batch 2: m failed", survived=False, interruption=Interruption.FAILED_MODEL),
    ]
    assert crash.points_exercised(trials) == {
        "between-model stops": 2,
        "kill points tried": 2,
        "kill points reached (killed a running build)": 1,
    }


def test_a_killed_build_is_a_run_with_an_error(tmp_path: Path) -> None:
    lane = Lane(root=tmp_path, settings=DbtSettings(project_dir=tmp_path), progress=lambda _: None)
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    process.kill()
    spawned = Spawned(
        command="build", argv=[], process=process, target_path=tmp_path / "t", started=0.0, output=tmp_path / "out.log"
    )
    assert lane.collect(spawned, timeout=30).error == "dbt build exited with -9"


# ---- batches ---------------------------------------------------------------------------------


def test_hive_folders_are_batches_by_their_partition_value(tmp_path: Path) -> None:
    for table, key in (("customers", "2026-11-02"), ("orders", "2026-11-01"), ("orders", "2026-11-02")):
        folder = tmp_path / table / f"batch={key}"
        folder.mkdir(parents=True)
        (folder / "part-0.parquet").write_bytes(b"")
    batches = discover_batches(tmp_path)
    assert [b.key for b in batches] == ["2026-11-01", "2026-11-02"]
    assert [[f.relative_to(tmp_path).parts[0] for f in b.files] for b in batches] == [
        ["orders"],
        ["customers", "orders"],
    ]
    landed = landed_path(tmp_path / "orders" / "batch=2026-11-01" / "part-0.parquet")
    assert landed == Path("orders/batch=2026-11-01/part-0.parquet")


def test_regroup_merges_consecutive_keys_and_keeps_every_file() -> None:
    from harness.deliveries import regroup

    batches = discover_batches(DELIVERIES)
    assert [b.key for b in regroup(batches, 2)] == ["2026-11-01+2026-11-02", "2026-11-03"]
    assert [len(b.files) for b in regroup(batches, 2)] == [3, 1]
    (whole,) = regroup(batches, len(batches))
    assert whole.files == tuple(f for b in batches for f in b.files)


def test_variants_compare_other_splits_and_drop_equal_ones() -> None:
    from harness.checks.batches import variants

    batches = discover_batches(DELIVERIES)
    splits = ("all", "coarse", "reverse")
    assert [name for name, _ in variants(batches, 2, splits)] == [
        "one batch per key",
        "all at once",
        "2 keys per batch",
        "one batch per key, reverse order",
    ]
    assert [b.key for b in dict(variants(batches, 2, splits))["one batch per key, reverse order"]] == [
        "2026-11-03",
        "2026-11-02",
        "2026-11-01",
    ]
    assert [name for name, _ in variants(batches, 1, ("coarse",))] == ["one batch per key"]
    assert [name for name, _ in variants(batches[:1], 2, splits)] == ["one batch per key"]


# ---- the exit status -------------------------------------------------------------------------


def _check(name: str, *, applies: str = "", raises: Exception | None = None) -> Check[NoOptions]:
    reason, error = applies, raises

    class Fake(Check[NoOptions]):
        help = "a check that passes, raises or does not apply"
        options_type = NoOptions

        def applies(self, ctx: CheckContext, options: NoOptions) -> str:
            return reason

        def run(self, ctx: CheckContext, options: NoOptions) -> CheckResult:
            if error:
                raise error
            return CheckResult(name=name, status=Status.PASS)

    Fake.name = name
    return Fake()


def test_a_check_that_raises_or_does_not_apply_when_named_is_an_error(tmp_path: Path) -> None:
    ctx = CheckContext(settings=DbtSettings(project_dir=tmp_path), workdir=tmp_path)
    broken = run_checks([_check("a", raises=KeyError("x")), _check("b", raises=ValueError("bad"))], ctx)
    assert [r.status for r in broken] == [Status.ERROR, Status.ERROR]
    named = run_checks([_check("c", applies="needs --deliveries DIR")], ctx, named=True)
    assert [(r.status, r.errors) for r in named] == [(Status.ERROR, ["c needs --deliveries DIR"])]
    every = run_checks([_check("c", applies="needs --deliveries DIR")], ctx)
    assert [(r.status, r.reason) for r in every] == [(Status.SKIPPED, "does not apply: needs --deliveries DIR")]


@pytest.fixture
def fake_session(tmp_path: Path, monkeypatch):
    """cli.main with open_session and run_checks replaced (in harness.api, the one path of the
    CLI and of harness.run_checks): what it was asked, what it returns."""
    seen: dict = {}

    def open_session(settings, workdir, **kwargs):
        if seen.get("raise"):
            raise seen["raise"]
        return SimpleNamespace(store=SimpleNamespace(close=lambda keep=False: None, adapter="duckdb"))

    def fake_run_checks(selected, ctx, *, options=None, skipped=None, named=False):
        seen.update(names=[c.name for c in selected], skipped=dict(skipped or {}), named=named, options=options)
        return list(seen.get("results", [CheckResult(name=c.name, status=Status.PASS) for c in selected]))

    monkeypatch.setattr(api, "open_session", open_session)
    monkeypatch.setattr(api, "run_each", fake_run_checks)
    args = [
        "--project-dir",
        str(PROJECTS / "correct"),
        "--deliveries",
        str(DELIVERIES),
        "--quiet",
        "--work-dir",
        str(tmp_path / "w"),
    ]
    return seen, args


def test_all_runs_every_check_unless_left_out(fake_session) -> None:
    seen, args = fake_session
    assert cli.main(["all", *args]) == 0
    assert seen["skipped"] == {} and not seen["named"]
    assert cli.main(["all", *args, "--skip", "replay", "--only", "keys", "replay"]) == 0
    assert seen["skipped"]["replay"] == "skipped by --skip" and seen["skipped"]["crash"] == "left out by --only"
    assert "keys" not in seen["skipped"]
    assert cli.main(["batches", *args]) == 0
    assert seen["named"] and seen["names"] == ["batches"]


def test_the_cli_gives_each_check_its_own_typed_options(fake_session) -> None:
    from harness.checks import idempotency

    seen, args = fake_session
    assert cli.main(["all", *args, "--per-model", "--crash-points", "1", "--seed", "7"]) == 0
    assert seen["options"]["idempotency"] == idempotency.Options(per_model=True)
    assert seen["options"]["crash"] == crash.Options(crash_points=1, seed=7)
    assert seen["options"]["keys"] == NoOptions()
    assert cli.main(["crash", *args]) == 0
    assert seen["options"] == {"crash": crash.Options()}


@pytest.mark.parametrize(
    ("statuses", "code"),
    [
        ((Status.PASS, Status.SKIPPED), 0),
        ((Status.PASS, Status.FAIL), 1),
        ((Status.PASS, Status.NOT_EXERCISED), 1),
        ((Status.FAIL, Status.ERROR), 2),
    ],
)
def test_the_exit_status_follows_the_worst_result(fake_session, capsys, statuses, code) -> None:
    seen, args = fake_session
    seen["results"] = [CheckResult(name=f"c{i}", status=s) for i, s in enumerate(statuses)]
    assert cli.main(["all", *args]) == code


def test_a_refusal_or_an_empty_selection_exits_2(fake_session, capsys) -> None:
    from harness.session import NothingSelected

    seen, args = fake_session
    seen["raise"] = Refused("no")
    assert cli.main(["keys", *args]) == 2
    seen["raise"] = NothingSelected("--select nothing selected no model")
    assert cli.main(["keys", *args, "--select", "nothing"]) == 2
    assert "names" not in seen  # no check ran
    assert cli.main(["keys", *args, "--select", "state:modified+"]) == 0  # a PR that changed no model
