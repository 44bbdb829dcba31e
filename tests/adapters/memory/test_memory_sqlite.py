"""The `sqlite` memory: FTS5 query sanitising, tie order, build batches, asker terms."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.sqlite_fts import SqliteMemory, fts_query
from benchledger.testing.memory_contract import SCOPE, contract_corpus


@pytest.fixture
def memory(tmp_path: Path):
    system = SqliteMemory(tmp_path / "store.db")
    yield system
    system.close()


def _doc(doc_id: str, text: str, position: int, **fields) -> Document:
    return Document(doc_id=doc_id, text=text, position=position, **fields)


def test_fts_query_quotes_every_distinct_word_and_ors_them() -> None:
    assert fts_query('Who said "NEAR(a b)" -x col:y* AND z? z') == (
        '"who" OR "said" OR "near" OR "a" OR "b" OR "x" OR "col" OR "y" OR "and" OR "z"'
    )
    assert fts_query("User_3 asks") == '"user_3" OR "asks"'
    assert fts_query(" ?!* ") == ""


@pytest.mark.parametrize("query", [
    '"unbalanced', "NEAR(billing migration, 2)", "text:billing", "billing*", "-freeze",
    "AND OR NOT", "^kickoff", "{text}: billing", "(((", "billing + migration",
])
def test_fts_syntax_in_a_question_is_never_interpreted(memory: SqliteMemory, query: str) -> None:
    memory.ingest(SCOPE, contract_corpus())
    list(memory.build(SCOPE))
    got = memory.recall(SCOPE, query, asking_user=None, k=5, token_budget=None)
    assert len(got) <= 5  # no sqlite3.OperationalError for FTS5 syntax


def test_punctuation_only_query_recalls_nothing(memory: SqliteMemory) -> None:
    memory.ingest(SCOPE, contract_corpus())
    list(memory.build(SCOPE))
    assert memory.recall(SCOPE, "?!", asking_user=None, k=5, token_budget=None) == []


def test_equal_scores_go_to_the_earlier_position_whatever_the_ingest_order(
    memory: SqliteMemory,
) -> None:
    memory.ingest(SCOPE, [_doc("late", "quarterly audit fieldwork", 9)])
    memory.ingest(SCOPE, [_doc("early", "quarterly audit fieldwork", 2),
                          _doc("middle", "quarterly audit fieldwork", 5),
                          _doc("filler", "something unrelated entirely", 0)])
    list(memory.build(SCOPE))
    got = memory.recall(SCOPE, "audit fieldwork", asking_user=None, k=10, token_budget=None)
    assert [c.document.doc_id for c in got] == ["early", "middle", "late"]
    assert got[0].score == got[1].score == got[2].score > 0


def test_build_yields_doc_ids_in_canonical_order_per_batch(memory: SqliteMemory) -> None:
    corpus = contract_corpus()
    assert memory.ingest(SCOPE, list(reversed(corpus))) == len(corpus)
    assert memory.state(SCOPE).pending_chunks == len(corpus)
    batches = list(memory.build(SCOPE, batch_size=3))
    assert batches == [[d.doc_id for d in corpus[i:i + 3]] for i in range(0, len(corpus), 3)]


def test_pending_documents_are_not_recalled_until_built(memory: SqliteMemory) -> None:
    memory.ingest(SCOPE, [_doc("a", "observability rollout budget", 0)])
    assert memory.recall(SCOPE, "observability", asking_user=None, k=5, token_budget=None) == []
    list(memory.build(SCOPE))
    got = memory.recall(SCOPE, "observability", asking_user=None, k=5, token_budget=None)
    assert [c.document.doc_id for c in got] == ["a"]


def test_the_asking_user_is_a_query_term(memory: SqliteMemory) -> None:
    memory.ingest(SCOPE, [_doc("mention", "ping User_7 about the rollout", 0),
                          _doc("other", "ping User_8 about the rollout", 1)])
    list(memory.build(SCOPE))
    got = memory.recall(SCOPE, "rollout", asking_user="User_7", k=1, token_budget=None)
    assert [c.document.doc_id for c in got] == ["mention"]


def test_a_budget_smaller_than_the_first_passage_recalls_nothing(memory: SqliteMemory) -> None:
    memory.ingest(SCOPE, [_doc("long", "rollout " * 40, 0)])
    list(memory.build(SCOPE))
    assert memory.recall(SCOPE, "rollout", asking_user=None, k=5, token_budget=10) == []
    assert len(memory.recall(SCOPE, "rollout", asking_user=None, k=5, token_budget=80)) == 1
