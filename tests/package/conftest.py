from tests.postgres.conftest import postgres_server  # noqa: F401 - the throw-away server fixture
