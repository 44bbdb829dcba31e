"""Run the ledger contract on SQLite files (the backend every ledger has today)."""

from __future__ import annotations

import pytest
from benchledger.ledger.store import Ledger
from ledger_contract import LedgerContract


class TestSqliteLedger(LedgerContract):
    @pytest.fixture
    def store_factory(self, tmp_path):
        return lambda name: Ledger.open(tmp_path / f"{name}.db")
