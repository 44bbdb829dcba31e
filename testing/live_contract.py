"""The memory contract as a live server is checked with it: fresh scopes per test, purged after it.

`benchledger.testing.live.check_memory` runs this class (a generated test module subclasses it);
the target server comes from the `live_target` fixture its runner provides. Kept apart from the
runner so that the contract is first imported under pytest, which rewrites its asserts.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest

from benchledger.adapters.memory.http_client import HttpMemory
from benchledger.adapters.memory.protocol import MemorySystem
from benchledger.testing.live import NOT_REACHABLE, LiveTarget
from benchledger.testing.memory_contract import MemoryContract, MemoryFactory

__all__ = ["LiveMemoryContract"]


def _fresh(kind: str) -> str:
    return f"benchmark:contract:{kind}:{secrets.token_hex(8)}"


class LiveMemoryContract(MemoryContract):
    """The contract with fresh scopes per test and a client of the live server as the memory."""

    @pytest.fixture
    def scope(self) -> str:
        return _fresh("Demo")

    @pytest.fixture
    def other_scope(self) -> str:
        return _fresh("Other")

    @pytest.fixture
    def memory_factory(self, live_target: LiveTarget) -> MemoryFactory:
        return lambda store_path: HttpMemory(store_path, url=live_target.url, token_env=live_target.token_env)

    @pytest.fixture
    def memory(self, memory_factory: MemoryFactory, store_path: Path, scope: str,
               other_scope: str) -> Iterator[MemorySystem]:
        system = memory_factory(store_path)
        yield system
        for used in (scope, other_scope):  # leave the server as the test found it
            with suppress(Exception):
                system.purge(used)
        system.close()

    def unmark_store(self, store_path: Path) -> None:
        pytest.skip(NOT_REACHABLE)

    def test_data_survives_close_and_reopen(self, scope: str, memory_factory: MemoryFactory,
                                            store_path: Path) -> None:
        try:
            super().test_data_survives_close_and_reopen(scope, memory_factory, store_path)
        finally:
            with suppress(Exception):
                cleanup = memory_factory(store_path)
                cleanup.purge(scope)
                cleanup.close()
