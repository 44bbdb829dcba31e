"""LongMemEval adapter on an original fixture in the official format."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from benchledger.adapters.benchmarks.longmemeval.loader import load_longmemeval
from benchledger.errors import BadInput
from conftest import REPO

FIXTURE = REPO / "tests" / "fixtures" / "longmemeval" / "longmemeval_fixture.json"


@pytest.fixture
def raw() -> list[dict]:
    return json.loads(FIXTURE.read_text())


def test_each_question_is_a_scope_with_its_haystack() -> None:
    dataset = load_longmemeval(FIXTURE)
    assert list(dataset.scopes) == ["lme-fx-01", "lme-fx-02", "lme-fx-03_abs"]
    assert [q.scope_key for q in dataset.questions] == list(dataset.scopes)
    docs = dataset.scopes["lme-fx-01"]
    assert [d.doc_id for d in docs] == ["session_0:0", "session_0:1", "session_1:0", "session_1:1",
                                        "session_1:2", "session_1:3", "session_2:0", "session_2:1"]
    assert docs[2].channel == "session_1" and docs[2].author == "user" and docs[3].role == "assistant"
    assert docs[2].timestamp == datetime(2024, 4, 21, 14, 30)
    assert [d.position for d in docs] == list(range(8))
    assert docs[2].text.startswith("We finally adopted a corgi")


def test_questions_keep_type_date_gold_and_abstention() -> None:
    q1, q2, q3 = load_longmemeval(FIXTURE).questions
    assert (q1.kind, q1.gold, q1.abstention) == ("single-session-user", "A corgi named Biscuit", False)
    assert q1.question_time == datetime(2024, 6, 2, 18, 5)
    assert q2.gold == "3"  # integer answer
    assert q3.abstention and not q2.abstention


def test_evidence_is_answer_sessions_by_haystack_position(raw) -> None:
    q1, q2, _ = load_longmemeval(FIXTURE).questions
    assert q1.evidence == ("session_1",)
    assert raw[0]["haystack_session_ids"][1] == raw[0]["answer_session_ids"][0]
    assert q2.evidence == ("session_0", "session_2")


def test_labels_never_reach_a_document(raw) -> None:
    dataset = load_longmemeval(FIXTURE)
    dumped = json.dumps([d.model_dump(mode="json") for docs in dataset.scopes.values() for d in docs])
    assert "has_answer" not in dumped
    for item in raw:
        for release_id in item["haystack_session_ids"]:
            assert release_id not in dumped  # "answer_..." names would give the evidence away


def test_question_limit(raw) -> None:
    dataset = load_longmemeval(FIXTURE, question_limit=1)
    assert [q.question_id for q in dataset.questions] == ["lme-fx-01"]
    assert list(dataset.scopes) == ["lme-fx-01"]
    assert dataset.release.questions_available == 3


def _write(tmp_path: Path, raw) -> Path:
    path = tmp_path / "lme.json"
    path.write_text(json.dumps(raw, indent=2))
    return path


def test_misaligned_haystack_is_bad_input_with_line(tmp_path, raw) -> None:
    raw[1]["haystack_dates"].pop()
    path = _write(tmp_path, raw)
    with pytest.raises(BadInput, match="same length") as err:
        load_longmemeval(path)
    assert err.value.field == "[1]"
    assert '"question_id": "lme-fx-02"' in path.read_text().splitlines()[err.value.line]


def test_bad_date_names_field(tmp_path, raw) -> None:
    raw[2]["question_date"] = "2024-07-01"
    with pytest.raises(BadInput, match="2024-07-01") as err:
        load_longmemeval(_write(tmp_path, raw))
    assert err.value.field == "[2].question_date"


def test_missing_turn_content_names_its_line(tmp_path, raw) -> None:
    del raw[0]["haystack_sessions"][1][2]["content"]
    path = _write(tmp_path, raw)
    with pytest.raises(BadInput) as err:
        load_longmemeval(path)
    assert err.value.field == "[0].haystack_sessions[1][2].content"
    assert '"role": "user"' in path.read_text().splitlines()[err.value.line]


def test_answer_session_outside_the_haystack_is_dropped_and_recorded(tmp_path, raw) -> None:
    raw[0]["answer_session_ids"].append("answer_missing")
    dataset = load_longmemeval(_write(tmp_path, raw))
    assert dataset.questions[0].evidence == ("session_1",)
    assert [r.model_dump(exclude_none=True) for r in dataset.release.evidence_repairs] == [
        {"question_id": "lme-fx-01", "released": "answer_missing", "dropped": "answer_missing",
         "reason": "not in haystack_session_ids"}]


def test_repeated_question_id_and_non_list(tmp_path, raw) -> None:
    raw[1]["question_id"] = "lme-fx-01"
    with pytest.raises(BadInput, match="repeats"):
        load_longmemeval(_write(tmp_path, raw))
    with pytest.raises(BadInput, match="JSON list"):
        load_longmemeval(_write(tmp_path, {"questions": []}))
