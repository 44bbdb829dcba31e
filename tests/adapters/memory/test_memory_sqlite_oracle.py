"""The `sqlite` memory ranks exactly as FTS5's own bm25() does, while scoring from its postings.

The oracle is FTS5 itself: the test asks the scope's FTS5 table with a plain MATCH and bm25(),
orders by score, position and arrival, and compares doc ids and scores (bit for bit) with what
`recall` returns from the in-memory postings, over random corpora full of common words, ties,
repeated words, empty and accented messages.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest
from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.sqlite_fts import SqliteMemory, fts_query
from benchledger.testing.memory_contract import OTHER_SCOPE, SCOPE

_COMMON = ["the", "a", "to", "on", "is", "for", "what", "did", "user_1", "user_2"]
_RARE = ["billing", "migration", "atlas", "freeze", "audit", "vendor", "rollout", "budget",
         "kickoff", "cutover", "runbook", "squad", "42", "2025", "café", "Zürich", "naïve"]


def _corpus(seed: int, size: int) -> list[Document]:
    rng = random.Random(seed)
    docs = []
    for i in range(size):
        if i % 17 == 5:
            text = docs[i - 3].text if i >= 3 else "the the the"  # exact duplicates: ties
        elif i % 29 == 7:
            text = "?!"  # no token at all, still a row for BM25's document count
        else:
            words = rng.choices(_COMMON, k=rng.randint(1, 12)) + rng.choices(_RARE, k=rng.randint(0, 3))
            rng.shuffle(words)
            text = " ".join(words).capitalize() + "."
        docs.append(Document(doc_id=f"Msg_{i}", text=text, author=f"User_{i % 5}", position=i))
    rng.shuffle(docs)  # arrival order is not canonical order
    return docs


def _fts5_oracle(store: Path, scope: str, query: str, asking_user: str | None,
                 k: int) -> list[tuple[str, float]]:
    conn = sqlite3.connect(store)
    try:
        (scope_id,) = conn.execute("SELECT id FROM fts_scopes WHERE scope = ?", (scope,)).fetchone()
        table = f"fts_index_{scope_id}"
        return [(doc_id, -score) for doc_id, score in conn.execute(
            f"SELECT d.doc_id, bm25({table}) AS s FROM {table} JOIN fts_documents AS d "
            f"ON d.id = {table}.rowid WHERE {table} MATCH ? ORDER BY s, d.position, d.id LIMIT ?",
            (fts_query(f"{query} {asking_user or ''}"), k))]
    finally:
        conn.close()


def _recalled(memory: SqliteMemory, scope: str, query: str, asking_user: str | None,
              k: int) -> list[tuple[str, float]]:
    got = memory.recall(scope, query, asking_user=asking_user, k=k, token_budget=None)
    assert [c.rank for c in got] == list(range(1, len(got) + 1))
    return [(c.document.doc_id, c.score) for c in got]


def _queries(seed: int, count: int) -> list[tuple[str, str | None]]:
    rng = random.Random(seed)
    vocabulary = _COMMON + _RARE + ["absent", "What?", "THE", "-billing", '"atlas']
    return [(" ".join(rng.choices(vocabulary, k=rng.randint(1, 9))),
             rng.choice([None, "User_1", "User_3"])) for _ in range(count)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rankings_and_scores_equal_fts5_bm25(tmp_path: Path, seed: int) -> None:
    store = tmp_path / "store.db"
    memory = SqliteMemory(store)
    try:
        memory.ingest(SCOPE, _corpus(seed, 400))
        list(memory.build(SCOPE, batch_size=64))
        memory.ingest(OTHER_SCOPE, _corpus(seed + 100, 50))  # another scope changes nothing
        list(memory.build(OTHER_SCOPE))
        compared = 0
        for query, user in _queries(seed, 150):
            for k in (1, 3, 10, 40):
                want = _fts5_oracle(store, SCOPE, query, user, k)
                assert _recalled(memory, SCOPE, query, user, k) == want, (query, user, k)
                compared += bool(want)
        assert compared > 400
    finally:
        memory.close()


def test_many_exact_ties_beyond_k_go_to_the_earliest_positions(tmp_path: Path) -> None:
    memory = SqliteMemory(tmp_path / "store.db")
    try:
        docs = [Document(doc_id=f"d{i}", text="quarterly audit fieldwork", position=i) for i in range(60)]
        memory.ingest(SCOPE, list(reversed(docs)) + [Document(doc_id="x", text="audit", position=99)])
        list(memory.build(SCOPE))
        got = _recalled(memory, SCOPE, "audit fieldwork", None, 10)
        assert [doc_id for doc_id, _ in got] == [f"d{i}" for i in range(10)]
        assert len({score for _, score in got}) == 1
    finally:
        memory.close()


def test_recall_sees_documents_built_later_here_or_by_another_connection(tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    first, second = SqliteMemory(store), SqliteMemory(store)
    try:
        first.ingest(SCOPE, [Document(doc_id="a", text="billing migration", position=0)])
        list(first.build(SCOPE))
        assert [d for d, _ in _recalled(first, SCOPE, "billing", None, 5)] == ["a"]
        first.ingest(SCOPE, [Document(doc_id="b", text="billing billing", position=1)])
        list(first.build(SCOPE))  # this connection's own build
        assert [d for d, _ in _recalled(first, SCOPE, "billing", None, 5)] == ["b", "a"]
        second.ingest(SCOPE, [Document(doc_id="c", text="billing billing billing", position=2)])
        list(second.build(SCOPE))  # another connection's build
        got = _recalled(first, SCOPE, "billing", None, 5)
        assert got == _fts5_oracle(store, SCOPE, "billing", None, 5)
        assert [d for d, _ in got] == ["c", "b", "a"]
        second.purge(SCOPE)
        assert first.recall(SCOPE, "billing", asking_user=None, k=5, token_budget=None) == []
    finally:
        first.close()
        second.close()


def test_an_accented_query_is_ranked_by_fts5_and_matches_folded_text(tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    memory = SqliteMemory(store)
    try:
        memory.ingest(SCOPE, [Document(doc_id="a", text="Cafe opening", position=0),
                              Document(doc_id="b", text="the café in Zürich", position=1),
                              Document(doc_id="c", text="nothing here", position=2)])
        list(memory.build(SCOPE))
        for query in ("café zurich", "cafe Zürich", "CAFÉ"):
            got = _recalled(memory, SCOPE, query, None, 5)
            assert got == _fts5_oracle(store, SCOPE, query, None, 5)
            assert {doc_id for doc_id, _ in got} == {"a", "b"}
        assert [d for d, _ in _recalled(memory, SCOPE, "zurich", None, 5)] == ["b"]
    finally:
        memory.close()
