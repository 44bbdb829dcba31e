"""LoCoMo adapter on the released file: category map pinned to real items, turns, evidence repairs."""

from __future__ import annotations

import functools
import json
import statistics
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest
from benchledger.adapters.benchmarks.locomo.loader import (
    ABSTENTION_ANSWER, CATEGORY_NAMES, load_locomo, parse_session_datetime,
)
from benchledger.errors import BadInput


@functools.lru_cache(maxsize=1)
def _load_once(path: Path):
    return load_locomo(path)  # Datasets are frozen, so tests can share one


@pytest.fixture
def locomo_file(shared_data) -> Path:
    return shared_data / "locomo" / "locomo-dev.json"


@pytest.fixture
def dataset(locomo_file):
    return _load_once(locomo_file)


def _q(dataset, qid: str):
    return next(q for q in dataset.questions if q.question_id == qid)


def test_category_map_is_the_one_the_paper_uses() -> None:
    assert CATEGORY_NAMES == {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop",
                              5: "adversarial"}


@pytest.mark.parametrize("qid, text, kind", [
    ("conv-26:q0", "When did Caroline go to the LGBTQ support group?", "temporal"),
    ("conv-26:q2", "What fields would Caroline be likely to pursue in her educaton?", "open_domain"),
    ("conv-26:q15", "What activities does Melanie partake in?", "multi_hop"),
    ("conv-26:q92", "What country is Caroline's grandma from?", "single_hop"),
    ("conv-26:q152", "What did Caroline realize after her charity race?", "adversarial"),
])
def test_category_of_real_items(dataset, qid, text, kind) -> None:
    question = _q(dataset, qid)
    assert (question.text, question.kind) == (text, kind)


def test_categories_behave_as_their_names_say(dataset) -> None:
    def sessions(q):
        return len({e.split(":")[0] for e in q.evidence})

    by_kind: dict[str, list] = {}
    for q in dataset.questions:
        by_kind.setdefault(q.kind, []).append(q)
    # multi-hop questions draw on several sessions, single-hop ones on one
    assert statistics.mean(sessions(q) for q in by_kind["multi_hop"] if q.evidence) > 2
    assert statistics.mean(sessions(q) for q in by_kind["single_hop"]) < 1.05
    # temporal questions ask "when"
    when = sum(q.text.startswith("When") for q in by_kind["temporal"]) / len(by_kind["temporal"])
    assert when > 0.7
    assert all(q.abstention for q in by_kind["adversarial"])
    assert not any(q.abstention for k, qs in by_kind.items() if k != "adversarial" for q in qs)


def test_counts_of_the_dev_file(dataset) -> None:
    assert len(dataset.questions) == 1347
    assert list(dataset.scopes) == ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43",
                                    "conv-44", "conv-47"]
    assert dataset.document_count == 4124
    assert Counter(q.kind for q in dataset.questions) == {
        "single_hop": 563, "adversarial": 312, "temporal": 214, "multi_hop": 192, "open_domain": 66}
    assert dataset.benchmark == "LoCoMo" and dataset.subset == "locomo-dev"


def test_turns_keep_speaker_session_and_time(dataset) -> None:
    docs = dataset.scopes["conv-26"]
    first = docs[0]
    assert (first.doc_id, first.author, first.channel) == ("D1:1", "Caroline", "session_1")
    assert first.timestamp == datetime(2023, 5, 8, 13, 56)
    assert [d.position for d in docs] == list(range(len(docs)))
    channels = list(dict.fromkeys(d.channel for d in docs))
    assert channels[:11] == [f"session_{n}" for n in range(1, 12)]  # numeric, not text, order
    captioned = [d for d in docs if "blip_caption" in d.extra]
    assert captioned and all(isinstance(v, str) for d in captioned for v in d.extra.values())
    assert any(json.loads(d.extra["img_url"]) for d in captioned if "img_url" in d.extra)


def test_integer_answers_become_strings(dataset) -> None:
    assert _q(dataset, "conv-26:q1").gold == "2022"


def test_adversarial_items_are_abstentions_with_the_released_phrase(dataset) -> None:
    question = _q(dataset, "conv-26:q167")  # carries both adversarial_answer and answer
    assert question.abstention and question.gold == ABSTENTION_ANSWER
    assert question.kind == "adversarial"


