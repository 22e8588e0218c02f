"""Bad input to the demo's neighbours: `make show`, `make report`, `make demo`, `make land`
(pipeline_demo), and `dbt seed` on a fresh clone. docs/bad-input.md, "make show, make report,
make demo, make land", is this list in words.

Each case is a command, the values a user hands it (a Make variable or a flag) and the outcome
owed: exit 0 with a phrase in the output, or exit 2 with ONE line on stderr naming the value,
no traceback, and nothing created, written or deleted. The commands run in this process
(`python -m pipeline_demo`'s main), with Make's variables in the environment as the Makefile
exports them; the quoting cases run the real `make` recipes. Only `seed_without_landing_folder`
runs dbt (one `dbt seed`); the warehouses here are made with DuckDB directly.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from pipeline_demo.__main__ import main
from tests.pipeline.project import Pipeline

REPO = Path(__file__).resolve().parents[2]
FIXTURE_PROJECT = REPO / "tests" / "fixtures" / "projects" / "correct"


def make_report_warehouse(path: Path, *, balance: bool = True) -> Path:
    """The tables `make report` reads, with two runs, as a build of this project leaves them;
    without `balance_cents` in the ledger's run-log figures when `balance` is False (a run log
    written by an older version)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    ledger = {"postings": 2, "reversals": 0, "posted_cents": 1500, **({"balance_cents": 1500} if balance else {})}
    logs = [
        (1, "stg_landing__events", False, {"rows_read": 3}),
        (1, "quarantined_events", False, {"quarantined_this_run": 0}),
        (1, "int_event_copies_classified", False, {"late_waiting_written": 2}),
        (1, "late_events", False, {"waiting": 1, "applied": 0}),
        (1, "fct_daily_revenue", False, {"net_cents": 1500, "days": 1}),
        (1, "fct_revenue_ledger", False, ledger),
        (2, "late_events", False, {"waiting": 1, "applied": 0}),
        (2, "fct_daily_revenue", False, {"net_cents": 1500, "days": 1}),
        (2, "fct_revenue_ledger", False, ledger),
    ]
    with duckdb.connect(str(path)) as con:
        con.execute(
            "create table rerun_safe_runs as select * from (values "
            "(1, 'build', timestamp '2026-11-01 10:00:00', timestamp '2026-11-01 10:00:05', 'success'), "
            "(2, 'build', timestamp '2026-11-02 10:00:00', timestamp '2026-11-02 10:00:05', 'success')) "
            "as t(run_seq, command, started_at, finished_at, status)"
        )
        con.execute("create table rerun_safe_run_log (run_seq int, model text, is_full_refresh bool, metrics text)")
        con.executemany(
            "insert into rerun_safe_run_log values (?, ?, ?, ?)",
            [(seq, model, full, json.dumps(figures)) for seq, model, full, figures in logs],
        )
        con.execute("create table stg_landing__events as select range as id from range(3)")
        con.execute(
            "create table int_event_copies_classified as select * from (values (3600, 1, false), "
            "(300000, 2, true)) as t(lateness_seconds, row_count, is_late)"
        )
        con.execute(
            "create table int_corrections_recorded (correction_id text, correct_from date, correct_to date, "
            "mark timestamp, recorded_run_seq int)"
        )
        con.execute("create table late_events as select 'waiting' as status, null::text as applied_by_correction_id")
        con.execute("create table quarantined_events (id int)")
        con.execute(
            "create table fct_daily_revenue as select 'co1' as company_id, date '2026-11-01' as revenue_date, "
            "1500 as net_cents"
        )
        con.execute("create table fct_order_items as select range as item from range(2)")
        con.execute("create table fct_revenue_ledger as select * from (values (1000), (500)) as t(amount_cents)")
    return path


@dataclasses.dataclass(frozen=True)
class Outcome:
    code: int
    says: str  # a phrase the output (stdout on success, stderr on failure) holds
    names: str = ""  # the value a refusal must name (a Make variable or a flag)


@dataclasses.dataclass(frozen=True)
class Case:
    id: str
    command: str  # show | report | demo | land
    make_vars: dict[str, str]  # as `make <command> NAME=value` exports them (RERUN_SAFE_MAKE_<NAME>)
    outcome: Outcome
    args: tuple[str, ...] = ()  # flags, for cases the Makefile does not pass


