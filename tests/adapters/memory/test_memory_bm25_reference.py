"""`bm25-reference` against an independent, straightforward implementation of the published formulas.

The oracle below is written from the formulas (not from the module): score every document by a
full scan, rank by score descending with ties to the lower position, take k, and give each the
official item score (bm25 / best bm25 - 0.001 x rank0). The query is the question only, as the
official run script sets it; the asker (and their role) join it only when asked for.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.bm25_reference import BM25ReferenceMemory
from benchledger.errors import BadInput

SCOPE = "benchmark:bm25:Demo:00"


def oracle(texts: list[str], query_text: str, k: int) -> list[tuple[int, float]]:
    docs = [[t.lower() for t in re.findall(r"[A-Za-z0-9_]+", text)] for text in texts]
    query = [t.lower() for t in re.findall(r"[A-Za-z0-9_]+", query_text)]
    if not query or k <= 0:
        return []
    n = len(docs)
    avgdl = sum(len(d) for d in docs) / n if n else 0.0
    scores = []
    for doc in docs:
        dl = len(doc) if doc else 1
        total = 0.0
        for term in query:
            tf = doc.count(term)
            if tf == 0:
                continue
            df = sum(1 for other in docs if term in other)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            total += idf * (tf * 2.5 / (tf + 1.5 * (1 - 0.75 + 0.75 * dl / max(avgdl, 1e-9))))
        scores.append(total)
    ranked = sorted(range(n), key=lambda i: (-scores[i], i))[:k]
    best = max(scores[i] for i in ranked) or 1.0
    return [(i, scores[i] / best - 0.001 * rank) for rank, i in enumerate(ranked)]


def _load(tmp_path: Path, texts: list[str], **options) -> BM25ReferenceMemory:
    memory = BM25ReferenceMemory(tmp_path / "store.db", **options)
    # ingest out of order to prove ranking follows position, not arrival
    docs = [Document(doc_id=f"Msg_{i}", text=t, position=i, author=f"User_{i % 4}",
                     role=("PM", "QA", None, "audit")[i % 4]) for i, t in enumerate(texts)]
    memory.ingest(SCOPE, docs[1::2])
    memory.ingest(SCOPE, docs[::2])
    list(memory.build(SCOPE, batch_size=4))
    return memory


def _ranking(memory: BM25ReferenceMemory, question: str, asker: str | None, k: int):
    got = memory.recall(SCOPE, question, asking_user=asker, k=k, token_budget=None)
    return [(int(c.document.doc_id.removeprefix("Msg_")), c.score) for c in got]


CORPUS = [
    "The billing migration ships before the April freeze.",
    "billing billing billing",
    "",
    "The billing migration ships before the April freeze.",  # a tie with position 0
    "User_3 owns the vendor contract; user_3 will renew it.",
    "??? !!!",  # no tokens: length counted as 1
    "Freeze, freeze: the audit starts on the 12th.",
    "Ünïcödé wörds and K\u212aelvin are split at non-ASCII letters",
    "nothing in common here",
    "nothing in common here either",
]


@pytest.mark.parametrize("question, asker, k", [
    ("When does the billing migration ship?", "User_3", 10),
    ("When does the billing migration ship?", None, 3),
    ("freeze freeze billing", "User_9", 10),  # a repeated query token counts again
    ("Who owns the vendor contract?", "User_3", 4),
    ("w rds kelvin", None, 10),
    ("zebra", None, 5),  # nothing scores: the first k by position fill the places
    ("?!", "", 5),
])
def test_ranking_and_scores_match_the_formulas(tmp_path: Path, question, asker, k) -> None:
    memory = _load(tmp_path, CORPUS)
    try:
        expected = oracle(CORPUS, question, k)
        got = _ranking(memory, question, asker, k)
        assert [i for i, _ in got] == [i for i, _ in expected]
        assert [s for _, s in got] == pytest.approx([s for _, s in expected], rel=1e-12)
    finally:
        memory.close()


def test_identical_documents_tie_to_the_earlier_message(tmp_path: Path) -> None:
    memory = _load(tmp_path, CORPUS)
    try:
        got = _ranking(memory, "April freeze migration", None, 2)
        assert [i for i, _ in got] == [0, 3]
        assert got == [(0, 1.0), (3, 1.0 - 0.001)]  # equal BM25; the item score steps by rank
    finally:
        memory.close()


@pytest.mark.parametrize("query_fields, asker, query_text", [
    ("question_only", "User_3", "Who owns the vendor contract?"),
    ("standard", "User_3", "Who owns the vendor contract? User_3"),
    ("standard", None, "Who owns the vendor contract?"),
    # User_3's first document (position 3) gives their role, "audit", a word of position 6
    ("structured", "User_3", "Who owns the vendor contract? User_3 audit"),
    ("structured", "User_9", "Who owns the vendor contract? User_9"),  # no role known
])
def test_the_asker_joins_the_query_only_when_asked(tmp_path: Path, query_fields, asker, query_text) -> None:
    memory = _load(tmp_path, CORPUS, query_fields=query_fields)
    try:
        got, expected = _ranking(memory, "Who owns the vendor contract?", asker, 10), oracle(CORPUS, query_text, 10)
        assert [i for i, _ in got] == [i for i, _ in expected]
        assert [s for _, s in got] == pytest.approx([s for _, s in expected], rel=1e-12)
    finally:
        memory.close()


def test_an_unknown_query_setting_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="query_fields"):
        BM25ReferenceMemory(tmp_path / "store.db", query_fields="asker")


def test_the_index_follows_new_documents_after_build(tmp_path: Path) -> None:
    memory = _load(tmp_path, CORPUS[:3])
    try:
        assert [i for i, _ in _ranking(memory, "vendor contract", None, 1)] == [0]  # fill only
        memory.ingest(SCOPE, [Document(doc_id="Msg_3", text=CORPUS[4], position=3)])
        list(memory.build(SCOPE))
        assert [i for i, _ in _ranking(memory, "vendor contract", None, 1)] == [3]
    finally:
        memory.close()


def test_another_connection_writing_the_store_is_noticed(tmp_path: Path) -> None:
    reader = _load(tmp_path, CORPUS[:3])
    writer = BM25ReferenceMemory(tmp_path / "store.db")
    try:
        assert [i for i, _ in _ranking(reader, "vendor contract", None, 1)] == [0]
        writer.ingest(SCOPE, [Document(doc_id="Msg_3", text=CORPUS[4], position=3)])
        list(writer.build(SCOPE))
        assert [i for i, _ in _ranking(reader, "vendor contract", None, 1)] == [3]
    finally:
        writer.close()
        reader.close()


_words = st.sampled_from(["alpha", "beta", "gamma", "delta", "User_1", "user_2", "x", "42", "!"])


@settings(max_examples=40, deadline=None)
@given(
    texts=st.lists(st.lists(_words, max_size=8).map(" ".join), min_size=1, max_size=12),
    question=st.lists(_words, min_size=0, max_size=5).map(" ".join),
    asker=st.sampled_from([None, "User_1", "user_2"]),
    k=st.integers(min_value=0, max_value=12),
)
def test_any_small_corpus_ranks_like_the_formulas(tmp_path_factory, texts, question, asker, k) -> None:
    memory = _load(tmp_path_factory.mktemp("bm25"), texts, query_fields="standard")
    try:
        expected = oracle(texts, question + (" " + asker if asker else ""), k)
        got = _ranking(memory, question, asker, k)
        assert [i for i, _ in got] == [i for i, _ in expected]
        assert [s for _, s in got] == pytest.approx([s for _, s in expected], rel=1e-12)
    finally:
        memory.close()
