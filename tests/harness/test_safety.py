"""Safety first: the harness resolves the target before any build and writes only into
locations it created. A target hard-coded to a file, the project's default warehouse, and a
target pointing at a server schema are never written; what cannot be redirected is refused
with exit status 2 and no writes.

Each test writes a tiny project of its own (two models, no files to read), so every build
costs about a second.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest

REPO = Path(__file__).resolve().parents[2]

MODELS = {
    "numbers.sql": "{{ config(materialized='table', unique_key='n') }}\nselect range as n from range(5)",
    "doubled.sql": "select n, n * 2 as twice from {{ ref('numbers') }}",
}


def make_project(root: Path, profile: str, models: dict[str, str] | None = None) -> Path:
    (root / "models").mkdir(parents=True)
    (root / "dbt_project.yml").write_text(
        textwrap.dedent("""\
        name: tiny
        version: "1.0"
        config-version: 2
        profile: tiny
        flags:
          send_anonymous_usage_stats: false
        """)
    )
    (root / "profiles.yml").write_text(textwrap.dedent(profile))
    for name, sql in (models or MODELS).items():
        (root / "models" / name).write_text(sql)
    return root


def harness(project: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            *args,
            "--project-dir",
            str(project),
            "--quiet",
            "--work-dir",
            str(project.parent / "work"),
        ],
        cwd=cwd or project,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_target_hard_coded_to_a_file_is_never_written(tmp_path: Path) -> None:
    prod = tmp_path / "prod.duckdb"
    con = duckdb.connect(str(prod))
    con.execute("create table main.numbers as select 42 as n")
    con.close()
    before = digest(prod)
    project = make_project(
        tmp_path / "project",
        f"""\
        tiny:
          target: prod
          outputs:
            prod:
              type: duckdb
              path: "{prod}"
              threads: 1
        """,
    )
    done = harness(project, "idempotency")
    # The checks ran, in a scratch file of their own ...
    assert done.returncode == 0, done.stdout + done.stderr
    assert "== idempotency: PASS" in done.stdout
    assert "rows compared 10" in done.stdout
    # ... and the production file is byte for byte what it was.
    assert digest(prod) == before
    assert not prod.with_name("prod.duckdb.wal").exists()


def test_the_projects_default_warehouse_is_never_created(tmp_path: Path) -> None:
    # A relative default, as dbt-duckdb's examples have it: on a first run it would be created
    # (and built) next to the project.
    project = make_project(
        tmp_path / "project",
        """\
        tiny:
          target: dev
          outputs:
            dev:
              type: duckdb
              path: "{{ env_var('TINY_WAREHOUSE', 'target/tiny.duckdb') }}"
        """,
    )
    done = harness(project, "all", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (project / "target" / "tiny.duckdb").exists()
    assert not list(project.rglob("*.duckdb"))


def test_a_model_with_its_own_database_is_refused_before_any_write(tmp_path: Path) -> None:
    # The model names an attached catalog: it would be built outside the scratch file.
    other = tmp_path / "other.duckdb"
    duckdb.connect(str(other)).close()
    before = digest(other)
    project = make_project(
        tmp_path / "project",
        f"""\
        tiny:
          target: dev
          outputs:
            dev:
              type: duckdb
              path: "{tmp_path / "dev.duckdb"}"
              attach:
                - path: "{other}"
                  read_only: true
        """,
        {**MODELS, "elsewhere.sql": "{{ config(database='other') }}\nselect 1 as x"},
    )
    done = harness(project, "idempotency")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "refused, nothing was built" in done.stderr
    assert "model.tiny.elsewhere -> other.main" in done.stderr
    assert digest(other) == before
    assert not (tmp_path / "dev.duckdb").exists()
    assert not list((tmp_path / "work").rglob("*.duckdb"))  # not even a scratch file


def test_a_writable_attachment_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared.duckdb"
    project = make_project(
        tmp_path / "project",
        f"""\
        tiny:
          target: dev
          outputs:
            dev:
              type: duckdb
              path: ":memory:"
              attach:
                - path: "{shared}"
        """,
    )
    done = harness(project, "keys")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "writable" in done.stderr and "read_only: true" in done.stderr
    assert not shared.exists()


PORTABLE_MODELS = {  # the same two models in SQL that PostgreSQL runs too
    "numbers.sql": "{{ config(materialized='table', unique_key='n') }}\n"
    "select n from (values (0), (1), (2), (3), (4)) as v(n)",
    "doubled.sql": "select n, n * 2 as twice from {{ ref('numbers') }}",
}


def _server_profile(server, schema: str) -> str:
    return f"""\
        tiny:
          target: prod
          outputs:
            prod:
              type: postgres
              host: {server.host}
              port: {server.port}
              user: {server.user}
              password: ""
              dbname: {server.dbname}
              schema: {schema}
              threads: 1
        """


def _server_state(server) -> tuple[list[tuple], list[str]]:
    """(every relation outside the system schemas with its rows, every schema the harness
    would have created)."""
    listed = server.query(
        "select table_schema, table_name from information_schema.tables "
        "where table_schema not in ('pg_catalog', 'information_schema') order by 1, 2"
    )
    relations = [
        (schema, name, server.query(f'select * from "{schema}"."{name}" order by 1')) for schema, name in listed
    ]
    return relations, [
        row[0] for row in server.query("select nspname from pg_namespace where nspname like 'rs\\_%' order by 1")
    ]


def test_a_target_pointing_at_a_server_schema_is_never_written(tmp_path: Path, postgres_server) -> None:
    """The harness builds into scratch schemas of its own, never into the target's schema, and
    drops them afterwards: the server is left exactly as it was."""
    server = postgres_server
    con = server.connect()
    with con.cursor() as cur:
        cur.execute("create schema if not exists analytics_prod")
        cur.execute("create table if not exists analytics_prod.numbers as select 42 as n")
    con.close()
    before = _server_state(server)
    project = make_project(tmp_path / "project", _server_profile(server, "analytics_prod"), PORTABLE_MODELS)
    done = harness(project, "all", "--keep-work-dir")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "idempotency: PASS" in done.stdout and "keys: PASS" in done.stdout, done.stdout
    assert "analytics_prod.numbers" in done.stdout  # reported under the target's own schema
    # --keep-work-dir keeps the scratch schemas: the builds really happened there
    kept = _server_state(server)[1]
    assert kept and all(name.startswith("rs_") for name in kept), kept
    assert "scratch schemas kept: rs_" in done.stderr
    # ...and the target's schema is exactly as it was
    assert [r for r in _server_state(server)[0] if r[0] == "analytics_prod"] == [
        r for r in before[0] if r[0] == "analytics_prod"
    ]
    # without --keep-work-dir every scratch schema is dropped: the server is as before
    con = server.connect()
    with con.cursor() as cur:
        for schema in kept:
            cur.execute(f'drop schema "{schema}" cascade')
    con.close()
    done = harness(project, "idempotency")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _server_state(server) == before


def test_a_server_model_outside_the_scratch_schemas_is_refused(tmp_path: Path, postgres_server) -> None:
    """A generate_schema_name that ignores the target's schema would build into a fixed one."""
    server = postgres_server
    project = make_project(tmp_path / "project", _server_profile(server, "analytics_prod"), PORTABLE_MODELS)
    (project / "macros").mkdir()
    (project / "macros" / "schemas.sql").write_text(
        "{% macro generate_schema_name(custom, node) %}reporting{% endmacro %}"
    )
    before = _server_state(server)
    done = harness(project, "all")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "refused, nothing was built" in done.stderr
    assert "model.tiny.numbers -> " in done.stderr and ".reporting" in done.stderr
    assert _server_state(server) == before