OK_SHOW = Outcome(0, "rows of main.fct_daily_revenue")
CASES: list[Case] = [
    # make show: TABLE is a name of the warehouse's catalog, never SQL; LIMIT a bounded number
    Case(
        "show_table_sql_injection",
        "show",
        {"TABLE": "fct_daily_revenue; create table pwned as select 1", "LIMIT": "5"},
        Outcome(2, "a table name", "TABLE"),
    ),
    Case("show_table_quote", "show", {"TABLE": 'fct_daily_revenue" where 1=1 --'}, Outcome(2, "not SQL", "TABLE")),
    Case(
        "show_table_unknown_suggests_from_warehouse",
        "show",
        {"TABLE": "fct_daily_revenu"},
        Outcome(2, "did you mean fct_daily_revenue?", "TABLE"),
    ),
    Case("show_table_system_catalog", "show", {"TABLE": "pg_depend"}, Outcome(2, "no such table or view", "TABLE")),
    Case("show_table_case_and_schema", "show", {"TABLE": "main.FCT_DAILY_REVENUE"}, OK_SHOW),
    Case("show_limit_negative", "show", {"LIMIT": "-1"}, Outcome(2, "a whole number from 1 to 100000", "LIMIT")),
    Case("show_limit_sql", "show", {"LIMIT": "1; drop table fct_daily_revenue"}, Outcome(2, "or all", "LIMIT")),
    Case("show_limit_above_bound", "show", {"LIMIT": "100001"}, Outcome(2, "from 1 to 100000", "LIMIT")),
    Case("show_limit_all", "show", {"LIMIT": "all"}, Outcome(0, "2 of 2 rows of main.fct_daily_revenue")),
    Case(
        "show_limit_default_says_it_is_a_limit",
        "show",
        {"LIMIT": "1"},
        Outcome(0, "1 of 2 rows of main.fct_daily_revenue in"),
    ),
    Case(
        "show_warehouse_missing_not_created",
        "show",
        {"WAREHOUSE": "{tmp}/nowhere/w.duckdb"},
        Outcome(2, "no such file (nothing was created)", "WAREHOUSE"),
    ),
    Case("show_warehouse_is_a_folder", "show", {"WAREHOUSE": "{tmp}"}, Outcome(2, "not a file", "WAREHOUSE")),
    Case(
        "show_warehouse_not_duckdb",
        "show",
        {"WAREHOUSE": "{tmp}/notes.txt"},
        Outcome(2, "DuckDB cannot open it read-only", "WAREHOUSE"),
    ),
    Case(
        "show_warehouse_control_character",
        "show",
        {"WAREHOUSE": "{tmp}/w\n.duckdb"},
        Outcome(2, "without control characters", "WAREHOUSE"),
    ),
    Case("show_flag_names_the_flag", "show", {}, Outcome(2, "a whole number", "--limit"), ("--limit", "0")),
    # make report
    Case(
        "report_log_without_balance_cents", "report", {"WAREHOUSE": "{tmp}/old/w.duckdb"}, Outcome(0, "report: wrote")
    ),
    Case(
        "report_warehouse_missing",
        "report",
        {"WAREHOUSE": "{tmp}/nowhere/w.duckdb"},
        Outcome(2, "no such file", "WAREHOUSE"),
    ),
    Case(
        "report_page_not_html",
        "report",
        {"WAREHOUSE": "{tmp}/w.duckdb", "REPORT": "{tmp}/page.txt"},
        Outcome(2, "must end in .html", "REPORT"),
    ),
    # make demo: refusals come before any dbt run
    Case(
        "demo_landing_same_name_other_content",
        "demo",
        {"LANDING": "{tmp}/landing", "WAREHOUSE": "{tmp}/demo.duckdb"},
        Outcome(2, "2026-11-01_a.csv", "refusing to start afresh"),
    ),
    Case(
        "demo_landing_link_with_a_delivery_name",
        "demo",
        {"LANDING": "{tmp}/linked", "WAREHOUSE": "{tmp}/demo.duckdb"},
        Outcome(2, "2026-11-01_a.csv", "refusing to start afresh"),
    ),
    Case(
        "demo_delivery_matches_no_batch",
        "demo",
        {"DELIVERIES": "{tmp}/unmatched"},
        Outcome(2, "do not match --batch-pattern", "notes.csv"),
    ),
    # make land
    Case("land_day_missing", "land", {"DAY": ""}, Outcome(2, "is not given", "DAY")),
    Case("land_day_not_a_date", "land", {"DAY": "2026-11-01; rm -rf ~"}, Outcome(2, "a calendar date", "DAY")),
    Case("land_day_impossible", "land", {"DAY": "2026-02-30"}, Outcome(2, "a calendar date", "DAY")),
    Case("land_day_without_deliveries", "land", {"DAY": "2026-11-11"}, Outcome(2, "no delivery of that day", "DAY")),
    Case(
        "land_landing_missing",
        "land",
        {"DAY": "2026-11-02", "LANDING": "{tmp}/no-landing"},
        Outcome(2, "no such folder", "LANDING"),
    ),
    Case(
        "land_same_name_other_content",
        "land",
        {"DAY": "2026-11-01"},
        Outcome(2, "exists with other content", "LANDING"),
    ),
    Case("land_a_day", "land", {"DAY": "2026-11-02"}, Outcome(0, "1 file(s) of 2026-11-02 copied")),
]
CASE_IDS = [case.id for case in CASES]
# cases outside CASES: the real make recipes, a build holding the warehouse, dbt seed
OTHER_CASE_IDS = [
    "show_path_with_space_through_make",
    "report_path_with_quote_through_make",
    "show_while_a_build_holds_it",
    "show_holder_file_is_a_fifo",
    "seed_without_landing_folder",
]
DELIVERY = "event_id,amount_cents\nd1,100\n"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A warehouse, deliveries of two days, a landing folder holding a user's file under a
    delivery's name, and the odd files the cases point at. The working folder is tmp_path."""
    monkeypatch.chdir(tmp_path)
    make_report_warehouse(tmp_path / "w.duckdb")
    with duckdb.connect(str(tmp_path / "w.duckdb")) as con:
        con.execute("insert into fct_daily_revenue values ('co2', date '2026-11-02', 700)")
    make_report_warehouse(tmp_path / "old" / "w.duckdb", balance=False)
    (tmp_path / "notes.txt").write_text("not a database\n")
    deliveries = tmp_path / "data" / "deliveries"
    deliveries.mkdir(parents=True)
    (deliveries / "2026-11-01_a.csv").write_text(DELIVERY)
    (deliveries / "2026-11-02_a.csv").write_text(DELIVERY.replace("d1", "d2"))
    landing = tmp_path / "landing"
    landing.mkdir()
    (landing / "2026-11-01_a.csv").write_text("event_id,amount_cents\nmine,1\n")  # the user's, same name
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "2026-11-01_a.csv").symlink_to(deliveries / "2026-11-01_a.csv")
    unmatched = tmp_path / "unmatched"
    unmatched.mkdir()
    (unmatched / "2026-11-01_a.csv").write_text(DELIVERY)
    (unmatched / "notes.csv").write_text(DELIVERY)
    return tmp_path


