"""The toy memory passes the same contract as benchledger's own memory systems."""

from __future__ import annotations

import pytest

from benchledger.testing.memory_contract import MemoryContract
from toy_memory import ToyMemory


@pytest.fixture
def memory_factory():
    return ToyMemory


class TestToyMemory(MemoryContract):
    pass
