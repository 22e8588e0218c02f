"""Bad input around the warehouse rather than in it: the DuckDB writer lock and its holder file,
the maintenance operations, and the profile's settings (docs/bad-input.md, "The writer lock and
its holder file" and "Profile settings").

Each case of LOCK_CASES and PROFILE_CASES is a hostile or careless input and the outcome the
project owes it; the tests below check each one, mostly by calling the plugin's Python functions
(rerun_safe_duckdb) directly. Two run dbt: a `dbt show --quiet` that waits for a warehouse held
by another process while its holder file is a FIFO, and a `dbt run-operation
rerun_safe_upgrade` on a path with no warehouse.
"""

from __future__ import annotations

import contextvars
import json
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest
import yaml

from rerun_safe_duckdb import profile_check, whole_file, writer_lock
from tests.pipeline.project import PROJECT_DIR, Pipeline

DBT = Path(sys.executable).with_name("dbt")


@dataclass(frozen=True)
class LockCase:
    """One bad input at the writer lock, its holder file, an operation or the DuckDB file."""

    id: str
    entry: str  # where it enters
    bad: str  # the input
    outcome: str  # what the project owes it


LOCK_CASES: list[LockCase] = [
    LockCase(
        "holder_tmp_symlink",
        "holder file (written)",
        "a symlink planted at `<warehouse>.holder.json.<pid>.tmp`, the temporary name builds used",
        "not followed: its target is unchanged; the record goes to a new file of a random name",
    ),
    LockCase(
        "holder_file_private",
        "holder file (written)",
        "a command line with secrets in --vars",
        "the holder file is readable by its owner only (mode 0600)",
    ),
    LockCase(
        "holder_symlink",
        "holder file (written)",
        "`<warehouse>.holder.json` is a symlink",
        "left alone (not followed, not replaced); no record is written; one line says so",
    ),
    LockCase(
        "holder_fifo",
        "holder file (read)",
        "`<warehouse>.holder.json` is a FIFO while another process holds the warehouse",
        "the waiter does not block: no record shown; it gives up after `rerun_safe_lock_timeout_seconds`",
    ),
    LockCase(
        "holder_read_through_symlink",
        "holder file (read)",
        "`<warehouse>.holder.json` is a symlink to a valid record",
        "not followed: no record shown",
    ),
    LockCase(
        "holder_oversized",
        "holder file (read)",
        "a holder file over 64 KiB (a valid record padded)",
        "not read: no record shown",
    ),
    LockCase(
        "holder_forged_controls",
        "holder file (read)",
        "escape sequences, newlines, C1 controls and a fake `rerun_safe:` line in the record, and in "
        "the program name DuckDB reports",
        "each shown with every control character replaced by `?`: the message stays one line",
    ),
    LockCase(
        "holder_forged_long_line",
        "holder file (read)",
        "a command of 5,446 characters",
        "cut: at most 200 characters of it are shown",
    ),
    LockCase(
        "waiter_announces_under_quiet",
        "a waiting process",
        "`dbt show --quiet` (`make show`) while a build holds the warehouse",
        "one line on stderr, once: that it waits, how long at most, and for whom (sanitized)",
    ),
    LockCase(
        "upgrade_without_warehouse",
        "dbt run-operation",
        "`dbt run-operation rerun_safe_upgrade` (or `release_warehouse_lease`) on a DBT_DUCKDB_PATH with no warehouse",
        "refused in one line naming DBT_DUCKDB_PATH and the path; no file is created",
    ),
    LockCase(
        "duckdb_path_control_character",
        "profile",
        "DBT_DUCKDB_PATH holding a newline or ESC",
        "refused in one line naming DBT_DUCKDB_PATH; no file is created",
    ),
    LockCase("memory_limit_none", "profile", "`DBT_DUCKDB_MEMORY_LIMIT=-1`", "accepted: no memory limit"),
    LockCase(
        "warehouse_cut_in_overflow_block",
        "warehouse file",
        "a warehouse cut inside the overflow block of a table's long strings, the last block it uses",
        "refused before any node runs, naming the file",
    ),
]


@dataclass(frozen=True)
class ProfileCase:
    """An env var of a Postgres or Spark target set to a value that cannot be used: the profile
    fails as it renders (before dbt connects, starts a JVM or writes anything), in one line that
    names the env var and says `says`."""

    id: str
    target: str  # postgres, spark or spark_thrift
    name: str
    value: str
    says: str


