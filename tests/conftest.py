"""Shared fixtures: every test gets its own storage; the released data lives beside the checkout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pg_server import postgres_server  # noqa: F401  (the session's throwaway PostgreSQL server)

REPO = Path(__file__).resolve().parents[1]


def shared_data_dir() -> Path:
    """../shared/data beside the checkout (CI lays it there), or $BENCHLEDGER_SHARED_DATA."""
    override = os.environ.get("BENCHLEDGER_SHARED_DATA")
    path = Path(override) if override else REPO.parent / "shared" / "data"
    if not path.is_dir():
        raise RuntimeError(f"released data not found at {path}; set BENCHLEDGER_SHARED_DATA")
    return path


@pytest.fixture
def shared_data() -> Path:
    return shared_data_dir()


@pytest.fixture(autouse=True)
def _isolated_storage(tmp_path, monkeypatch):
    """Point the default ledger and memory store at this test's tmp_path; no key leaks in."""
    monkeypatch.setenv("BENCHLEDGER_LEDGER", str(tmp_path / "ledger.db"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    yield