def test_malformed_evidence_is_normalised_and_recorded(dataset) -> None:
    assert _q(dataset, "conv-26:q37").evidence == ("D8:6", "D9:17")
    assert "D11:26" in _q(dataset, "conv-43:q18").evidence
    assert _q(dataset, "conv-42:q88").evidence == ("D1:18", "D1:20")
    assert "D10:19" not in _q(dataset, "conv-42:q58").evidence
    repairs = dataset.release.evidence_repairs
    dropped = {(r.question_id, r.dropped) for r in repairs if r.dropped is not None}
    assert dropped == {("conv-42:q58", "D10:19"), ("conv-42:q88", "D"), ("conv-47:q38", "D4:36")}
    for question in dataset.questions:
        known = {d.doc_id for d in dataset.scopes[question.scope_key]}
        assert set(question.evidence) <= known


def test_selection_by_category_limit_and_conversation(locomo_file) -> None:
    got = load_locomo(locomo_file, categories=["temporal", 1], question_limit=5,
                      conversation_ids=["conv-30"])
    assert [q.question_id.split(":")[0] for q in got.questions] == ["conv-30"] * 5
    assert {q.kind for q in got.questions} <= {"temporal", "multi_hop"}
    assert list(got.scopes) == ["conv-30"]
    assert got.release.questions_available > 5
    assert got.fingerprint != load_locomo(locomo_file).fingerprint


def test_loading_is_deterministic(locomo_file, dataset) -> None:
    assert load_locomo(locomo_file).fingerprint == dataset.fingerprint


def test_unknown_category_or_conversation_is_bad_input(locomo_file) -> None:
    with pytest.raises(BadInput, match="categories"):
        load_locomo(locomo_file, categories=["multi-hop"])
    with pytest.raises(BadInput, match="conv-99"):
        load_locomo(locomo_file, conversation_ids=["conv-99"])


def test_session_date_format() -> None:
    assert parse_session_datetime("10:37 am on 27 June, 2023") == datetime(2023, 6, 27, 10, 37)


def _write(tmp_path: Path, value) -> Path:
    path = tmp_path / "locomo-bad.json"
    path.write_text(json.dumps(value, indent=2))
    return path


def _conversation(**qa_fields):
    qa = {"question": "When?", "answer": "May", "evidence": ["D1:1"], "category": 2, **qa_fields}
    return {"sample_id": "conv-1", "qa": [qa],
            "conversation": {"speaker_a": "A", "speaker_b": "B",
                             "session_1_date_time": "1:56 pm on 8 May, 2023",
                             "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}}


def test_bad_category_names_file_line_and_field(tmp_path) -> None:
    path = _write(tmp_path, [_conversation(category=7)])
    with pytest.raises(BadInput) as err:
        load_locomo(path)
    assert err.value.file == str(path) and err.value.field == "[0].qa[0].category"
    assert path.read_text().splitlines()[err.value.line - 1].strip() == "{"
    assert '"question": "When?"' in path.read_text().splitlines()[err.value.line]


def test_missing_field_names_its_line(tmp_path) -> None:
    conv = _conversation()
    del conv["conversation"]["session_1"][0]["speaker"]
    path = _write(tmp_path, [conv])
    with pytest.raises(BadInput) as err:
        load_locomo(path)
    assert err.value.field == "[0].conversation.session_1[0].speaker"
    assert '"dia_id": "D1:1"' in path.read_text().splitlines()[err.value.line]


def test_bad_date_and_bad_json(tmp_path) -> None:
    conv = _conversation()
    conv["conversation"]["session_1_date_time"] = "yesterday"
    with pytest.raises(BadInput, match="yesterday"):
        load_locomo(_write(tmp_path, [conv]))
    path = tmp_path / "broken.json"
    path.write_text('[\n{"sample_id": "x",\n]')
    with pytest.raises(BadInput) as err:
        load_locomo(path)
    assert err.value.line == 3
    with pytest.raises(BadInput, match="not found"):
        load_locomo(tmp_path / "missing.json")


def test_missing_answer_on_a_normal_item_is_bad_input(tmp_path) -> None:
    conv = _conversation()
    del conv["qa"][0]["answer"]
    with pytest.raises(BadInput, match="answer"):
        load_locomo(_write(tmp_path, [conv]))