@pytest.mark.parametrize("profile_error", ["missing target", "missing env var"])
def test_a_profile_that_does_not_resolve_is_refused(tmp_path: Path, profile_error: str) -> None:
    path = "\"{{ env_var('NO_SUCH_VAR_FOR_RERUN_SAFE') }}\"" if profile_error == "missing env var" else "x.duckdb"
    project = make_project(
        tmp_path / "project",
        f"""\
        tiny:
          target: {"nowhere" if profile_error == "missing target" else "dev"}
          outputs:
            dev:
              type: duckdb
              path: {path}
        """,
    )
    done = harness(project, "keys")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "refused" in done.stderr
    assert not list(tmp_path.rglob("*.duckdb"))


def test_the_scratch_profile_keeps_every_setting_but_the_location(tmp_path: Path) -> None:
    import yaml

    from harness.target import WAREHOUSE_ENV, scratch_profile

    # This repository's own profile: a plugin, settings, an env var with a default.
    scratch = scratch_profile(REPO, REPO, None, {}, tmp_path / "profile", threads=3)
    written = yaml.safe_load((tmp_path / "profile" / "profiles.yml").read_text())
    target = written["rerun_safe"]["outputs"]["rerun_safe_scratch"]
    assert written["rerun_safe"]["target"] == "rerun_safe_scratch"
    assert target["path"] == "{{ env_var('" + WAREHOUSE_ENV + "') }}"
    assert target["plugins"] == [{"module": "rerun_safe_duckdb"}]
    assert target["settings"]["preserve_insertion_order"] is True
    assert target["threads"] == 3
    assert scratch.user_target == "duckdb" and scratch.adapter == "duckdb"
