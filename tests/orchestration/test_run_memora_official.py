"""`benchledger run memora` under the official protocol, through the openai SDK against the loopback
server: the model track's answer and judge calls exactly, three judges voting (a judge whose reply
is not a JSON object left out), official FAMA with answer failures counted the official way beside
the labelled "failures excluded" view, Table 3, and the selection options end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.memora.context import build_conversation_context
from benchledger.adapters.benchmarks.memora.prompts import (
    OFFICIAL_JUDGES, answer_messages, judge_messages, load_templates,
)
from benchledger.adapters.benchmarks.memora.scoring import fama_score
from benchledger.adapters.models.loopback import LoopbackOpenAI
from conftest import REPO
from ledger_cli import conditions, events_of, invoke

FIXTURE = REPO / "tests" / "fixtures" / "memora"
TRIO = tuple(OFFICIAL_JUDGES.values())


@pytest.fixture
def prompts(shared_data) -> Path:
    return shared_data / "memora" / "prompts"


def _run(loopback: LoopbackOpenAI, prompts: Path, *args: str, exit_code: int = 0) -> dict:
    result = invoke("run", "memora", str(FIXTURE), "--split", "weekly", "--prompts-dir", str(prompts),
                    "--agent-model", "loopback-agent", "--base-url", loopback.base_url, *args, "--out", "r.json")
    assert result.exit_code == exit_code, result.output
    return json.loads(Path("r.json").read_text())


def _sessions(events, question_id: str) -> list[dict]:
    """The recalled turns as the official loader's session dicts, read back from the release files."""
    recalled = next(e for e in events if e.type == "ContextRecalled" and e.question_id == question_id)
    persona = question_id.split(":")[0]
    wanted = {item.doc_id for item in recalled.items}
    sessions = []
    for file in sorted((FIXTURE / "weekly" / persona / "conversations").glob("session_*.json")):
        session = json.loads(file.read_text())
        turns = [{"speaker": t["speaker"], "message": t["message"]} for t in session["conversation"]
                 if f"session_{session['session_id']}:{t['turn']}" in wanted]
        if turns:
            sessions.append({"session_id": session["session_id"], "date": session["date"], "conversation": turns})
    return sessions


def test_answer_and_judge_calls_are_the_model_tracks_and_three_judges_vote(loopback, prompts):
    report = _run(loopback, prompts)
    templates = load_templates(prompts)
    events = events_of(report["run_id"])
    plan = {q.question_id: q for q in next(e for e in events if e.type == "QuestionsPlanned").questions}
    answers = {e.question_id: e for e in events if e.type == "QuestionAnswered"}
    agent = [b for b in loopback.requests if b["model"] == "loopback-agent"]
    assert len(agent) == 3
    for question_id, question in plan.items():
        history, _ = build_conversation_context(_sessions(events, question_id))
        expected = answer_messages(templates, history, question.text).as_list()
        body = next(b for b in agent if b["messages"] == expected)
        assert body["temperature"] == 0.7 and "max_tokens" not in body
        assert "Today's date" not in body["messages"][0]["content"]  # released questions carry no session_date
        for criterion in question.criteria:
            official = {"evaluation_question_id": criterion.criterion_id, "evaluation_question": criterion.question,
                        "expected_answer": criterion.expected, "evaluation_type": criterion.kind}
            messages = judge_messages(templates, answers[question_id].answer, official).as_list()
            asked = sorted(b["model"] for b in loopback.requests if b["messages"] == messages)
            assert asked == sorted(TRIO) and "Target item being evaluated: None" in messages[1]["content"]
    judged = {e.question_id: e for e in events if e.type == "Judged"}
    for question_id, event in judged.items():
        criteria = plan[question_id].criteria
        assert set(event.judge_votes) == {c.criterion_id for c in criteria}
        met = {kind: [0, 0] for kind in ("memory_presence", "forgetting_absence")}
        for c in criteria:
            votes = list(event.judge_votes[c.criterion_id].values())
            met[c.kind][0] += sum(v == c.expected for v in votes) > len(votes) / 2
            met[c.kind][1] += 1
        assert event.score == fama_score(*met["memory_presence"], *met["forgetting_absence"])
    section = next(s for s in report["sections"] if s["name"] == "memora.fama")
    # Every condition holds but two: the fixture's persona files are not the released ones, and the
    # loopback server is not a provider's API.
    unmet = {c["name"]: c["reason"] for c in report["conditions"] if not c["met"]}
    assert section["official"] and report["status"] == "diagnostic", unmet
    assert set(unmet) == {"official_release", "provider_endpoint"}, unmet
    assert "not a file of the official Memora release (weekly split)" in unmet["official_release"]
    assert section["values"]["overall"]["fama"] == pytest.approx(
        sum(e.score for e in judged.values()) / 3 * 100, rel=1e-12)
    assert "Table 3" in "\n".join(section["lines"])
    assert report["metric"] == "Memora FAMA"
    assert report["score"] == pytest.approx(section["values"]["overall"]["fama"] / 100, rel=1e-12)
    assert f"Memora FAMA {section['values']['overall']['fama']:.1f}%" in invoke("runs").output
    assert set(section["values"]["table3"]["loopback-agent"]) == {"Remembering", "Reasoning", "Recommending"}