PROFILE_CASES: list[ProfileCase] = [
    ProfileCase("pg_host_newline", "postgres", "RERUN_SAFE_PG_HOST", "db.internal\nrerun_safe: fake", "host name"),
    ProfileCase("pg_host_escape", "postgres", "RERUN_SAFE_PG_HOST", "h\x1b[2J\x9b31m", "host name"),
    ProfileCase("pg_port_quote", "postgres", "RERUN_SAFE_PG_PORT", "54'32", "port number from 1 to 65535"),
    ProfileCase("pg_port_zero", "postgres", "RERUN_SAFE_PG_PORT", "0", "port number from 1 to 65535"),
    ProfileCase("pg_port_leading_zero", "postgres", "RERUN_SAFE_PG_PORT", "05432", "port number from 1 to 65535"),
    ProfileCase("pg_user_newline", "postgres", "RERUN_SAFE_PG_USER", "postgres\n", "role name"),
    ProfileCase("pg_dbname_newline", "postgres", "RERUN_SAFE_PG_DBNAME", "postgres\n", "database name"),
    ProfileCase("pg_schema_not_identifier", "postgres", "RERUN_SAFE_PG_SCHEMA", "rerun-safe", "schema name"),
    ProfileCase("pg_schema_too_long", "postgres", "RERUN_SAFE_PG_SCHEMA", "s" * 5446, "schema name"),
    ProfileCase("spark_schema_newline", "spark", "RERUN_SAFE_SPARK_SCHEMA", "rerun_safe\n", "database name"),
    ProfileCase("spark_dir_newline", "spark", "RERUN_SAFE_SPARK_DIR", "target/a\nb", "without blanks"),
    ProfileCase("thrift_host_empty", "spark_thrift", "RERUN_SAFE_SPARK_THRIFT_HOST", "", "host name"),
    ProfileCase("thrift_host_newline", "spark_thrift", "RERUN_SAFE_SPARK_THRIFT_HOST", "spark\nhost", "host name"),
    ProfileCase(
        "thrift_port_out_of_range",
        "spark_thrift",
        "RERUN_SAFE_SPARK_THRIFT_PORT",
        "70000",
        "port number from 1 to 65535",
    ),
    ProfileCase(
        "thrift_port_quote", "spark_thrift", "RERUN_SAFE_SPARK_THRIFT_PORT", "10'000", "port number from 1 to 65535"
    ),
    ProfileCase("thrift_user_blank", "spark_thrift", "RERUN_SAFE_SPARK_THRIFT_USER", "a b", "user name"),
    ProfileCase("thrift_schema_not_identifier", "spark_thrift", "RERUN_SAFE_SPARK_SCHEMA", "x-y", "database name"),
]

_LOCK = {case.id: case for case in LOCK_CASES}


def case(case_id: str) -> LockCase:
    return _LOCK[case_id]


def _one_printable_line(text: str) -> bool:
    return all(char.isprintable() for char in text)


def _creds(path: Path | str) -> SimpleNamespace:
    """What dbt-duckdb hands the plugin's update_connection_config: the warehouse and its settings."""
    return SimpleNamespace(path=str(path), settings={"memory_limit": "8GB"}, is_motherduck=False)


@pytest.fixture
def outside_dbt(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin as a build runs it, whatever dbt flags an earlier in-process dbt call left behind."""
    monkeypatch.setattr(profile_check, "invoked_operation", lambda: None)
    monkeypatch.setattr(writer_lock, "invocation_vars", dict)
    monkeypatch.setattr(writer_lock, "console_shows_info", lambda: False)


# --- the holder file, as a build writes it ------------------------------------------------------


def test_a_link_planted_at_the_holders_temporary_name_is_not_followed(tmp_path: Path, outside_dbt: None) -> None:
    """holder_tmp_symlink and holder_file_private, through the plugin's hook with a real DuckDB file."""
    assert case("holder_tmp_symlink") and case("holder_file_private")
    warehouse = tmp_path / "warehouse.duckdb"
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    planted = Path(f"{writer_lock.holder_file(str(warehouse))}.{os.getpid()}.tmp")
    planted.symlink_to(victim)
    plugin = writer_lock.OneWriter()
    plugin.update_connection_config(_creds(warehouse), {})
    plugin._release_held()
    assert victim.read_text() == "precious\n", "the build wrote through the planted link"
    assert planted.is_symlink() and os.readlink(planted) == str(victim)  # left as it was
    holder = Path(writer_lock.holder_file(str(warehouse)))
    mode = holder.lstat().st_mode
    assert stat.S_ISREG(mode), "the holder file is not a regular file"
    assert stat.S_IMODE(mode) == 0o600, oct(stat.S_IMODE(mode))
    assert json.loads(holder.read_text())["pid"] == os.getpid()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [warehouse.name, holder.name, planted.name, victim.name]
    ), "a temporary file was left behind"


