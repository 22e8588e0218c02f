"""This pipeline's own tooling (pipeline_demo): the demo builds batch by batch, and both
commands answer through `python -m pipeline_demo`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb

from pipeline_demo.__main__ import main
from tests.harness.helpers import DELIVERIES, PROJECTS

REPO = Path(__file__).resolve().parents[1]


def test_demo_builds_batch_by_batch_and_prints_tables(tmp_path: Path, capsys) -> None:
    code = main([
        "demo", "--project-dir", str(PROJECTS / "correct"), "--deliveries", str(DELIVERIES),
        "--landing", str(tmp_path / "landing"), "--warehouse", str(tmp_path / "w.duckdb"),
        "--target-path", str(tmp_path / "target"),
    ])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "batch 3/3 2026-11-03: landed 1 file(s), dbt build ok" in out
    assert "main.current_events" in out and "main.run_log" in out
    assert len(list((tmp_path / "landing").glob("*.csv"))) == 4
    assert "next steps:" in out and "dbt show --inline 'select * from fct_daily_revenue" in out
    assert "dbt docs generate" in out and "make harness" in out
    assert f"on one page: make report WAREHOUSE={tmp_path / 'w.duckdb'}" in out
    assert "  3. " in out and "  4. " not in out  # the three next steps: a query, dbt docs, the harness


def _demo(tmp_path: Path, *args: str) -> int:
    return main([
        "demo", "--project-dir", str(PROJECTS / "correct"), "--deliveries", str(DELIVERIES),
        "--target-path", str(tmp_path / "dbt-target"), *args,
    ])


def test_a_second_demo_leaves_the_users_warehouse_untouched(tmp_path: Path, monkeypatch, capsys) -> None:
    """The README's "run dbt yourself" works in target/rerun_safe.duckdb and data/landing: the
    demo keeps its own (target/demo/), starts afresh only over what it made itself, and refuses,
    changing nothing, to overwrite anything else."""
    monkeypatch.chdir(tmp_path)
    user_warehouse, user_landing = tmp_path / "target" / "rerun_safe.duckdb", tmp_path / "data" / "landing"
    user_warehouse.parent.mkdir(parents=True)
    user_landing.mkdir(parents=True)
    (user_landing / "mine.csv").write_text("event_id\nmine\n")
    with duckdb.connect(str(user_warehouse)) as con:
        con.execute("create table my_work as select 42 as answer")

    def users_work() -> list[tuple]:
        with duckdb.connect(str(user_warehouse), read_only=True) as con:
            return con.execute("select answer from my_work").fetchall()

    for _ in range(2):
        assert _demo(tmp_path) == 0, capsys.readouterr()
        assert users_work() == [(42,)] and (user_landing / "mine.csv").read_text() == "event_id\nmine\n"
    demo_warehouse = tmp_path / "target" / "demo" / "rerun_safe.duckdb"
    assert demo_warehouse.exists() and demo_warehouse.with_name("rerun_safe.duckdb.demo.json").exists()
    assert len(list((tmp_path / "target" / "demo" / "landing").glob("*.csv"))) == 4
    capsys.readouterr()

    # pointed at the user's warehouse or landing folder (as `make demo` with WAREHOUSE=...): refused
    for args in (["--warehouse", str(user_warehouse)], ["--landing", str(user_landing)]):
        assert _demo(tmp_path, *args) == 2
        assert "demo: refusing to start afresh" in capsys.readouterr().err
        assert users_work() == [(42,)] and (user_landing / "mine.csv").exists()
    assert not (tmp_path / "target" / "rerun_safe.duckdb.demo.json").exists()

    # the demo's own warehouse, once someone wrote to it, is theirs too
    with duckdb.connect(str(demo_warehouse)) as con:
        con.execute("create table explored as select 1 as x")
    assert _demo(tmp_path) == 2
    assert "changed since the demo made it (main.explored)" in capsys.readouterr().err
    with duckdb.connect(str(demo_warehouse), read_only=True) as con:
        assert con.execute("select x from explored").fetchall() == [(1,)]



def test_generate_runs_as_a_module(tmp_path: Path) -> None:
    out = tmp_path / "deliveries"
    done = subprocess.run(
        [sys.executable, "-m", "pipeline_demo", "generate", "--out", str(out), "--days", "2",
         "--events-per-day", "20", "--seed", "1"],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wrote" in done.stdout and sorted(out.glob("2026-11-01_*.csv"))
    helped = subprocess.run(
        [sys.executable, "-m", "pipeline_demo", "demo", "--help"],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )
    assert helped.returncode == 0 and "--project-dir" in helped.stdout and "--warehouse" in helped.stdout