def test_the_user_turns_the_official_history_drops_are_counted(loopback, prompts):
    report = _run(loopback, prompts)
    agent = [b for b in loopback.requests if b["model"] == "loopback-agent"]
    assert all("\nUser: " not in b["messages"][1]["content"].split("# Current Question")[0] for b in agent)
    section = next(s for s in report["sections"] if s["name"] == "memora.fama")
    assert any("user_agent" in line for line in section["lines"])


def test_a_judge_whose_reply_is_not_an_object_is_left_out_of_the_vote(loopback, prompts):
    odd = TRIO[2]
    loopback.faults.always("wrong_schema", role="judge", model=odd)
    report = _run(loopback, prompts)
    judged = [e for e in events_of(report["run_id"]) if e.type == "Judged"]
    assert all(votes[odd] == "error" for e in judged for votes in e.judge_votes.values())
    for event in judged:  # two valid judges that agree decide every criterion
        for votes in event.judge_votes.values():
            assert votes[TRIO[0]] == votes[TRIO[1]] != "error"
    assert report["failed"] == 0


def test_an_answer_failure_is_counted_the_official_way_beside_the_labelled_view(loopback, prompts):
    loopback.faults.always("500", role="agent", contains="Which allotment jobs are still open for me?")
    report = _run(loopback, prompts, "--max-attempts", "1", exit_code=3)  # 3: a question left unjudged
    assert report["failed"] == 1 and conditions(report)["zero_operational_failures"] is False
    judged = [e for e in events_of(report["run_id"]) if e.type == "Judged"]
    section = next(s for s in report["sections"] if s["name"] == "memora.fama")
    values = section["values"]
    assert values["answer_failures"] == 1 and values["overall"]["total_questions"] == 3
    assert values["overall"]["fama"] == pytest.approx(sum(e.score for e in judged) / 3 * 100, rel=1e-12)
    assert values["failures_excluded"]["fama"] == pytest.approx(sum(e.score for e in judged) / 2 * 100, rel=1e-12)
    assert list(values["failures_excluded"]["excluded"]) == ["allotment_gardener:garden_jobs_1"]
    assert "not the official number" in values["failures_excluded"]["label"]


def test_an_empty_reply_is_asked_again_and_three_are_a_failure(loopback, prompts):
    question = "Which allotment jobs are still open for me?"
    loopback.faults.push("empty", role="agent", contains=question)  # once: the second attempt answers
    once = _run(loopback, prompts)
    assert once["failed"] == 0 and loopback.count(role="agent") == 4  # three questions, one asked twice
    Path("ledger.db").rename("first.db")  # a fresh ledger, so no answer comes from the response cache
    loopback.faults.always("empty", role="agent", contains=question)
    before = loopback.count(role="agent")
    always = _run(loopback, prompts, exit_code=3)
    assert loopback.count(role="agent") - before == 2 + 3  # the official three attempts, then a failure
    [failure] = [e for e in events_of(always["run_id"]) if e.type == "Failed"]
    assert failure.error_class == "EmptyResponseError" and "empty reply after 3 attempts" in failure.message


def test_judges_are_configurable_and_only_the_trio_is_publishable(loopback, prompts):
    report = _run(loopback, prompts, "--judge-models", "judge-a,judge-b")
    assert loopback.count(model="judge-a", role="judge") == 5 and loopback.count(model="judge-b", role="judge") == 5
    assert report["status"] == "diagnostic" and not conditions(report)["official_judges"]
    reason = next(c["reason"] for c in report["conditions"] if c["name"] == "official_judges")
    assert "judge-a, judge-b" in reason and TRIO[0] in reason


def test_selection_options_work_end_to_end(loopback, prompts):
    report = _run(loopback, prompts, "--personas", "choir_librarian", "--tasks", "recommending",
                  "--question-limit", "1")
    plan = next(e for e in events_of(report["run_id"]) if e.type == "QuestionsPlanned")
    assert [(q.scope_key, q.kind) for q in plan.questions] == [("choir_librarian", "recommending")]
    met = conditions(report)
    assert not met["all_personas"] and not met["unsampled_questions"] and report["status"] == "diagnostic"
    assert invoke("run", "memora", str(FIXTURE), "--split", "weekly", "--tasks", "singing").exit_code == 2
