"""The harness on PostgreSQL: the same fixture projects, the same verdicts as on DuckDB.

Each run resolves the fixtures' `pg` target (pointed at this module's throw-away server), builds
every lane in scratch schemas of its own (`rs_<run>_...`), diffs and key-checks inside the
database, and drops every scratch schema at the end. Both delivery modes: rows appended to
source() tables (`--load-sources`) and landing folders the server reads itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from tests.harness.helpers import DELIVERIES, PROJECTS
from tests.harness.test_classic_bugs import (
    MODES,
    assert_each_bug_failed_its_check,
    classic_bugs_args,
)


@pytest.fixture()
def pg_target(postgres_server, monkeypatch):
    """The fixtures' `pg` target, pointed at the server; yields a function listing the
    schemas on the server (to prove the harness dropped its own)."""
    server = postgres_server
    monkeypatch.setenv("RERUN_SAFE_PG_HOST", server.host)
    monkeypatch.setenv("RERUN_SAFE_PG_PORT", str(server.port))
    monkeypatch.setenv("RERUN_SAFE_PG_USER", server.user)
    monkeypatch.setenv("RERUN_SAFE_PG_DBNAME", server.dbname)

    def schemas() -> list[str]:
        return [
            row[0]
            for row in server.query(
                "select nspname from pg_namespace where nspname not like 'pg\\_%' "
                "and nspname not in ('information_schema', 'public') order by 1"
            )
        ]

    before = schemas()
    yield server
    assert schemas() == before, "the harness left scratch schemas behind"


def _work(server, tmp_path: Path) -> Path:
    # landing folders: the server (another OS user) reads the landed files itself
    return server.new_landing() if server else tmp_path / "work"


@pytest.mark.parametrize("mode", sorted(MODES))
def test_each_classic_bug_fails_the_check_meant_for_it_on_postgres(
    mode: str, pg_target, tmp_path: Path, capsys
) -> None:
    summary = tmp_path / "summary.md"
    args = [*classic_bugs_args(mode, summary, _work(pg_target, tmp_path)), "--target", "pg"]
    code = main(args)
    out = capsys.readouterr().out
    assert_each_bug_failed_its_check(mode, code, out, summary.read_text())


# The landing twin only (CI time: the sources twin's `all` here took about 150 s). What that leaves
# out on this server: the sources twin's replay, batches, crash and concurrency lanes. Sources are
# still loaded on this server by the `sources` classic-bug case above (keys, idempotency,
# convergence), the schema store's crash restore is exercised by the landing twin below, and the
# sources twin runs `all` on DuckDB (tests/harness/test_classic_bugs.py).
def test_the_correct_twin_passes_all_on_postgres(pg_target, tmp_path: Path, capsys) -> None:
    code = main(
        [
            "all",
            "--project-dir",
            str(PROJECTS / "correct"),
            "--deliveries",
            str(DELIVERIES),
            "--target",
            "pg",
            "--work-dir",
            str(_work(pg_target, tmp_path)),
            # crash: 1 stop between models and 1 kill (the defaults are 3 and 2): a rollback on the
            # server and a restore from the schema store. A kill can land after the build has ended
            # ("not interrupted"); tests/harness/test_crash.py stops and kills more, on DuckDB.
            "--crash-points",
            "1",
            "--kill-points",
            "1",
            # batches: the reverse split (coarse: tests/harness/test_verdict_rules.py, on DuckDB); all
            # deliveries at once against one batch per key is the convergence check
            "--splits",
            "reverse",
        ]
    )
    captured = capsys.readouterr()
    out = captured.out
    assert code == 0, out + captured.err[-4000:]
    assert "0 failed, 0 not exercised" in out and "0 could not run" in out, out
    assert "analytics" in out  # relations reported under the target's own schema
