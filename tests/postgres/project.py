"""tests/pipeline's `Pipeline`, pointed at the `postgres` target of profiles.yml.

A thin subclass: the same deliveries and dbt invocations, plus `--target postgres`, a fresh
schema per pipeline, a landing folder the server can read, and queries through psycopg2.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from tests.pipeline.project import BuildResult, Pipeline
from tests.postgres.server import PostgresServer


class PostgresPipeline(Pipeline):
    shares_parse = False  # absolute landing and warehouse paths, as the server or the JVM needs

    def __init__(self, root: Path, server: PostgresServer) -> None:
        super().__init__(root)
        self.server = server
        self.landing = server.new_landing()
        self.schema = "t_" + uuid.uuid4().hex[:12]

    def land(self, name: str, rows: Iterable[dict[str, str]] = (), *, raw: str | None = None) -> Path:
        path = super().land(name, rows, raw=raw)
        path.chmod(0o644)  # the server's OS user reads it
        return path

    def deliver(self, *paths: Path) -> None:
        super().deliver(*paths)
        for path in paths:
            (self.landing / path.name).chmod(0o644)  # the server's OS user reads it

    def dbt(self, command: str, *args: str, vars: dict[str, Any] | None = None) -> BuildResult:
        return super().dbt(command, *args, "--target", "postgres", vars=vars)

    def dbt_env(self) -> dict[str, str]:
        return {
            **super().dbt_env(),
            "RERUN_SAFE_PG_HOST": self.server.host,
            "RERUN_SAFE_PG_PORT": str(self.server.port),
            "RERUN_SAFE_PG_USER": self.server.user,
            "RERUN_SAFE_PG_DBNAME": self.server.dbname,
            "RERUN_SAFE_PG_SCHEMA": self.schema,
        }

    def connect(self):
        """A psycopg2 connection to this pipeline's schema (the caller closes it)."""
        import psycopg2  # comes with dbt-postgres; conftest reports it missing

        return psycopg2.connect(
            host=self.server.host,
            port=self.server.port,
            user=self.server.user,
            dbname=self.server.dbname,
            options=f"-c search_path={self.schema}",
        )

    def query(self, sql: str) -> list[tuple]:
        connection = self.connect()
        try:
            with connection.cursor() as cursor:
                cursor.execute(sql)
                rows = cursor.fetchall()
            connection.rollback()
        finally:
            connection.close()
        # sum(bigint) is numeric on Postgres: compare integers as integers
        return [
            tuple(int(v) if isinstance(v, Decimal) and v == v.to_integral_value() else v for v in row) for row in rows
        ]

    def table(self, name: str, exclude: Sequence[str] = ()) -> list[tuple]:
        columns = [
            c
            for (c,) in self.query(
                "select column_name from information_schema.columns"
                f" where table_schema = '{self.schema}' and table_name = '{name}' order by ordinal_position"
            )
            if c not in exclude
        ]
        return sorted(self.query(f"select {', '.join(columns)} from {name}"), key=repr)
