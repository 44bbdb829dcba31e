"""`benchledger run memora` end to end: criteria judged one by one, FAMA per question and per
category in the report (checked against a hand computation from the Judged events), the typed
protocol through the openai SDK, and a reference-protocol rejudge of the recorded answers."""

from __future__ import annotations

import json
from pathlib import Path


from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.orchestration.reports import report_of
from benchledger.projections.state import fold_run
from conftest import REPO
from benchledger.ledger.store import Ledger
from ledger_cli import invoke

FIXTURE = REPO / "tests" / "fixtures" / "memora"


def events_of(run_id: str) -> list:
    with Ledger.open(Path("ledger.db")) as ledger:
        return [stored.event for stored in ledger.reader.events(run_id)]


def _criterion(cid: str, question: str, expected: str, kind: str) -> dict:
    return {"evaluation_question_id": cid, "evaluation_question": question, "expected_answer": expected,
            "evaluation_type": kind}


def write_release(root: Path) -> Path:
    """A one-persona weekly release in which the offline answerer finds answers, so criteria vary."""
    persona = root / "weekly" / "shed_keeper"
    (persona / "conversations").mkdir(parents=True)
    sessions = [
        (1, "2025-03-03", "I need to sow broad beans in plot 7 before Saturday."),
        (2, "2025-03-04", "Remind me that the shed key is under the blue pot."),
    ]
    for session_id, date, text in sessions:
        (persona / "conversations" / f"session_{session_id:04d}.json").write_text(json.dumps({
            "session_id": session_id, "date": date, "conversation": [
                {"turn": 1, "speaker": "user_agent", "message": text},
                {"turn": 2, "speaker": "ai_agent", "message": "Noted."}]}))
    questions = {
        "remembering": [{
            "question_id": "key_1", "question": "Where did I say the shed key is?", "question_date": "2025-03-05",
            "memory_evidence": {"items": [{"value": "blue pot", "session_id": 2}]},
            "evaluation": {"evaluation_questions": [
                _criterion("key_1_p0", "Does the response mention the blue pot?", "yes", "memory_presence"),
                _criterion("key_1_f0", "Does the response mention the shed key?", "no", "forgetting_absence"),
            ]}}],
        "reasoning": [{
            "question_id": "beans_1", "question": "Which plot do I sow broad beans in?",
            "question_date": "2025-03-05",
            "memory_evidence": {"items": [{"value": "plot 7", "session_id": 1}]},
            "evaluation": {"evaluation_questions": [
                _criterion("beans_1_p0", "Does the response say plot 7?", "Yes", "memory_presence"),
                _criterion("beans_1_f0", "Does the response avoid mentioning the blue pot?", "yes",
                           "forgetting_absence"),
            ]}}],
        "recommending": [{
            "question_id": "plant_1", "question": "What should I plant before Saturday?",
            "question_date": "2025-03-05", "memory_evidence": {},
            "evaluation": {"evaluation_questions": [
                _criterion("plant_1_p0", "Does the response mention the greenhouse?", "yes", "memory_presence"),
            ]}}],
    }
    (persona / "evaluation_questions_shed_keeper.json").write_text(
        json.dumps({"persona": "shed_keeper", "questions": questions}))
    return root


def hand_fama(planned_criteria: list, answers: dict[str, str]) -> float:
    planned_criteria = [c if isinstance(c, dict) else c.model_dump() for c in planned_criteria]
    presence = [c for c in planned_criteria if c["kind"] == "memory_presence"]
    forgetting = [c for c in planned_criteria if c["kind"] == "forgetting_absence"]
    mpa = sum(answers[c["criterion_id"]] == c["expected"] for c in presence) / len(presence) if presence else 1.0
    faa = (sum(answers[c["criterion_id"]] == c["expected"] for c in forgetting) / len(forgetting)
           if forgetting else 1.0)
    return max(0.0, mpa - len(forgetting) / len(planned_criteria) * (1.0 - faa))


