"""Each idea of the structured ranking decides a small case, and switching it off undoes that.

Every case runs through the real `StructuredMemory` on its own evaluation store: ingest, build,
recall. The "off" half of each test shows the assertion could fail.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest
from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.structured import RankingOptions, StructuredMemory

SCOPE = "benchmark:test:structured:0"
_WHEN = datetime(2023, 5, 8, 13, 56)
_FILLER = ["The weather is lovely here.", "My cousin visited on the weekend.",
           "Traffic was awful this morning.", "Dinner was pasta again.", "The cat knocked a vase over."]


def doc(doc_id: str, text: str, author: str = "Mel", *, position: int, channel: str = "session_1",
        when: datetime = _WHEN, **fields) -> Document:
    return Document(doc_id=doc_id, text=text, author=author, channel=channel, timestamp=when,
                    position=position, **fields)


def corpus(*turns: tuple[str, str], **fields) -> list[Document]:
    """Turns (author, text) with ids D1.. in order."""
    return [doc(f"D{i + 1}", text, author, position=i, **fields) for i, (author, text) in enumerate(turns)]


def recalled(tmp_path: Path, documents: list[Document], query: str, *, asking_user: str | None = None,
             k: int = 10, **switches) -> list[str]:
    store = tmp_path / f"structured-{len(list(tmp_path.iterdir()))}.db"
    memory = StructuredMemory(store, options=replace(RankingOptions(), **switches))
    try:
        memory.ingest(SCOPE, documents)
        list(memory.build(SCOPE))
        found = memory.recall(SCOPE, query, asking_user=asking_user, k=k, token_budget=None)
        return [c.document.doc_id for c in found]
    finally:
        memory.close()


def test_a_named_speaker_favours_their_own_turns(tmp_path: Path) -> None:
    docs = corpus(("Bob", "I adopted a puppy from the shelter."), ("Alice", "I adopted a puppy from the shelter."))
    assert recalled(tmp_path, docs, "What did Alice adopt?")[0] == "D2"
    assert recalled(tmp_path, docs, "What did Alice adopt?", speaker_match=False)[0] == "D1"


def test_a_first_person_question_favours_the_asker(tmp_path: Path) -> None:
    docs = corpus(("User_1", "The budget is capped at 40k."), ("User_2", "The budget is capped at 40k."))
    assert recalled(tmp_path, docs, "What did I say about the budget?", asking_user="User_2")[0] == "D2"
    assert recalled(tmp_path, docs, "What did I say about the budget?", asking_user="User_2",
                    asker_match=False)[0] == "D1"


def test_an_answer_without_the_question_words_is_found_through_its_neighbours(tmp_path: Path) -> None:
    turns = [("Bob", text) for text in _FILLER[:3]]
    turns += [("Bob", "What did you research for the adoption?"),
              ("Mel", "Agencies that support LGBTQ folks.")]
    turns += [("Bob", text) for text in _FILLER[3:]]
    docs = corpus(*turns)
    query = "What did Mel research about adoption?"
    assert "D5" in recalled(tmp_path, docs, query, k=3)
    assert "D5" in recalled(tmp_path, docs, query, k=3, context_field=False)
    assert "D5" in recalled(tmp_path, docs, query, k=3, neighbour_smoothing=False)
    assert "D5" not in recalled(tmp_path, docs, query, context_field=False, neighbour_smoothing=False)


def test_a_reply_link_carries_relevance_across_the_channel(tmp_path: Path) -> None:
    turns = [("Bob", "Can we move the offsite to Thursday?")] + [("Ann", t) for t in _FILLER]
    turns.append(("Mel", "Yes, that works for everyone."))
    docs = corpus(*turns)
    threaded = [d.model_copy(update={"reply_to": "D1"}) if d.doc_id == "D7" else d for d in docs]
    query = "When is the offsite?"
    assert "D7" in recalled(tmp_path, threaded, query, context_field=False)
    assert "D7" not in recalled(tmp_path, docs, query, context_field=False)


def test_a_when_question_favours_turns_that_date_something(tmp_path: Path) -> None:
    docs = corpus(("Mel", "I love my pottery class."), ("Mel", "My pottery class started last week."))
    assert recalled(tmp_path, docs, "When was Mel's pottery class?")[0] == "D2"
    assert recalled(tmp_path, docs, "When was Mel's pottery class?", time_cues=False)[0] == "D1"


def test_a_named_date_favours_turns_from_that_time(tmp_path: Path) -> None:
    docs = [doc("D1:1", "We talked about the garden plans.", position=0, channel="session_1"),
            doc("D2:1", "We talked about the garden plans.", position=1, channel="session_2",
                when=datetime(2023, 6, 3, 10, 0))]
    query = "Which garden plans were mentioned on 3 June, 2023?"
    assert recalled(tmp_path, docs, query)[0] == "D2:1"
    assert recalled(tmp_path, docs, query, date_match=False)[0] == "D1:1"


def test_a_decision_question_favours_decision_points(tmp_path: Path) -> None:
    docs = [doc("M1", "Launch date moves to Friday.", position=0),
            doc("M2", "Launch date moves to Friday.", position=1, is_decision=True)]
    assert recalled(tmp_path, docs, "What was decided about the launch date?")[0] == "M2"
    assert recalled(tmp_path, docs, "What was decided about the launch date?",
                    decision_match=False)[0] == "M1"


def test_stemming_matches_other_forms_of_a_word(tmp_path: Path) -> None:
    docs = corpus(("Mel", "We camped by the lake."), ("Mel", "Dinner was great."))
    assert recalled(tmp_path, docs, "Where did Mel go camping?")[:1] == ["D1"]
    assert "D1" not in recalled(tmp_path, docs, "Where did Mel go camping?", stemming=False)


def test_an_image_description_is_searchable(tmp_path: Path) -> None:
    docs = [doc("D1", "Take a look at this!", position=0,
                extra={"blip_caption": "a photo of a painting of a sunset over a lake"}),
            doc("D2", "Nice weather today.", position=1)]
    assert recalled(tmp_path, docs, "What did Mel paint?")[:1] == ["D1"]
    assert "D1" not in recalled(tmp_path, docs, "What did Mel paint?", image_field=False)


def test_feedback_expands_the_query_with_words_of_the_first_hits(tmp_path: Path) -> None:
    docs = [doc("A1", "Guitar lessons with my teacher Marco are going well.", position=0, channel="a"),
            doc("B1", "Marco says practice scales daily.", position=1, channel="b")]
    assert "B1" in recalled(tmp_path, docs, "How are the guitar lessons?")
    assert "B1" not in recalled(tmp_path, docs, "How are the guitar lessons?", feedback=False)


def test_a_second_connection_sees_what_another_wrote(tmp_path: Path) -> None:
    store = tmp_path / "shared.db"
    reader, writer = StructuredMemory(store), StructuredMemory(store)
    try:
        writer.ingest(SCOPE, corpus(("Mel", "We camped by the lake.")))
        list(writer.build(SCOPE))
        assert [c.document.doc_id for c in reader.recall(
            SCOPE, "camping", asking_user=None, k=5, token_budget=None)] == ["D1"]
        writer.ingest(SCOPE, [doc("D9", "Camping again next month at the lake.", position=9)])
        list(writer.build(SCOPE))
        found = reader.recall(SCOPE, "camping lake", asking_user=None, k=5, token_budget=None)
        assert {c.document.doc_id for c in found} == {"D1", "D9"}
    finally:
        reader.close()
        writer.close()


@pytest.mark.parametrize("query", ["", "the of and", "???"])
def test_queries_without_content_words_recall_nothing(tmp_path: Path, query: str) -> None:
    assert recalled(tmp_path, corpus(("Mel", "We camped by the lake.")), query) == []

