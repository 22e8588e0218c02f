"""Render SQL that calls the project's macros with `dbt show --inline` and return its rows: the
macro tests in this folder check what a macro renders by running it on DuckDB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DBT = Path(sys.executable).with_name("dbt")


def show_inline(inline: str, tmp_path: Path, limit: int) -> list[dict]:
    """The rows of `inline` (at most `limit`), in a throw-away DuckDB file under tmp_path."""
    proc = run_show(inline, tmp_path, limit)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(proc.stdout)["show"]


def run_show(inline: str, tmp_path: Path, limit: int) -> subprocess.CompletedProcess[str]:
    """`dbt show --inline` on `inline`, whatever its outcome (a compile error is one)."""
    env = dict(os.environ, DBT_DUCKDB_PATH=str(tmp_path / "show.duckdb"))
    return subprocess.run(
        [
            str(DBT),
            "show",
            "--quiet",
            "--output",
            "json",
            "--limit",
            str(limit),
            "--project-dir",
            str(REPO),
            "--profiles-dir",
            str(REPO),
            "--target-path",
            str(tmp_path / "target"),
            "--log-path",
            str(tmp_path / "logs"),
            "--inline",
            inline,
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
