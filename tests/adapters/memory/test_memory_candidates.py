"""A candidate is its text, the documents it came from, a kind and a score; recall counts by what it names.

Both sides of every rule: the shape protocol 1 servers send still validates as a document candidate,
an inconsistent candidate is refused, and evidence recall credits a fact toward every document it
names and a fact naming none toward none.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from pydantic import ValidationError

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.documents import pack_ranked
from benchledger.adapters.memory.protocol import Candidate, estimate_tokens
from benchledger.ledger.events import RecalledItem
from benchledger.projections.retrieval import score_question

DOC = Document(doc_id="D1:3", text="Caroline went to the LGBTQ support group on 7 May.", author="Caroline",
               channel="session_1", position=3)


def test_protocol_1_shape_is_a_document_candidate() -> None:
    legacy = Candidate.model_validate({"rank": 1, "score": 0.5, "document": DOC.model_dump(mode="json")})
    assert legacy.kind == "document" and legacy.sources == ("D1:3",) and legacy.text == DOC.text
    assert legacy.passage == DOC
    assert Candidate.model_validate(legacy.model_dump(mode="json")) == legacy


def test_a_fact_names_several_sources_and_carries_no_document() -> None:
    when = datetime(2023, 5, 7, tzinfo=timezone.utc)
    fact = Candidate(rank=1, score=0.9, kind="fact", text="Caroline attends a support group",
                     sources=("D1:3", "D2:8"), timestamp=when)
    assert fact.document is None
    assert fact.passage.doc_id == "D1:3,D2:8" and fact.passage.timestamp == when
    assert Candidate(rank=2, score=0.1, kind="summary", text="a summary", sources=()).sources == ()


@pytest.mark.parametrize("bad, why", [
    ({"kind": "document", "text": DOC.text, "sources": ["D1:3"]}, "carries its document"),
    ({"kind": "document", "text": DOC.text, "sources": ["D9:9"], "document": DOC}, "sources are its own"),
    ({"kind": "document", "text": "something else", "sources": ["D1:3"], "document": DOC}, "text is its document"),
    ({"kind": "fact", "text": "x", "sources": ["D1:3"], "document": DOC}, "carries no document"),
    ({"kind": "fact", "text": "x", "sources": ["D1:3", "D1:3"]}, "each source once"),
    ({"kind": "opinion", "text": "x"}, "kind"),
    ({"kind": "fact", "text": "x", "gold": "y"}, "gold"),
])
def test_an_inconsistent_candidate_is_refused(bad: dict, why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        Candidate(rank=1, score=1.0, **bad)


def test_packing_counts_the_text_of_every_kind_and_renumbers() -> None:
    ranked = [Candidate(rank=9, score=3.0, kind="fact", text="a" * 40, sources=("D1:3",)),
              Candidate.of_document(0, 2.0, DOC),
              Candidate(rank=0, score=1.0, kind="summary", text="b" * 40)]
    first = estimate_tokens("a" * 40)
    assert [c.rank for c in pack_ranked(ranked, k=10, token_budget=None)] == [1, 2, 3]
    assert [c.kind for c in pack_ranked(ranked, k=10, token_budget=first)] == ["fact"]
    assert [c.kind for c in pack_ranked(ranked, k=10, token_budget=first + estimate_tokens(DOC.text))] == [
        "fact", "document"]
    assert pack_ranked(ranked, k=2, token_budget=None)[-1].kind == "document"
    assert pack_ranked(ranked, k=10, token_budget=first - 1) == []


def test_evidence_recall_counts_a_candidate_toward_every_document_it_names() -> None:
    evidence = ["D1:3", "D2:8"]
    both = score_question(evidence, [("D1:3", "D2:8")], k=1)
    assert both is not None and both.recall == 1.0 and both.recall_all == 1.0 and both.ndcg == pytest.approx(1.0)
    one = score_question(evidence, [("D9:9", "D2:8")], k=1)
    assert one is not None and one.recall == 0.5 and one.recall_all == 0.0


def test_a_candidate_naming_nothing_counts_toward_nothing() -> None:
    got = score_question(["D1:3"], [(), "D1:3"], k=1)
    assert got is not None and got.recall == 0.0 and got.ndcg == 0.0
    later = score_question(["D1:3"], [(), "D1:3"], k=2)
    assert later is not None and later.recall == 1.0 and 0.0 < later.ndcg < 1.0


def test_recorded_items_name_their_sources() -> None:
    document = RecalledItem(doc_id="D1:3", score=1.0, rank=1, channel="session_1")
    fact = RecalledItem(doc_id="D1:3", score=0.5, rank=2, kind="fact", sources=("D1:3", "D4:1"),
                        source_channels=("session_1", "session_4"))
    nothing = RecalledItem(doc_id="", score=0.1, rank=3, kind="summary", sources=(), source_channels=())
    assert document.named() == ("D1:3",) and document.named_channels() == ("session_1",)
    assert fact.named() == ("D1:3", "D4:1") and fact.named_channels() == ("session_1", "session_4")
    assert nothing.named() == () and nothing.named_channels() == ()


class FactMemory:
    """Returns derived text: per matching document pair a fact naming both, and a summary naming none."""

    name, version = "facts", "1"

    def __init__(self) -> None:
        self.scopes: dict[str, list[Document]] = {}

    def ingest(self, scope, documents):
        self.scopes.setdefault(scope, []).extend(documents)
        return len(documents)

    def build(self, scope, batch_size=1000):
        yield from ()

    def state(self, scope):
        from benchledger.adapters.memory.protocol import ScopeState
        return ScopeState(documents=len(self.scopes.get(scope, [])), pending_chunks=0)

    def recall(self, scope, query, *, asking_user, k, token_budget, question_time=None):
        words = set(query.lower().split())
        docs = sorted(self.scopes[scope], key=lambda d: (-len(words & set(d.text.lower().split())), d.position))
        drafts = [Candidate(rank=1, score=0.0, kind="summary", text="An unattributed summary.")]
        drafts += [Candidate(rank=1, score=0.0, kind="fact", text=f"{a.text} / {b.text}", sources=(a.doc_id, b.doc_id))
                   for a, b in zip(docs[0::2], docs[1::2])]
        return pack_ranked([d.model_copy(update={"score": 1.0 / (i + 1)}) for i, d in enumerate(drafts)],
                           k=k, token_budget=token_budget)

    def purge(self, scope):
        return len(self.scopes.pop(scope, []))

    def close(self):
        pass


def test_a_run_records_facts_by_their_sources_and_scores_them_so(shared_data, tmp_path) -> None:
    from benchledger.adapters.benchmarks.locomo.loader import load_locomo
    from benchledger.ledger.store import Ledger
    from benchledger.orchestration.session import run_with
    from benchledger.projections.retrieval import retrieval_metrics
    from benchledger.projections.state import fold_run
    from benchledger.settings import RunSettings

    dataset = load_locomo(shared_data / "locomo" / "locomo-dev.json", question_limit=6, conversation_ids=["conv-30"])
    settings = RunSettings(mode="retrieval", k=3, memory_store=tmp_path / "m.memory")
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        run_id = run_with(ledger, dataset, settings, FactMemory())
        stored = ledger.reader.events(run_id)
        state = fold_run(run_id, stored)
        metrics = retrieval_metrics(stored)
    expected = []
    for question in state.questions.values():
        items = sorted(question.recalled.items, key=lambda i: i.rank)
        assert [i.kind for i in items] == ["summary", "fact", "fact"]
        assert items[0].named() == () and items[0].verbatim is None
        assert all(len(i.named()) == 2 and i.doc_id == i.named()[0] for i in items[1:])
        expected.append(score_question(question.planned.evidence, [i.named() for i in items], 3))
    scored = [e for e in expected if e is not None]
    assert scored and metrics["recall"] == pytest.approx(sum(e.recall for e in scored) / len(scored))
    assert metrics["candidates"] == {"recalled": 3 * len(state.questions), "derived": 3 * len(state.questions),
                                     "unattributed": len(state.questions), "mean_sources": round(4 / 3, 2)}
    assert metrics["recall"] > 0  # the facts' sources carry the evidence
