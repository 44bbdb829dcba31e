"""Run the memory contract over every system the registry lists.

The list comes from the `benchledger.memory` entry points, so a system added there (in the box or
by a plugin) is covered without touching this file, and one that cannot be opened fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from benchledger.adapters.memory.registry import available_memories, open_memory
from benchledger.testing.memory_contract import MemoryContract

# `http` needs a server; the same contract runs over HTTP in test_memory_http_contract.py. The
# `oracle` recalls only labelled evidence, which the contract's queries have none of: its own tests
# (test_memory_floors.py) hold it to the rest.
# mem0 and graphiti (optional extras, which call a model) run the whole contract in their own modules
# (test_memory_mem0.py, test_memory_graphiti.py: with and without inference, through the loopback),
# which fail when CI's install lacks the extra.
OWN_MODULES = ("http", "oracle", "mem0", "graphiti")
REGISTERED = sorted(name for name in available_memories() if name not in OWN_MODULES)


def test_the_registry_lists_the_built_in_systems() -> None:
    assert {"sqlite", "bm25-reference", "structured", "full-context"} <= set(REGISTERED)
    assert {"http", "oracle"} <= set(available_memories())


@pytest.fixture(params=REGISTERED)
def memory_factory(request):
    name = request.param

    def factory(store_path: Path):
        return open_memory(name, store_path)

    return factory


class TestEveryRegisteredMemory(MemoryContract):
    """The whole contract, once per registered system."""

    def test_opens_under_its_registered_name(self, memory_factory, store_path: Path, request) -> None:
        system = memory_factory(store_path)
        try:
            info = available_memories()[system.name]
            assert info.error is None
            assert info.version == system.version
            assert request.node.callspec.params["memory_factory"] == system.name
        finally:
            system.close()
