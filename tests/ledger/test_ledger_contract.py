"""Run the ledger contract on both backends: SQLite files, and schemas on a PostgreSQL server."""

from __future__ import annotations

import sqlite3
import zlib

import psycopg
import pytest
from benchledger.ledger.migrations import GUARD_TRIGGERS
from benchledger.ledger.store import Ledger
from ledger_contract import LedgerContract


class TestSqliteLedger(LedgerContract):
    @pytest.fixture
    def store_factory(self, tmp_path):
        return lambda name: Ledger.open(tmp_path / f"{name}.db")

    @pytest.fixture
    def change_blob(self, tmp_path):
        def change(name: str, digest: str, body: bytes) -> None:
            conn = sqlite3.connect(tmp_path / f"{name}.db", isolation_level=None)
            conn.execute("DROP TRIGGER blobs_no_update")
            conn.execute("UPDATE blobs SET body = ? WHERE digest = ?", (zlib.compress(body), digest))
            conn.execute(GUARD_TRIGGERS["blobs_no_update"])
            conn.close()

        return change


class TestPostgresLedger(LedgerContract):
    """Each store name is a fresh schema, initialised by its owner role and opened as the writer."""

    @pytest.fixture
    def urls(self) -> dict[str, str]:
        return {}

    @pytest.fixture
    def change_blob(self, postgres_server, urls):
        """As the superuser: the guards skipped, the server's re-hash dropped and put back as it was."""
        from benchledger.ledger.pg_identity import BLOB_CHECK

        def change(name: str, digest: str, body: bytes) -> None:
            schema = urls[name].rsplit("%3D", 1)[1]
            with psycopg.connect(postgres_server.url("postgres", schema), autocommit=True) as conn:
                conn.execute(f"ALTER TABLE blobs DROP CONSTRAINT {BLOB_CHECK[0]}")
                conn.execute("SET session_replication_role = replica")
                conn.execute("UPDATE blobs SET body = %s WHERE digest = %s", (body, digest))
                conn.execute(f"ALTER TABLE blobs ADD CONSTRAINT {BLOB_CHECK[0]} {BLOB_CHECK[1]}")

        return change

    @pytest.fixture
    def store_factory(self, postgres_server, urls):

        def open_store(name: str) -> Ledger:
            if name not in urls:
                urls[name] = postgres_server.new_ledger()
            return Ledger.open(urls[name])

        return open_store
