"""This pipeline's own tooling (pipeline_demo): the demo builds batch by batch, and both
commands answer through `python -m pipeline_demo`."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from pipeline_demo.__main__ import main
from pipeline_demo.generate import main as generate_main
from tests.harness.helpers import DELIVERIES, PROJECTS
from tests.test_report import Figures, _number

REPO = Path(__file__).resolve().parents[1]


def test_demo_builds_batch_by_batch_and_prints_tables(tmp_path: Path, capsys) -> None:
    code = main(
        [
            "demo",
            "--project-dir",
            str(PROJECTS / "correct"),
            "--deliveries",
            str(DELIVERIES),
            "--landing",
            str(tmp_path / "landing"),
            "--warehouse",
            str(tmp_path / "w.duckdb"),
            "--target-path",
            str(tmp_path / "target"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "batch 3/3 2026-11-03: landed 1 file(s), dbt build ok" in out
    assert "main.current_events" in out and "main.run_log" in out
    assert len(list((tmp_path / "landing").glob("*.csv"))) == 4
    # next steps that work as printed: this demo's warehouse and landing were not the defaults, so
    # each make command names them (quoted for the shell)
    warehouse = shlex.quote(str(tmp_path / "w.duckdb"))
    assert "next steps (from this folder):" in out
    assert f"make show WAREHOUSE={warehouse} TABLE=fct_daily_revenue" in out
    assert f"make report WAREHOUSE={warehouse}" in out
    assert f"DBT_DUCKDB_PATH={warehouse} .venv/bin/dbt docs generate" in out and "make harness    (" in out
    assert "  5. " in out and "  6. " not in out


def _demo(tmp_path: Path, *args: str) -> int:
    return main(
        [
            "demo",
            "--project-dir",
            str(PROJECTS / "correct"),
            "--deliveries",
            str(DELIVERIES),
            "--target-path",
            str(tmp_path / "dbt-target"),
            *args,
        ]
    )


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

    for attempt in range(2):
        assert _demo(tmp_path) == 0, capsys.readouterr()
        afresh = [line for line in capsys.readouterr().out.splitlines() if "starting afresh" in line]
        assert len(afresh) == attempt, afresh  # the second demo says, in one line, that it starts afresh
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
        [
            sys.executable,
            "-m",
            "pipeline_demo",
            "generate",
            "--out",
            str(out),
            "--days",
            "2",
            "--events-per-day",
            "20",
            "--seed",
            "1",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wrote" in done.stdout and sorted(out.glob("2026-11-01_*.csv"))
    helped = subprocess.run(
        [sys.executable, "-m", "pipeline_demo", "demo", "--help"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert helped.returncode == 0 and "--project-dir" in helped.stdout and "--warehouse" in helped.stdout


@pytest.fixture(scope="module")
def demo_of_this_project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """One demo of this project (not a fixture project) on three small generated days, the last
    held back for `make land`: (warehouse, dbt target folder, what the demo printed). Every test
    that needs the pipeline's own warehouse reuses it (about a minute on 2 cores)."""
    root = tmp_path_factory.mktemp("demo-of-this-project")
    deliveries = root / "deliveries"
    assert generate_main(["--out", str(deliveries), "--days", "3", "--events-per-day", "60", "--seed", "3"]) == 0
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(
            [
                "demo",
                "--project-dir",
                str(REPO),
                "--deliveries",
                str(deliveries),
                "--landing",
                str(root / "landing"),
                "--warehouse",
                str(root / "w.duckdb"),
                "--target-path",
                str(root / "target"),
                "--hold-back",
                "1",
            ]
        )
    out = buffer.getvalue()
    assert code == 0, out
    return root / "w.duckdb", root / "target", out


def _one(pattern: str, text: str) -> tuple[int, ...]:
    found = re.findall(pattern, text)
    assert len(found) >= 1, f"{pattern!r} not in {text[-3000:]}"
    last = found[-1]
    return tuple(int(value) for value in (last if isinstance(last, tuple) else (last,)))


def _report_figures(warehouse: Path, page: Path) -> Figures:
    assert main(["report", "--warehouse", str(warehouse), "--out", str(page)]) == 0
    figures = Figures()
    figures.feed(page.read_text(encoding="utf-8"))
    return figures


def test_run_summary_report_and_demo_give_the_same_counts_under_the_same_labels(
    demo_of_this_project: tuple[Path, Path, str], tmp_path: Path
) -> None:
    """Rows are rows and copies are copies, everywhere. The demo's own lines and the report's page
    of its warehouse agree on the rows staged and the late rows applied and waiting; then the day
    the demo held back is landed (make land) and built (the printed dbt command), and that run's
    summary (macros/audit/run_summary.sql) and the report agree on its late rows applied and
    waiting and its late copies written."""
    warehouse, _, out = demo_of_this_project
    figures = _report_figures(warehouse, tmp_path / "demo.html")
    runs = sorted({run for run, _, _ in figures.found if run is not None})
    demo_applied, demo_waiting_before, demo_waiting = _one(
        r"applied (\d+) of (\d+) late rows waiting \((\d+) late rows still wait", out
    )
    assert demo_waiting == _number(figures.figure("late_waiting")) == _number(figures.figure("waiting", runs[-1]))
    assert (
        demo_applied
        == _number(figures.figure("late_applied"))
        == sum(_number(figures.figure("applied", run)) for run in runs)
    )
    assert demo_applied > 0 and demo_waiting_before >= demo_applied
    (staged,) = _one(r"staged rows (\d+) \(", out)
    staged_per_run = sum(_number(figures.figure("rows_in", run)) for run in runs)
    assert staged == _number(figures.figure("rows_staged")) == staged_per_run
    held = re.findall(r"make land .*DAY=(\S+)", out)
    assert len(held) == 1, out[-2000:]

    # the held-back day, landed and built in a copy of the demo's warehouse and landing folder
    copy, landing = tmp_path / "w.duckdb", tmp_path / "landing"
    shutil.copy2(warehouse, copy)
    shutil.copytree(warehouse.parent / "landing", landing)
    deliveries = warehouse.parent / "deliveries"
    assert main(["land", "--day", held[0], "--deliveries", str(deliveries), "--landing", str(landing)]) == 0
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "dbt"),
            "build",
            "--project-dir",
            str(REPO),
            "--profiles-dir",
            str(REPO),
            "--target-path",
            str(tmp_path / "target"),
            "--log-path",
            str(tmp_path / "logs"),
            "--vars",
            json.dumps({"landing_path": str(landing)}),
        ],
        env={**os.environ, "DBT_DUCKDB_PATH": str(copy)},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    applied, waiting, copies = _one(
        r"rows: \d+ staged from \d+ file\(s\), \d+ quarantined[^;]*?, (\d+) late rows applied by a correction; "
        r"(\d+) late rows waiting; copies: (\d+) late copies written",
        done.stdout,
    )
    after = _report_figures(copy, tmp_path / "after.html")
    last = max(run for run, _, _ in after.found if run is not None)
    assert (
        _number(after.figure("applied", last)),
        _number(after.figure("waiting", last)),
        _number(after.figure("late_copies", last)),
    ) == (applied, waiting, copies)
    assert _number(after.figure("late_waiting")) == waiting and copies > 0
    page = (tmp_path / "after.html").read_text()
    assert "late rows waiting" in page and "late copies written" in page
