"""The session's throwaway PostgreSQL server, and the roles the README sets up on it.

One cluster per test session (`benchledger.bench.pg_cluster`: initdb in a new folder, run as an
unprivileged user, a unix socket only, `fsync` off since it dies with the session), stopped and
removed at the end. It holds a superuser `postgres` and two roles as the README sets them up:
`bl_owner`, which owns the ledger schemas and runs `benchledger ledger init`, and `bl_writer`,
which appends. `PgServer.new_ledger()` makes a fresh schema owned by `bl_owner`, initialises a
ledger in it granting `bl_writer` its rights, and returns the writer's URL. Where PostgreSQL is
not installed (no `initdb` on this machine) the fixture skips the test and says why; where it is
installed but initdb or the server fails, every test that needs it fails with the server's own
words (a broken tool is not an absent one). CI installs Debian's `postgresql` package (`.ci/run`).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pytest

from benchledger.bench.pg_cluster import Cluster, ClusterUnavailable, find_bindir, start_cluster

OWNER, WRITER = "bl_owner", "bl_writer"


@dataclass
class PgServer:
    cluster: Cluster

    def url(self, user: str = "postgres", schema: str | None = None, password: str | None = None) -> str:
        return self.cluster.url(user, schema, password)

    def sql(self, *statements: str, user: str = "postgres", schema: str | None = None) -> list[tuple]:
        """Run statements through psycopg; the rows of the last one (if it returns any)."""
        import psycopg

        rows: list[tuple] = []
        with psycopg.connect(self.url(user, schema), autocommit=True) as conn:
            for statement in statements:
                cursor = conn.execute(statement)
                rows = cursor.fetchall() if cursor.description else []
        return rows

    def new_ledger(self, schema: str | None = None) -> str:
        """A fresh schema owned by bl_owner, holding a ledger bl_writer may append to: its URL."""
        from benchledger.ledger.store import init_ledger

        schema = schema or f"t_{uuid.uuid4().hex[:12]}"
        self.sql(f"CREATE SCHEMA {schema} AUTHORIZATION {OWNER}")
        init_ledger(self.url(OWNER, schema), writers=(WRITER,))
        return self.url(WRITER, schema)


@pytest.fixture(scope="session")
def postgres_server():
    """The session's PostgreSQL server: a skip where PostgreSQL is not installed, a failure where it
    is installed and will not start."""
    if find_bindir() is None:
        pytest.skip("no PostgreSQL server binaries (initdb) on this machine; install Debian's postgresql "
                    "(apt-get install -y postgresql; .ci/run does) to run this test")
    try:
        cluster = start_cluster(fsync=False, max_connections=200)
    except ClusterUnavailable as exc:
        pytest.fail(f"PostgreSQL is installed ({find_bindir()}) but no server could be started: {exc}",
                    pytrace=False)
    try:
        server = PgServer(cluster)
        server.sql(f"CREATE ROLE {OWNER} LOGIN", f"CREATE ROLE {WRITER} LOGIN")
        yield server
    finally:
        cluster.stop()