def test_a_holder_file_that_is_a_symlink_is_left_alone(
    tmp_path: Path,
    outside_dbt: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert case("holder_symlink")
    warehouse = tmp_path / "warehouse.duckdb"
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    holder = Path(writer_lock.holder_file(str(warehouse)))
    holder.symlink_to(victim)
    writer_lock.write_holder(str(warehouse))
    assert victim.read_text() == "precious\n"
    assert holder.is_symlink() and os.readlink(holder) == str(victim), "the link was replaced or followed"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([holder.name, victim.name])
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 1 and "is not a regular file" in said[0] and "left alone" in said[0], said


# --- the holder file, as a waiter reads it --------------------------------------------------------


def _record(pid: int, **fields: Any) -> dict[str, Any]:
    return {"invocation_id": "a1b2", "pid": pid, "command": "dbt build", "since": "2026-11-01 10:00:00", **fields}


def test_a_holder_file_that_is_a_fifo_is_not_waited_on(tmp_path: Path) -> None:
    assert case("holder_fifo")
    warehouse = str(tmp_path / "warehouse.duckdb")
    fifo = writer_lock.holder_file(warehouse)
    os.mkfifo(fifo)
    found: list[object] = []
    reader = threading.Thread(target=lambda: found.append(writer_lock.read_holder(warehouse, 4242)), daemon=True)
    reader.start()
    reader.join(timeout=10)
    blocked = reader.is_alive()
    if blocked:  # let the reader go: a writer opening the FIFO ends its wait
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=10)
    assert not blocked, "reading a holder file that is a FIFO blocked"
    assert found == [None]


def test_a_holder_file_that_is_a_symlink_is_not_read_through(tmp_path: Path) -> None:
    assert case("holder_read_through_symlink")
    warehouse = str(tmp_path / "warehouse.duckdb")
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps(_record(4242)))
    Path(writer_lock.holder_file(warehouse)).symlink_to(elsewhere)
    assert writer_lock.read_holder(warehouse, 4242) is None
    # the same record as a regular file is read: the link alone made the difference
    Path(writer_lock.holder_file(warehouse)).unlink()
    Path(writer_lock.holder_file(warehouse)).write_text(elsewhere.read_text())
    assert writer_lock.read_holder(warehouse, 4242) == _record(4242)


def test_a_holder_file_over_the_bound_is_not_read(tmp_path: Path) -> None:
    assert case("holder_oversized")
    warehouse = str(tmp_path / "warehouse.duckdb")
    padded = json.dumps(_record(4242, padding="x" * 70_000))
    assert len(padded) > 64 * 1024  # the bound docs/bad-input.md states
    Path(writer_lock.holder_file(warehouse)).write_text(padded)
    assert writer_lock.read_holder(warehouse, 4242) is None


FORGED = _record(
    4242,
    invocation_id="a1b2\x1b[2J\x1b]0;owned\x07",
    command="dbt build\nrerun_safe: all clear, nothing is held\r\x9b31m" + "A" * 5446,
    since="2026-11-01\u2028rerun_safe: fake\u202e",
)


def test_a_forged_holder_file_is_shown_on_one_line_and_cut(tmp_path: Path) -> None:
    assert case("holder_forged_controls") and case("holder_forged_long_line")
    warehouse = str(tmp_path / "warehouse.duckdb")
    Path(writer_lock.holder_file(warehouse)).write_text(json.dumps(FORGED))
    message = writer_lock.held_message(warehouse, 4242, "/usr/bin/evil\x1b[31m", 2)
    assert "another run (invocation a1b2?[2J?]0;owned?, pid 4242" in message, message  # the record was read
    assert _one_printable_line(message), repr(message)
    assert "A" * 200 not in message and "A" * 140 in message, "the command was not cut to its bound"
    assert len(message) < 1000, len(message)
    # DuckDB's own words name the holding program: shown the same way when there is no record
    Path(writer_lock.holder_file(warehouse)).unlink()
    bare = writer_lock.held_message(warehouse, 4242, "/usr/bin/evil\x1b[31m\x9b", 2)
    assert "(pid 4242, /usr/bin/evil?[31m?; no record of its run)" in bare and _one_printable_line(bare), bare


