"""A throw-away PostgreSQL server for the tests in this folder.

One cluster per pytest process (so per xdist worker): tests/postgres/server.py's
throwaway_server (initdb in a temporary folder, a free port on 127.0.0.1), stopped and deleted
at the end of the session. The server reads the landing folders itself (pg_read_binary_file),
so every landing folder lives under the cluster's temporary folder, which the server's OS user
can read.

Root cannot run initdb: as root the server runs as the `postgres` user (as on the CI image).
Without PostgreSQL binaries the tests are skipped with a loud reason, or fail when CI is set:
CI must install them (`apt-get install -y postgresql`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

# the names other test modules import from here (tests/faults/server.py among them)
from tests.postgres.server import (  # noqa: F401
    SERVER_USER,
    PostgresServer,
    ServerUnavailable,
    _as_server_user,
    _find_bin_dir,
    _free_port,
    server_binaries,
    throwaway_server,
)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    try:
        bin_dir = server_binaries()
    except ServerUnavailable as unavailable:
        if os.environ.get("CI"):
            pytest.fail(str(unavailable) + unavailable.ci_hint, pytrace=False)
        pytest.skip("SKIPPED LOUDLY: " + str(unavailable))
    with throwaway_server(bin_dir) as server:
        yield server
