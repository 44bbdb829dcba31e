"""Run the ledger contract on both backends: SQLite files, and schemas on a PostgreSQL server."""

from __future__ import annotations

import pytest
from benchledger.ledger.store import Ledger
from ledger_contract import LedgerContract


class TestSqliteLedger(LedgerContract):
    @pytest.fixture
    def store_factory(self, tmp_path):
        return lambda name: Ledger.open(tmp_path / f"{name}.db")


class TestPostgresLedger(LedgerContract):
    """Each store name is a fresh schema, initialised by its owner role and opened as the writer."""

    @pytest.fixture
    def store_factory(self, postgres_server):
        urls: dict[str, str] = {}

        def open_store(name: str) -> Ledger:
            if name not in urls:
                urls[name] = postgres_server.new_ledger()
            return Ledger.open(urls[name])

        return open_store