# --- a waiting process says so --------------------------------------------------------------------


class _Held(Exception):
    pass


def _held_three_times() -> Callable[..., str]:
    """A fake duckdb.connect: the file is held by pid 4242 for three tries, then free."""
    calls = {"n": 0}

    def connect(path: str, read_only: bool, config: dict[str, Any]) -> str:
        calls["n"] += 1
        if calls["n"] <= 3:
            raise _Held(
                f'IO Error: Could not set lock on file "{path}": Conflicting lock is held in '
                "/usr/bin/python3\x1b[31m (PID 4242). See also https://duckdb.org/docs/concurrency"
            )
        return "connection"

    return connect


def test_a_waiter_says_once_that_it_waits_and_for_whom(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert case("waiter_announces_under_quiet")
    monkeypatch.setattr(writer_lock, "console_shows_info", lambda: False)  # as under --quiet
    warehouse = str(tmp_path / "warehouse.duckdb")
    Path(writer_lock.holder_file(warehouse)).write_text(json.dumps(FORGED))
    now = [0.0]
    got = writer_lock.acquire(
        warehouse,
        {},
        60,
        connect=_held_three_times(),
        clock=lambda: now[0],
        sleep=lambda s: now.__setitem__(0, now[0] + s),
    )
    assert got == "connection"
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 1, said  # once, though it polled three times
    line = said[0]
    assert line.startswith("rerun_safe: another run (invocation a1b2") and "pid 4242" in line, line
    assert f"holds the warehouse {warehouse!r}; waiting up to 60 s for it" in line, line
    assert _one_printable_line(line) and "A" * 200 not in line, line


def test_the_waiting_line_goes_to_stderr_only_when_dbts_console_hides_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import dbt.flags

    def flags(**given: Any) -> None:
        monkeypatch.setattr(dbt.flags, "get_flags", lambda: SimpleNamespace(**given))

    flags(QUIET=True, LOG_LEVEL="info")
    assert not writer_lock.console_shows_info()
    flags(QUIET=False, LOG_LEVEL="warn")
    assert not writer_lock.console_shows_info()
    flags(QUIET=False, LOG_LEVEL="none")
    assert not writer_lock.console_shows_info()
    flags(QUIET=False, LOG_LEVEL="info")
    assert writer_lock.console_shows_info()  # dbt's own log line says it: not twice


HOLDER = r"""
import sys, duckdb
connection = duckdb.connect(sys.argv[1])
print("held", flush=True)
sys.stdin.readline()
connection.close()
"""


def test_dbt_show_quiet_waits_aloud_and_a_fifo_holder_file_does_not_hang_it(tmp_path: Path) -> None:
    """holder_fifo and waiter_announces_under_quiet end to end: `make show` runs `dbt show
    --quiet`; another process holds the warehouse and its holder file is a FIFO."""
    warehouse = tmp_path / "warehouse.duckdb"
    (tmp_path / "landing").mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(warehouse)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        os.mkfifo(writer_lock.holder_file(str(warehouse)))
        started = time.monotonic()
        show = subprocess.Popen(
            [
                str(DBT),
                "show",
                "--quiet",
                "--inline",
                "select 1 as one",
                "--project-dir",
                str(PROJECT_DIR),
                "--profiles-dir",
                str(PROJECT_DIR),
                "--target-path",
                str(tmp_path / "target"),
                "--vars",
                json.dumps({"landing_path": str(tmp_path / "landing"), writer_lock.VAR: 2}),
            ],
            env={**os.environ, "DBT_DUCKDB_PATH": str(warehouse)},
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            out, err = show.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            show.kill()
            show.communicate()
            pytest.fail("dbt show hung on a holder file that is a FIFO")
        elapsed = time.monotonic() - started
        assert holder.poll() is None  # the holder was never disturbed
    finally:
        if holder.poll() is None:
            assert holder.stdin is not None
            holder.stdin.write("go\n")
            holder.stdin.close()
            holder.wait(timeout=30)
    assert show.returncode != 0, out + err
    waiting = [line for line in err.splitlines() if "waiting up to 2 s" in line]
    assert len(waiting) == 1, err[-3000:]
    assert f"another process (pid {holder.pid}, " in waiting[0] and "no record of its run" in waiting[0], waiting
    assert "this run waited 2 s (var rerun_safe_lock_timeout_seconds) and wrote nothing" in out + err, out + err
    assert "Traceback" not in out + err
    assert elapsed < 200


# --- maintenance operations need a warehouse -------------------------------------------------------


def test_an_operation_on_a_path_without_a_warehouse_is_refused_before_the_file_exists(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert case("upgrade_without_warehouse")
    warehouse = tmp_path / "nowhere.duckdb"
    for macro in sorted(profile_check.MAINTENANCE_MACROS):
        monkeypatch.setattr(profile_check, "invoked_operation", lambda macro=macro: macro)
        with pytest.raises(profile_check.ProfileError) as refused:
            writer_lock.OneWriter().update_connection_config(_creds(warehouse), {})
        message = str(refused.value)
        assert message.startswith("rerun_safe: env var DBT_DUCKDB_PATH names no warehouse"), message
        assert repr(str(warehouse)) in message and f"run-operation {macro}" in message and "\n" not in message
        assert not warehouse.exists()
    # an existing warehouse, or any other command, goes on as before
    duckdb.connect(str(warehouse)).close()
    monkeypatch.setattr(profile_check, "invoked_operation", lambda: "rerun_safe_upgrade")
    profile_check.check_operation_target(str(warehouse))
    monkeypatch.setattr(profile_check, "invoked_operation", lambda: None)
    profile_check.check_operation_target(str(tmp_path / "new.duckdb"))


def test_the_invoked_operation_is_read_from_dbts_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    import dbt.flags

    monkeypatch.setattr(
        dbt.flags, "get_flags", lambda: SimpleNamespace(WHICH="run-operation", MACRO="rerun_safe.rerun_safe_upgrade")
    )
    assert profile_check.invoked_operation() == "rerun_safe_upgrade"
    monkeypatch.setattr(dbt.flags, "get_flags", lambda: SimpleNamespace(WHICH="build", MACRO=None))
    assert profile_check.invoked_operation() is None


def test_dbt_run_operation_rerun_safe_upgrade_creates_no_warehouse(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pipeline = Pipeline(tmp_path)
    assert not pipeline.warehouse.exists()
    capsys.readouterr()
    result = pipeline.dbt("run-operation", "rerun_safe_upgrade")
    printed = capsys.readouterr().out  # an operation's result carries no message: dbt prints it
    assert not result.success
    named = [line for line in printed.splitlines() if "rerun_safe: env var DBT_DUCKDB_PATH names no warehouse" in line]
    assert len(named) == 1, printed
    assert (
        "('warehouse.duckdb' does not exist): dbt run-operation rerun_safe_upgrade works on an existing "
        "warehouse and created nothing" in named[0]
    ), named
    assert "Traceback" not in printed
    assert not pipeline.warehouse.exists(), "the upgrade created a warehouse file"


# --- the DuckDB profile ----------------------------------------------------------------------------


@pytest.mark.parametrize("path_name", ["ware\nhouse.duckdb", "ware\x1b[2Jhouse.duckdb", "ware\x85.duckdb"])
def test_a_warehouse_path_with_a_control_character_is_refused_before_the_file_exists(
    tmp_path: Path,
    outside_dbt: None,
    path_name: str,
) -> None:
    assert case("duckdb_path_control_character")
    warehouse = tmp_path / path_name
    with pytest.raises(profile_check.ProfileError) as refused:
        writer_lock.OneWriter().update_connection_config(_creds(warehouse), {})
    message = str(refused.value)
    assert message.startswith("rerun_safe: env var DBT_DUCKDB_PATH must be a file path without control characters")
    assert _one_printable_line(message), repr(message)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("limit", ["-1", " -1 "])
def test_memory_limit_minus_one_means_no_limit_and_is_accepted(limit: str) -> None:
    assert case("memory_limit_none")
    profile_check.check_profile("warehouse.duckdb", {"memory_limit": limit})  # does not raise
    connection = duckdb.connect()
    try:  # dbt-duckdb sets it so on every cursor: DuckDB reads -1 as no limit
        connection.execute(f"set memory_limit = '{limit}'")
        assert "PiB" in connection.execute("select current_setting('memory_limit')").fetchall()[0][0]
    finally:
        connection.close()
    with pytest.raises(profile_check.ProfileError):
        profile_check.check_profile("warehouse.duckdb", {"memory_limit": "-2"})


# --- a warehouse cut only in an overflow block -----------------------------------------------------


def _overflow_last_warehouse(path: Path) -> tuple[int, int]:
    """A warehouse whose last used block holds only overflow strings of a table (its segment
    shares an earlier block): (that block, the block size)."""
    connection = duckdb.connect(str(path))
    try:
        connection.execute("pragma force_compression = 'uncompressed'")
        connection.execute(
            "create table notes as select i, (select string_agg(md5(i::varchar || '-' || j::varchar), '')"
            " from range(200) as r(j)) as body from range(30) as t(i)"
        )
        connection.execute("checkpoint")
        segments, overflow = connection.execute(
            "select max(block_id), max(list_max(additional_block_ids)) from pragma_storage_info('notes')"
            " where persistent"
        ).fetchall()[0]
        metadata = connection.execute("select max(block_id) from pragma_metadata_info()").fetchall()[0][0]
        block_size = connection.execute("select block_size from pragma_database_size()").fetchall()[0][0]
    finally:
        connection.close()
    assert overflow is not None and overflow > max(segments, metadata), (
        f"DuckDB laid this warehouse out otherwise (segments to {segments}, overflow to {overflow}, metadata "
        f"to {metadata}): the test needs a last block that holds overflow strings only; find a table that does"
    )
    return int(overflow), int(block_size)


def test_a_warehouse_cut_only_in_a_tables_overflow_block_is_refused(tmp_path: Path) -> None:
    assert case("warehouse_cut_in_overflow_block")
    warehouse = tmp_path / "warehouse.duckdb"
    last, block_size = _overflow_last_warehouse(warehouse)
    end_of_segments = whole_file.BLOCK_START + last * block_size
    os.truncate(warehouse, end_of_segments + block_size // 2)  # half of the overflow block is gone
    connection = duckdb.connect(str(warehouse), read_only=True)
    try:
        with pytest.raises(whole_file.WarehouseDamagedError) as refused:
            whole_file.check_whole(connection, str(warehouse))
    finally:
        connection.close()
    assert f"its tables use block {last}," in str(refused.value), refused.value


# --- the Postgres and Spark profiles ---------------------------------------------------------------


def _render(target: str, env: dict[str, str]) -> str:
    """profiles.yml's `target` rendered as dbt renders it with `env`: '' when it renders, else
    dbt's error. In a context of its own, so dbt's invocation context is left as it was."""
    from dbt.config.profile import Profile
    from dbt.config.renderer import ProfileRenderer
    from dbt_common.context import set_invocation_context

    raw = yaml.safe_load((PROJECT_DIR / "profiles.yml").read_text(encoding="utf-8"))

    def render() -> str:
        set_invocation_context({**os.environ, **env})
        try:
            Profile.render_profile(raw["rerun_safe"], "rerun_safe", target, ProfileRenderer({}))
        except Exception as error:  # dbt's error is what a user sees
            return str(error)
        return ""

    return contextvars.copy_context().run(render)


@pytest.mark.parametrize("profile_case", PROFILE_CASES, ids=lambda c: c.id)
def test_a_bad_profile_setting_fails_in_one_line_naming_its_env_var(profile_case: ProfileCase) -> None:
    error = _render(profile_case.target, {profile_case.name: profile_case.value})
    assert error, f"{profile_case.name}={profile_case.value!r} rendered"
    named = [line for line in error.splitlines() if f"rerun_safe: env var {profile_case.name} must be" in line]
    assert len(named) == 1, error[-2000:]
    line = named[0]
    # the whole sentence, with the value it refused, is on this line and printable
    assert profile_case.says in line and line.rstrip().endswith("into type 'number'"), line
    assert _one_printable_line(line), repr(line)
    sentence = line.split("Could not convert value '", 1)[1]  # dbt's words, then the profile's
    assert sentence.startswith(f"rerun_safe: env var {profile_case.name} must be"), line
    shown = sentence.split("; got ", 1)[1].rsplit("' into type", 1)[0]
    assert len(shown) <= 100 and shown == "".join(
        "?" if ord(char) < 32 or 127 <= ord(char) < 160 else char for char in profile_case.value[:100]
    ), shown


@pytest.mark.parametrize("target", ["postgres", "spark", "spark_thrift"])
def test_the_default_profile_settings_render(target: str) -> None:
    assert _render(target, {}) == ""
    assert _render(target, {"RERUN_SAFE_PG_PORT": "6543", "RERUN_SAFE_SPARK_THRIFT_PORT": "10001"}) == ""


def test_every_case_is_checked_by_a_test_here() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    unchecked = [c.id for c in LOCK_CASES if f'case("{c.id}")' not in source]
    assert not unchecked, f"cases no test checks: {unchecked}"
