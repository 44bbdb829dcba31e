"""The one contract every memory system must pass.

Subclass `MemoryContract` in a test module and provide a `memory_factory` fixture: a callable
`(store_path: Path) -> MemorySystem` that opens (or reopens) the system on that evaluation store.
benchledger's own `tests/adapters/memory/test_memory_contract.py` runs it over every system the registry lists; a
memory served over HTTP runs it with a factory that starts the server on `store_path` and returns a
client. A plug-in's own tests import it from here (`examples/toy-memory/` shows one).

Override `unmark_store` if the system keeps its evaluation store somewhere other than a SQLite
file at `store_path`.

Candidates are checked in the shape real systems return (`adapters.memory.protocol.Candidate`): a
stored document must come back with every structural field exactly as ingested; derived text (a
fact, a summary) must name only documents the scope ingested. Where a test asks "which document
came back", it reads the documents each candidate names (`sources`), so a system returning facts
passes the same tests as one returning documents.

A system whose class says `ranks_by_query = False` (`full-context`: the newest history, whatever is
asked) is held to that instead of a ranking: its recall is identical for every query and is the
newest documents, oldest first, and its budget keeps the newest ones.
"""

from __future__ import annotations

import inspect
import sqlite3
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.evalstore import MARKER_TABLE
from benchledger.adapters.memory.protocol import CANDIDATE_KINDS, Candidate, MemorySystem, estimate_tokens
from benchledger.errors import NotAnEvaluationStore

__all__ = ["MemoryContract", "MemoryFactory", "contract_corpus", "SCOPE", "OTHER_SCOPE"]

MemoryFactory = Callable[[Path], MemorySystem]
SCOPE = "benchmark:contract:Demo:0123abcd"
OTHER_SCOPE = "benchmark:contract:Other:4567ef01"
_START = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
_TEXTS = [
    "Kickoff: we will ship the billing migration before the April freeze.",
    "The ledger reconciliation job failed twice on Tuesday night.",
    "Decision: Priya owns the vendor contract renewal with Northwind.",
    "lol did anyone see the cat video in random",
    "Budget for the observability rollout is capped at 40k euros.",
    "Reminder: the quarterly audit fieldwork starts on the 12th.",
    "Marco proposes moving the standup to 9:30 for the Lisbon team.",
    "Final call: the billing migration slips to May because of the freeze.",
]


