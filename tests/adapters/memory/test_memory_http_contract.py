"""The memory contract, unchanged, against built-in systems served over HTTP.

The factory serves the system on `store_path` with a real `MemoryServer` on an ephemeral
loopback port and returns an `HttpMemory` client; reopening the same store stops the previous
server first, so "survives close and reopen" really reopens the file. The served store is a local
SQLite file, so the contract's own `unmark_store` applies.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from benchledger.adapters.memory.http_client import HttpMemory
from benchledger.adapters.memory.http_server import MemoryServer
from benchledger.adapters.memory.registry import available_memories, open_memory
from benchledger.testing.memory_contract import MemoryContract

SERVED = ["sqlite", "bm25-reference", "structured"]


@pytest.fixture(params=SERVED)
def memory_factory(request):
    name = request.param
    servers: dict[Path, MemoryServer] = {}

    def factory(store_path: Path) -> HttpMemory:
        if store_path in servers:
            servers.pop(store_path).close()
        servers[store_path] = MemoryServer(open_memory(name, store_path)).start()
        return HttpMemory(store_path, url=servers[store_path].url)

    yield factory
    for server in servers.values():
        server.close()


class TestServedMemory(MemoryContract):
    """The whole contract through the HTTP client and server."""

    def test_takes_the_remote_identity(self, memory: HttpMemory, request) -> None:
        served = request.node.callspec.params["memory_factory"]
        assert memory.name == f"http:{served}"
        assert memory.remote_name == served
        assert memory.version == available_memories()[served].version