def test_report_carries_fama_per_question_and_category_matching_the_judged_events(tmp_path):
    root = write_release(tmp_path / "memora")
    result = invoke("run", "memora", str(root), "--split", "weekly", "--protocol", "typed", "--out", "r.json")
    assert result.exit_code == 0, result.output
    report = json.loads(Path("r.json").read_text())
    events = events_of(report["run_id"])
    plan = {q.question_id: q for q in next(e for e in events if e.type == "QuestionsPlanned").questions}
    judged = {e.question_id: e for e in events if e.type == "Judged"}
    key, beans, plant = "shed_keeper:key_1", "shed_keeper:beans_1", "shed_keeper:plant_1"
    assert set(judged) == set(plan) == {key, beans, plant}
    expected = {qid: hand_fama(list(plan[qid].criteria), judged[qid].criteria) for qid in plan}
    # the offline judge's lexical rule, worked by hand: the answer to key_1 names the blue pot and
    # also the shed key (it remembered what should be forgotten: MPA 1, FAA 0, w 1/2); beans_1's
    # names plot 7 and no blue pot; plant_1's (the beans sentence) names no greenhouse
    assert judged[key].criteria == {"key_1_p0": "yes", "key_1_f0": "yes"}
    assert judged[beans].criteria == {"beans_1_p0": "yes", "beans_1_f0": "yes"}
    assert judged[plant].criteria == {"plant_1_p0": "no"}
    assert expected == {key: 0.5, beans: 1.0, plant: 0.0}
    fama = report["fama"]
    assert {qid: row["fama"] for qid, row in fama["questions"].items()} == expected
    assert fama["questions"][key]["weight"] == 0.5 and fama["questions"][key]["faa"] == 0.0
    assert {c: row["fama"] for c, row in fama["by_category"].items()} == {
        "remembering": 0.5, "reasoning": 1.0, "recommending": 0.0}
    assert fama["fama"] == 0.5 and fama["sum_100"] == 150.0 and fama["n"] == 3
    assert report["projection_versions"]["fama"] == 1
    # the verdict is derived: correct only when every criterion is as expected (FAMA 1)
    assert {qid: e.verdict for qid, e in judged.items()} == {key: "incorrect", beans: "correct",
                                                             plant: "incorrect"}
    assert report["correct"] == 1
    # the scorecard prints Memora's own FAMA section, labelled: one judge, not the official vote
    assert "Memora official FAMA (one typed judge" in result.output and "\n  remembering " in result.output
    assert invoke("verify").exit_code == 0


def test_fixture_run_derives_each_verdict_from_fama():
    result = invoke("run", "memora", str(FIXTURE), "--split", "weekly", "--protocol", "typed", "--out", "r.json")
    assert result.exit_code == 0, result.output
    report = json.loads(Path("r.json").read_text())
    events = events_of(report["run_id"])
    plan = {q.question_id: q for q in next(e for e in events if e.type == "QuestionsPlanned").questions}
    judged = {e.question_id: e for e in events if e.type == "Judged"}
    assert len(judged) == 3 and set(report["fama"]["by_category"]) == {"remembering", "reasoning", "recommending"}
    for qid, event in judged.items():
        assert set(event.criteria) == {c.criterion_id for c in plan[qid].criteria}
        score = hand_fama(list(plan[qid].criteria), event.criteria)
        assert report["fama"]["questions"][qid]["fama"] == score
        assert (event.verdict == "correct") == (score == 1.0)


def test_typed_run_and_reference_rejudge_ask_one_judge_call_per_criterion(tmp_path, monkeypatch):
    root = write_release(tmp_path / "memora")
    assert invoke("run", "memora", str(root), "--split", "weekly", "--protocol", "typed",
                  "--out", "offline.json").exit_code == 0
    offline = json.loads(Path("offline.json").read_text())
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        result = invoke("run", "memora", str(root), "--split", "weekly", "--agent-model", "loopback-agent",
                        "--protocol", "typed", "--base-url", server.base_url, "--out", "typed.json")
        assert result.exit_code == 0, result.output
        assert server.count(role="agent") == 3 and server.count(role="judge") == 5  # 2 + 2 + 1 criteria
        schemas = [b["response_format"]["json_schema"]["name"] for b in server.requests]
        assert sorted(schemas) == ["typed_answer"] * 3 + ["typed_criterion"] * 5
        typed = json.loads(Path("typed.json").read_text())

        result = invoke("rejudge", offline["run_id"], "--judge-model", "loopback-judge", "--protocol",
                        "reference", "--base-url", server.base_url, "--json")
        assert result.exit_code == 0, result.output
        assert server.count(model="loopback-judge", role="judge") == 5
        reference_bodies = [b for b in server.requests if b["model"] == "loopback-judge"]
        assert all("Evaluation Question:" in b["messages"][1]["content"] for b in reference_bodies)
    assert typed["fama"]["questions"] == offline["fama"]["questions"]
    judged = [e for e in events_of(offline["run_id"]) if e.type == "Judged"]
    by_scorer = {s: {e.question_id: e.criteria for e in judged if e.scorer_id == s} for s in ("s1", "s2")}
    assert by_scorer["s1"] == by_scorer["s2"] and len(by_scorer["s2"]) == 3
    with Ledger.open(Path("ledger.db")) as ledger:
        rejudged = report_of(fold_run(offline["run_id"], ledger.reader.events(offline["run_id"])), scorer_id="s2")
    assert rejudged.scorer_id == "s2" and rejudged.fama["questions"] == offline["fama"]["questions"]


def test_memora_rejects_a_missing_split_folder(tmp_path):
    result = invoke("run", "memora", str(FIXTURE), "--split", "monthly")
    assert result.exit_code == 2 and "monthly" in result.output
    assert not Path("ledger.db").exists()
