"""Graphiti (the `benchledger[graphiti]` extra) passes the whole memory contract offline on embedded
Kuzu, one database per scope, through the loopback endpoint benchledger starts for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchledger.adapters.memory.registry import available_memories, open_memory
from benchledger.testing.memory_contract import SCOPE, MemoryContract, contract_corpus

from conftest import requires_extra

pytestmark = requires_extra("graphiti_core", "graphiti")


def test_graphiti_is_registered_and_loads() -> None:
    info = available_memories()["graphiti"]
    assert info.error is None and info.version == "0.31.2"


class TestGraphiti(MemoryContract):
    @pytest.fixture
    def memory_factory(self):
        return lambda store_path: open_memory("graphiti", store_path)


def test_facts_name_the_documents_of_their_episode_and_calls_are_recorded(tmp_path: Path) -> None:
    memory = open_memory("graphiti", tmp_path / "g.sqlite", granularity="2")
    try:
        corpus = contract_corpus()
        with memory.model_calls.stage("build", scope_key="default"):
            memory.ingest(SCOPE, corpus)
            list(memory.build(SCOPE))
        calls = memory.model_calls.drain()
        assert {c.endpoint for c in calls} == {"chat", "embeddings"} and all(c.stage == "build" for c in calls)
        got = memory.recall(SCOPE, corpus[4].text, asking_user=None, k=3, token_budget=None)
        assert got[0].kind == "fact" and corpus[4].text in got[0].text
        assert got[0].sources == (corpus[4].doc_id,)  # one document per episode here: channels alternate
        memory.purge(SCOPE)
        assert not [f for f in (tmp_path / "g.graphiti").iterdir()]
    finally:
        memory.close()