def _snapshot(root: Path) -> dict[str, bytes | str]:
    """Every path under root and its bytes (a link: its target): what a refusal must leave as it was."""
    found: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        found[key] = (
            "link:" + os.readlink(path) if path.is_symlink() else path.read_bytes() if path.is_file() else "folder"
        )
    return found


def _run(case: Case, root: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    defaults = {
        "WAREHOUSE": str(root / "w.duckdb"),
        "LANDING": str(root / "landing"),
        "DELIVERIES": str(root / "data" / "deliveries"),
    }
    for name, value in {**defaults, **case.make_vars}.items():
        monkeypatch.setenv("RERUN_SAFE_MAKE_" + name, value.replace("{tmp}", str(root)))
    demo = ("--project-dir", str(FIXTURE_PROJECT), "--target-path", str(root / "dbt-target"))
    extra = demo if case.command == "demo" else ()
    return main([case.command, *extra, *case.args])


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_each_value_is_checked_before_anything_is_touched(
    case: Case, world: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _snapshot(world)
    code = _run(case, world, monkeypatch)
    out, err = capsys.readouterr()
    assert code == case.outcome.code, (out, err)
    if case.outcome.code == 0:
        assert case.outcome.says in out, out
        if case.command == "report":
            page = next(world.glob("old/*.html")).read_text()
            assert "balance: not checked (the run log has no balance_cents" in page
        return
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert case.outcome.says in lines[0] and case.outcome.names in lines[0], lines[0]
    assert _snapshot(world) == before, "a refused command changed files"
    with duckdb.connect(str(world / "w.duckdb"), read_only=True) as con:
        assert not con.execute("select * from information_schema.tables where table_name = 'pwned'").fetchall()


def _make(*args: str) -> subprocess.CompletedProcess[str]:
    """The real recipe, with this interpreter's folder as the venv's bin and setup taken as done."""
    return subprocess.run(
        ["make", "-s", "-C", str(REPO), "-o", ".venv/.installed", f"BIN={Path(sys.executable).parent}", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_make_passes_paths_with_spaces_and_quotes_as_data(tmp_path: Path) -> None:
    """show_path_with_space_through_make, report_path_with_quote_through_make: the values reach
    Python through the environment, byte for byte."""
    spaced = make_report_warehouse(tmp_path / "a b" / "x.duckdb")
    done = _make("show", f"WAREHOUSE={spaced}", "LIMIT=all")
    assert done.returncode == 0 and "1 of 1 rows of main.fct_daily_revenue" in done.stdout, done.stdout + done.stderr
    pwned = tmp_path / "pwned"  # what a value run as shell would create
    quoted = make_report_warehouse(tmp_path / f"o'x; touch {pwned}" / "w.duckdb")
    done = _make("report", f"WAREHOUSE={quoted}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (quoted.parent / "w.report.html").exists() and not pwned.exists()
    done = _make("show", f"TABLE=fct_daily_revenue'; touch {pwned}; echo '", f"WAREHOUSE={spaced}")
    assert done.returncode == 2 and "show: TABLE" in done.stderr, done.stderr
    assert not pwned.exists()


def _hold(warehouse: Path, holder: Callable[[int], None], ready: threading.Event, done: threading.Event) -> None:
    script = (
        "import duckdb, os, sys\n"
        f"con = duckdb.connect({str(warehouse)!r})\n"
        "print(os.getpid(), flush=True)\n"
        "sys.stdin.readline()\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdin is not None
        holder(int(process.stdout.readline()))
        ready.set()
        done.wait(60)
        process.stdin.write("\n")
        process.stdin.flush()
    finally:
        process.wait(30)


@pytest.mark.parametrize("holder_kind", ["record", "fifo"])
def test_show_while_a_build_holds_the_warehouse_says_so_at_once(
    holder_kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """show_while_a_build_holds_it, show_holder_file_is_a_fifo: one line at once, naming the
    holder from its record (sanitized); a holder file that is a FIFO is never opened for a
    blocking read."""
    warehouse = make_report_warehouse(tmp_path / "w.duckdb")
    holder_file = Path(str(warehouse) + ".holder.json")

    def write_holder(pid: int) -> None:
        if holder_kind == "fifo":
            os.mkfifo(holder_file)
        else:
            record = {"pid": pid, "command": "dbt build\x1b[2J", "since": "2026-11-01 10:00:00"}
            holder_file.write_text(json.dumps(record))

    ready, done = threading.Event(), threading.Event()
    thread = threading.Thread(target=_hold, args=(warehouse, write_holder, ready, done))
    thread.start()
    try:
        assert ready.wait(60)
        code = main(["show", "--warehouse", str(warehouse)])
    finally:
        done.set()
        thread.join(60)
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "a build holds it (pid " in err and "make show again when the build has finished" in err, err
    if holder_kind == "record":
        assert "'dbt build\\x1b[2J'" in err and "\x1b" not in err, err


def test_seed_without_landing_folder(tmp_path: Path) -> None:
    """seed_without_landing_folder: a command that reads no delivery needs no landing folder;
    the value of landing_path is still checked (tests/bad_input/test_vars.py: a build refuses)."""
    pipeline = Pipeline(tmp_path)
    shutil.rmtree(pipeline.landing)
    result = pipeline.dbt("seed")
    assert result.success, result.messages
    assert pipeline.scalar("select count(*) from currencies") > 0