def contract_corpus(prefix: str = "Msg_", texts: list[str] | None = None) -> list[Document]:
    """Documents that use every structural field, in canonical order."""
    texts = texts if texts is not None else _TEXTS
    return [
        Document(
            doc_id=f"{prefix}{i}", text=text, author=f"User_{i % 3}",
            role=("lead", "engineer", "analyst")[i % 3], channel=("general", "finance")[i % 2],
            reply_to=f"{prefix}{i - 1}" if i % 2 else None,
            timestamp=_START + timedelta(minutes=17 * i), phase=f"phase-{i // 4}",
            topic=("billing", "ops")[i % 2], is_decision=i in (2, 7),
            position=i, extra={"thread": str(i // 2)} if i % 3 == 0 else {},
        )
        for i, text in enumerate(texts)
    ]


def _ranks_by_query(memory: MemorySystem) -> bool:
    return getattr(memory, "ranks_by_query", True)


def _build_all(memory: MemorySystem, scope: str, batch_size: int = 1000) -> list[list[str]]:
    return list(memory.build(scope, batch_size=batch_size))


def _ids(candidates: list[Candidate]) -> list[str]:
    """The documents named, in rank order (each once)."""
    return list(dict.fromkeys(doc_id for c in candidates for doc_id in c.sources))


class MemoryContract:
    """Shared tests; the subclass's module provides the `memory_factory` fixture."""

    @pytest.fixture
    def store_path(self, tmp_path: Path) -> Path:
        return tmp_path / "memory-store.db"

    @pytest.fixture
    def scope(self) -> str:
        """The scope a test writes: `SCOPE` on a store of its own; a live server's run gives each test a
        fresh one (`benchledger.testing.live`)."""
        return SCOPE

    @pytest.fixture
    def other_scope(self) -> str:
        """A second scope, for the isolation tests."""
        return OTHER_SCOPE

    @pytest.fixture
    def memory(self, memory_factory: MemoryFactory, store_path: Path):
        system = memory_factory(store_path)
        yield system
        system.close()

    @pytest.fixture
    def loaded(self, scope: str, memory: MemorySystem) -> MemorySystem:
        memory.ingest(scope, contract_corpus())
        _build_all(memory, scope)
        return memory

    def unmark_store(self, store_path: Path) -> None:
        """Strip the evaluation marks from the store, as a file made by something else would be."""
        conn = sqlite3.connect(store_path, isolation_level=None)
        try:
            conn.execute("PRAGMA application_id = 0")
            conn.execute(f"DROP TABLE IF EXISTS {MARKER_TABLE}")
        finally:
            conn.close()

    def test_identifies_itself(self, memory: MemorySystem) -> None:
        assert isinstance(memory, MemorySystem)
        assert memory.name and memory.version

    def test_ingest_is_idempotent_by_doc_id(self, scope: str, memory: MemorySystem) -> None:
        corpus = contract_corpus()
        assert memory.ingest(scope, corpus[:5]) == 5
        assert memory.ingest(scope, corpus[:5]) == 0
        assert memory.ingest(scope, corpus[3:]) == len(corpus) - 5
        assert memory.state(scope).documents == len(corpus)

    def test_state_counts_documents_and_pending_chunks(self, scope: str, memory: MemorySystem) -> None:
        assert memory.state(scope).documents == 0
        assert memory.state(scope).pending_chunks == 0
        memory.ingest(scope, contract_corpus())
        state = memory.state(scope)
        assert state.documents == len(contract_corpus())
        assert state.pending_chunks > 0

    def test_build_drains_pending_in_batches_and_yields_ids(self, scope: str, memory: MemorySystem) -> None:
        memory.ingest(scope, contract_corpus())
        batches = _build_all(memory, scope, batch_size=3)
        assert len(batches) >= 2
        assert all(0 < len(batch) <= 3 for batch in batches)
        chunk_ids = [chunk_id for batch in batches for chunk_id in batch]
        assert all(isinstance(chunk_id, str) and chunk_id for chunk_id in chunk_ids)
        assert len(set(chunk_ids)) == len(chunk_ids)
        assert memory.state(scope).pending_chunks == 0
        assert _build_all(memory, scope) == []
        memory.ingest(scope, contract_corpus(prefix="Late_", texts=["a late arrival"]))
        assert memory.state(scope).pending_chunks > 0
        assert len([i for batch in _build_all(memory, scope) for i in batch]) >= 1
        assert memory.state(scope).pending_chunks == 0

    def test_recall_respects_k_and_ranks_in_order(self, scope: str, loaded: MemorySystem) -> None:
        query = "billing migration freeze audit budget vendor"
        for k in (1, 3, 10):
            got = loaded.recall(scope, query, asking_user="User_1", k=k, token_budget=None)
            assert 0 < len(got) <= k
            assert [c.rank for c in got] == list(range(1, len(got) + 1))
            assert all(a.score >= b.score for a, b in zip(got, got[1:]))
        assert loaded.recall(scope, query, asking_user=None, k=0, token_budget=None) == []

    def test_recall_packs_a_prefix_within_the_token_budget(self, scope: str, loaded: MemorySystem) -> None:
        query = "billing migration freeze"
        full = loaded.recall(scope, query, asking_user=None, k=10, token_budget=None)
        assert len(full) >= 2
        costs = [estimate_tokens(c.text) for c in full]
        texts = [c.text for c in full]
        if not _ranks_by_query(loaded):  # the budget keeps the newest: a suffix, not a prefix
            costs, texts = costs[::-1], texts[::-1]
        budget = costs[0] + costs[1] - 1  # room for the first, not the second
        packed = loaded.recall(scope, query, asking_user=None, k=10, token_budget=budget)
        assert [c.text for c in packed] == texts[:1]
        exact = loaded.recall(scope, query, asking_user=None, k=10, token_budget=costs[0] + costs[1])
        assert sorted(c.text for c in exact) == sorted(texts[:2])
        assert all(sum(estimate_tokens(c.text) for c in got) <= b for got, b in
                   ((packed, budget), (exact, costs[0] + costs[1])))
        assert loaded.recall(scope, query, asking_user=None, k=10, token_budget=0) == []

    def test_recall_never_exceeds_the_token_budget(self, scope: str, loaded: MemorySystem) -> None:
        """Whatever the budget, the candidates' estimated tokens fit it: a memory over budget fails here
        (benchledger would cut its reply in a run, and count the cut on the scorecard)."""
        query = "billing migration freeze audit budget vendor"
        full = loaded.recall(scope, query, asking_user=None, k=10, token_budget=None)
        costs = [estimate_tokens(c.text) for c in full]
        assert len(costs) >= 3
        for budget in (1, min(costs), sum(costs[:2]), sum(costs[:3]) - 1, sum(costs) - 1):
            got = loaded.recall(scope, query, asking_user=None, k=10, token_budget=budget)
            used = sum(estimate_tokens(c.text) for c in got)
            assert used <= budget, f"{len(got)} candidates of ~{used} tokens returned for token_budget={budget}"

    def test_recall_returns_every_structural_field(self, scope: str, loaded: MemorySystem) -> None:
        corpus = {doc.doc_id: doc for doc in contract_corpus()}
        got = loaded.recall(scope, "billing migration reconciliation contract", asking_user=None,
                            k=10, token_budget=None)
        assert got
        for candidate in got:
            assert candidate.kind in CANDIDATE_KINDS and candidate.text
            if candidate.kind == "document":
                assert candidate.document is not None
                assert candidate.document == corpus[candidate.document.doc_id]
                assert candidate.sources == (candidate.document.doc_id,)
            else:
                assert candidate.document is None
                assert set(candidate.sources) <= set(corpus), candidate.sources

    def test_candidates_name_only_ingested_documents(self, scope: str, loaded: MemorySystem) -> None:
        ingested = {doc.doc_id for doc in contract_corpus()}
        for query in ("Who owns the vendor contract?", "When does the audit start?", "cat video"):
            got = loaded.recall(scope, query, asking_user="User_0", k=10, token_budget=None)
            assert got, query
            assert set(_ids(got)) <= ingested
            assert any(c.sources for c in got), "no candidate names where it came from"

    def test_recall_attributes_a_fact_to_its_document(self, scope: str, loaded: MemorySystem) -> None:
        k = 3 if _ranks_by_query(loaded) else len(contract_corpus())
        got = loaded.recall(scope, "What is the budget cap for the observability rollout?", asking_user=None,
                            k=k, token_budget=None)
        assert "Msg_4" in _ids(got)
        assert any("40k" in c.text for c in got if "Msg_4" in c.sources)

    def test_exact_match_ranks_first(self, scope: str, loaded: MemorySystem) -> None:
        if not _ranks_by_query(loaded):
            corpus = contract_corpus()
            newest = [doc.doc_id for doc in corpus[-3:]]
            for doc in corpus:
                got = loaded.recall(scope, doc.text, asking_user="User_99", k=3, token_budget=None)
                assert _ids(got) == newest, doc.text
            return
        for doc in contract_corpus():
            got = loaded.recall(scope, doc.text, asking_user="User_99", k=3, token_budget=None)
            assert got and doc.doc_id in got[0].sources, doc.text

    def test_recall_is_deterministic(self, scope: str, loaded: MemorySystem) -> None:
        query = "the billing freeze and the audit"
        first = loaded.recall(scope, query, asking_user="User_2", k=5, token_budget=None)
        for _ in range(3):
            assert loaded.recall(scope, query, asking_user="User_2", k=5, token_budget=None) == first

    def test_recall_sees_only_query_user_and_time(self, scope: str, memory: MemorySystem) -> None:
        parameters = set(inspect.signature(memory.recall).parameters)
        assert parameters <= {"scope", "query", "asking_user", "k", "token_budget", "question_time"}
        assert not {"gold", "evidence", "answer"} & set(Document.model_fields)

    def test_scopes_are_isolated(self, scope: str, other_scope: str, loaded: MemorySystem) -> None:
        query = "billing migration freeze"
        before = loaded.recall(scope, query, asking_user=None, k=5, token_budget=None)
        other = contract_corpus(prefix="Other_", texts=["billing billing migration elsewhere"] * 3)
        loaded.ingest(other_scope, other)
        _build_all(loaded, other_scope)
        assert loaded.recall(scope, query, asking_user=None, k=5, token_budget=None) == before
        in_other = loaded.recall(other_scope, query, asking_user=None, k=5, token_budget=None)
        assert in_other and all(doc_id.startswith("Other_") for doc_id in _ids(in_other))
        assert loaded.state(other_scope).documents == 3
        assert loaded.state(scope).documents == len(contract_corpus())

    def test_purge_removes_the_scope_and_counts(self, scope: str, other_scope: str, loaded: MemorySystem) -> None:
        loaded.ingest(other_scope, contract_corpus(prefix="Other_"))
        assert loaded.purge(scope) == len(contract_corpus())
        assert loaded.state(scope).documents == 0
        assert loaded.state(scope).pending_chunks == 0
        assert loaded.recall(scope, "billing migration", asking_user=None, k=5, token_budget=None) == []
        assert loaded.purge(scope) == 0
        assert loaded.state(other_scope).documents == len(contract_corpus())

    def test_purge_refuses_a_store_not_marked_for_evaluation(
        self, scope: str, loaded: MemorySystem, store_path: Path
    ) -> None:
        self.unmark_store(store_path)
        with pytest.raises(NotAnEvaluationStore):
            loaded.purge(scope)
        assert loaded.state(scope).documents == len(contract_corpus())

    def test_data_survives_close_and_reopen(
        self, scope: str, memory_factory: MemoryFactory, store_path: Path
    ) -> None:
        query = "billing migration freeze"
        first = memory_factory(store_path)
        first.ingest(scope, contract_corpus())
        _build_all(first, scope)
        expected = first.recall(scope, query, asking_user="User_1", k=5, token_budget=None)
        first.close()
        again = memory_factory(store_path)
        try:
            assert again.state(scope).documents == len(contract_corpus())
            assert again.state(scope).pending_chunks == 0
            assert again.recall(scope, query, asking_user="User_1", k=5, token_budget=None) == expected
        finally:
            again.close()

    def test_empty_scope_recalls_nothing(self, scope: str, loaded: MemorySystem) -> None:
        never = f"{scope}:never"
        assert loaded.recall(never, "billing migration", asking_user="User_1", k=10, token_budget=None) == []
        assert loaded.state(never).documents == 0
