"""Memora adapter on an original fixture in the release's folder shape."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from benchledger.adapters.benchmarks.memora.loader import load_memora
from benchledger.errors import BadInput
from conftest import REPO

FIXTURE = REPO / "tests" / "fixtures" / "memora"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "memora"
    shutil.copytree(FIXTURE, root)
    return root


def test_one_scope_per_persona_with_every_turn() -> None:
    dataset = load_memora(FIXTURE, split="weekly")
    assert list(dataset.scopes) == ["allotment_gardener", "choir_librarian"]
    docs = dataset.scopes["allotment_gardener"]
    assert len(docs) == 3 + 2 + 2 + 2
    first = docs[1]
    assert (first.doc_id, first.channel, first.author, first.role) == (
        "session_1:2", "session_1", "user_agent", "user")
    assert first.timestamp == datetime(2025, 3, 3)
    assert [d.channel for d in docs][-1] == "session_4"
    assert [d.position for d in docs] == list(range(9))


def test_questions_carry_category_criteria_and_session_evidence() -> None:
    questions = {q.question_id: q for q in load_memora(FIXTURE, split="weekly").questions}
    assert set(questions) == {"allotment_gardener:garden_jobs_1", "allotment_gardener:garden_jobs_2",
                              "choir_librarian:choir_print_1"}
    q1 = questions["allotment_gardener:garden_jobs_1"]
    assert q1.kind == "remembering" and q1.scope_key == "allotment_gardener"
    assert q1.evidence == ("session_3",)  # forgetting evidence (session 1) is not evidence
    assert [(c.kind, c.expected) for c in q1.criteria] == [
        ("memory_presence", "yes"), ("forgetting_absence", "no")]
    assert q1.question_time == datetime(2025, 3, 9) and q1.gold == ""
    q2 = questions["allotment_gardener:garden_jobs_2"]
    assert q2.kind == "reasoning" and q2.evidence == ("session_1", "session_3")
    assert q2.criteria[0].expected == "yes"  # released "Yes", normalised
    assert questions["choir_librarian:choir_print_1"].kind == "recommending"  # dict-shaped file


def test_memory_operation_labels_never_reach_a_document() -> None:
    dataset = load_memora(FIXTURE, split="weekly")
    dumped = json.dumps([d.model_dump(mode="json") for docs in dataset.scopes.values() for d in docs])
    for label in ("share_memory", "memory_grounded", "no_memory", "operation", "delete"):
        assert label not in dumped
    assert "Sow broad beans in plot 7" not in dumped  # operation_details stay out


def test_bad_split_and_missing_folder(tmp_path) -> None:
    with pytest.raises(BadInput, match="split"):
        load_memora(FIXTURE, split="daily")  # type: ignore[arg-type]
    with pytest.raises(BadInput, match="monthly"):
        load_memora(FIXTURE, split="monthly")


def test_bad_expected_answer_names_file_line_and_field(tmp_path) -> None:
    root = _copy(tmp_path)
    file = root / "weekly" / "choir_librarian" / "evaluation_questions_choir_librarian.json"
    raw = json.loads(file.read_text())
    raw["questions"]["recommending"][0]["evaluation"]["evaluation_questions"][1]["expected_answer"] = "maybe"
    file.write_text(json.dumps(raw, indent=2))
    with pytest.raises(BadInput) as err:
        load_memora(root, split="weekly")
    assert err.value.file == str(file)
    assert err.value.field.endswith("evaluation_questions[1].expected_answer")
    assert "choir_print_1_eval_memory_presence_1" in file.read_text().splitlines()[err.value.line]


def test_bad_session_file_is_bad_input(tmp_path) -> None:
    root = _copy(tmp_path)
    session = root / "weekly" / "allotment_gardener" / "conversations" / "session_0002.json"
    raw = json.loads(session.read_text())
    raw["date"] = "March 4th"
    session.write_text(json.dumps(raw))
    with pytest.raises(BadInput, match="March 4th") as err:
        load_memora(root, split="weekly")
    assert err.value.file == str(session)
    session.write_text("{not json")
    with pytest.raises(BadInput, match="not valid JSON"):
        load_memora(root, split="weekly")


def test_evidence_naming_a_missing_session_is_dropped_and_recorded(tmp_path) -> None:
    root = _copy(tmp_path)
    file = root / "weekly" / "choir_librarian" / "evaluation_questions_choir_librarian.json"
    raw = json.loads(file.read_text())
    raw["questions"]["recommending"][0]["memory_evidence"]["preferences"].append(
        {"value": "x", "session_id": 99})
    file.write_text(json.dumps(raw))
    dataset = load_memora(root, split="weekly")
    assert [r.model_dump(exclude_none=True) for r in dataset.release.evidence_repairs] == [
        {"question_id": "choir_librarian:choir_print_1", "released": "99", "dropped": "99",
         "reason": "no such session"}]
