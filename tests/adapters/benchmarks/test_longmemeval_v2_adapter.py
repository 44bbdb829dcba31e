"""Reading a LongMemEval-V2 release: documents that keep a trajectory's structure, scopes as the official
harness builds memory, and each official validation rule refusing bad input with exit 2 naming file,
line and field, before anything is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.longmemeval_v2.loader import SHARED_SCOPE, load_longmemeval_v2
from benchledger.adapters.benchmarks.longmemeval_v2.selection import LongMemEvalV2Selection
from benchledger.errors import BadInput
from ledger_cli import invoke


@pytest.fixture
def release(shared_data) -> Path:
    return shared_data / "longmemeval-v2" / "synthetic"


@pytest.fixture
def copy(release, tmp_path) -> Path:
    target = tmp_path / "release"
    shutil.copytree(release, target)
    return target


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_the_small_tier_shares_one_scope_and_the_medium_tier_has_one_per_question(release):
    small = load_longmemeval_v2(release, LongMemEvalV2Selection(domain="web", tier="small"))
    assert list(small.scopes) == [SHARED_SCOPE] and len(small.questions) == 23
    assert {q.scope_key for q in small.questions} == {SHARED_SCOPE}
    haystack = json.loads((release / "haystacks" / "lme_v2_small.json").read_text())
    trajectories = {t["id"]: t for t in _lines(release / "trajectories.jsonl")}
    first_list = haystack[small.questions[0].question_id]
    assert [d.channel for d in small.scopes[SHARED_SCOPE]] == [
        tid for tid in first_list for _state in trajectories[tid]["states"]]
    medium = load_longmemeval_v2(release, LongMemEvalV2Selection(domain="enterprise", tier="medium"))
    assert len(medium.scopes) == len(medium.questions) == 18
    for q in medium.questions:
        medium_list = json.loads((release / "haystacks" / "lme_v2_medium.json").read_text())[q.question_id]
        assert list(dict.fromkeys(d.channel for d in medium.scopes[q.question_id])) == medium_list
    assert small.fingerprint != medium.fingerprint


def test_one_document_is_one_state_with_its_trajectory_header_and_every_field(release):
    data = load_longmemeval_v2(release, LongMemEvalV2Selection(domain="web"))
    trajectories = {t["id"]: t for t in _lines(release / "trajectories.jsonl")}
    doc = data.scopes[SHARED_SCOPE][1]
    tid, index = doc.doc_id.split(":")
    raw, state = trajectories[tid], trajectories[tid]["states"][int(index)]
    assert doc.channel == tid and doc.position == 1
    assert doc.text.startswith(f"[trajectory {tid} | goal: {raw['goal']} | outcome: {raw['outcome']} | "
                               f"start: {raw['start_url']}]\nstate {state['step']} at {state['url']}\n")
    assert f"thought: {state['thought']}" in doc.text and f"action: {state['action']}" in doc.text
    assert doc.text.endswith(state["accessibility_tree"])
    assert doc.extra == {"goal": raw["goal"], "outcome": raw["outcome"] or "", "start_url": raw["start_url"],
                         "step": str(state["step"]), "url": state["url"], "action": state["action"] or "",
                         "thought": state["thought"] or "", "screenshot": state["screenshot"]}


def test_questions_keep_the_official_item_and_abstention_follows_the_spec(release):
    data = load_longmemeval_v2(release, LongMemEvalV2Selection(domain="web"))
    released = {q["id"]: q for q in _lines(release / "questions.jsonl")}
    for q in data.questions:
        assert json.loads(q.extra["question_item"]) == released[q.question_id]
        assert q.abstention == q.extra["eval_function"].startswith("llm_abstention_checker")
        assert q.gold == released[q.question_id]["answer"]
    with_image = [q for q in data.questions if q.extra["question_image"]]
    assert with_image and all(Path(q.extra["question_image"]).is_file() for q in with_image)
    evidence = json.loads((release / "SYNTHETIC_evidence_map.json").read_text())["evidence_trajectory_by_question_id"]
    assert all(q.evidence == (evidence[q.question_id],) for q in data.questions)
    assert data.release.evidence_level == "session"


def _break_question(copy: Path, field: str, value) -> int:
    rows = _lines(copy / "questions.jsonl")
    rows[4][field] = value
    _write(copy / "questions.jsonl", rows)
    return 5


@pytest.mark.parametrize(("field", "value", "said"), [
    ("answer", 1200, "must be a string"), ("question_type", "static", "must be one of"),
    ("domain", "shop", "must be web or enterprise"), ("question", " ", "non-empty string"),
    ("eval_function", "norm_phrase_set_match|lower", "Invalid eval function option: lower"),
    ("eval_function", "exact_match", "Unknown eval function"),
    ("image", "question_screenshots/nope.png", "does not exist"),
])
def test_a_bad_question_is_one_line_naming_file_line_and_field(copy, field, value, said):
    line = _break_question(copy, field, value)
    result = invoke("run", "longmemeval-v2", str(copy), "--domain", "web")
    assert result.exit_code == 2
    assert f"questions.jsonl:{line}: field '{field}'" in result.output and said in result.output
    assert not Path("ledger.db").exists()  # refused before any ledger, memory store or model call


def test_the_abstention_checker_needs_an_abs_type(copy):
    rows = _lines(copy / "questions.jsonl")
    index = next(i for i, r in enumerate(rows) if r["question_type"] == "procedure")
    rows[index]["eval_function"] = "llm_abstention_checker"
    _write(copy / "questions.jsonl", rows)
    with pytest.raises(BadInput, match="needs an -abs question type") as err:
        load_longmemeval_v2(copy, LongMemEvalV2Selection(domain="web"))
    assert err.value.line == index + 1 and err.value.field == "eval_function"


def test_haystack_rules(copy):
    path = copy / "haystacks" / "lme_v2_small.json"
    original = json.loads(path.read_text())
    qid = next(iter(original))
    for change, said in [
        (lambda h: h.update({"ffffffff": []}), "which questions.jsonl does not hold"),
        (lambda h: h.pop(qid), "has no haystack entry"),
        (lambda h: h[qid].append(h[qid][0]), "repeats trajectory"),
        (lambda h: h[qid].append("syn_enterprise_000_640d7d"), "names enterprise trajectory"),
        (lambda h: h[qid].append("syn_nowhere"), "trajectories.jsonl does not hold"),
    ]:
        broken = json.loads(json.dumps(original))
        change(broken)
        path.write_text(json.dumps(broken, indent=1))
        with pytest.raises(BadInput, match=said) as err:
            load_longmemeval_v2(copy, LongMemEvalV2Selection(domain="web"))
        assert err.value.file == str(path) and err.value.line is not None
    path.write_text(json.dumps(original))
    assert load_longmemeval_v2(copy, LongMemEvalV2Selection(domain="web")).questions


@pytest.mark.parametrize(("change", "field"), [
    (lambda t: t.update(start_url=""), "start_url"), (lambda t: t.update(states=[]), "states"),
    (lambda t: t["states"][1].update(url=None), "states[1].url"),
    (lambda t: t["states"][0].update(screenshot="screenshots/none/0.png"), "states[0].screenshot"),
    (lambda t: t["states"][2].update(action=7), "states[2].action"),
])
def test_trajectory_rules(copy, change, field):
    rows = _lines(copy / "trajectories.jsonl")
    change(rows[0])
    _write(copy / "trajectories.jsonl", rows)
    with pytest.raises(BadInput) as err:
        load_longmemeval_v2(copy, LongMemEvalV2Selection(domain="web"))
    assert err.value.line == 1 and err.value.field == field


def test_a_step_that_is_not_an_int_falls_back_to_the_state_index(copy):
    rows = _lines(copy / "trajectories.jsonl")
    rows[0]["states"][1]["step"] = "one"
    rows[0]["states"][1]["state_index"] = 7
    _write(copy / "trajectories.jsonl", rows)
    data = load_longmemeval_v2(copy, LongMemEvalV2Selection(domain="web"))
    doc = next(d for d in data.scopes[SHARED_SCOPE] if d.doc_id == f"{rows[0]['id']}:1")
    assert doc.extra["step"] == "7" and "\nstate 7 at " in doc.text
