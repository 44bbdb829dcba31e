"""Rescoring across protocols: an earlier (typed) run rescored with each benchmark's official scorer,
with no answer-model call, and the ledger saying which scorer produced each number."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.locomo.scoring import score_item
from benchledger.adapters.benchmarks.longmemeval.judge import judge_label
from benchledger.adapters.benchmarks.memora.prompts import OFFICIAL_JUDGES
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.ledger.store import Ledger
from conftest import REPO
from ledger_cli import conditions, events_of, invoke

LONGMEMEVAL = REPO / "tests" / "fixtures" / "longmemeval" / "longmemeval_fixture.json"
MEMORA = REPO / "tests" / "fixtures" / "memora"


def _typed_run(server: LoopbackOpenAI, *args: str) -> dict:
    result = invoke("run", *args, "--protocol", "typed", "--agent-model", "loopback-agent",
                    "--base-url", server.base_url, "--out", "typed.json")
    assert result.exit_code == 0, result.output
    return json.loads(Path("typed.json").read_text())


def test_a_typed_locomo_run_is_rescored_by_the_token_f1_with_no_model_and_no_key(shared_data, monkeypatch):
    dev = shared_data / "locomo" / "locomo-dev.json"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        typed = _typed_run(server, "locomo", str(dev), "--conversations", "conv-30", "--question-limit", "20")
    monkeypatch.delenv("OPENAI_API_KEY")  # the endpoint is gone and there is no key: F1 asks no model
    result = invoke("rejudge", typed["run_id"], "--protocol", "official", "--json")
    assert result.exit_code == 0, result.output
    rescored = json.loads(result.stdout)
    assert rescored["scorer_id"] == "s2" and rescored["protocol"] == "official"
    events = events_of(typed["run_id"])
    started = {e.scorer_id: e for e in events if e.type == "ScorerStarted"}
    assert (started["s1"].protocol, started["s1"].method) == ("typed", "")
    assert (started["s2"].method, started["s2"].judge_model) == ("locomo-f1", "locomo-token-f1")
    released = {(c["sample_id"], i): qa for c in json.loads(dev.read_text()) for i, qa in enumerate(c["qa"])}
    answers = {e.question_id: e.answer for e in events if e.type == "QuestionAnswered"}
    scores = {e.question_id: e.score for e in events if e.type == "Judged" and e.scorer_id == "s2"}
    assert len(scores) == 20
    for qid, score in scores.items():
        qa = released[(qid.split(":q")[0], int(qid.split(":q")[1]))]
        assert score == float(score_item(answers[qid], qa.get("answer", qa.get("adversarial_answer")), qa["category"]))
    met = conditions(rescored)
    assert met["official_scorer"] and not met["official_prompts"]  # official scorer, typed answers: diagnostic
    reason = next(c["reason"] for c in rescored["conditions"] if c["name"] == "official_prompts")
    assert "typed protocol" in reason
    # replay re-folds either scorer from the same events
    for scorer in ("s1", "s2"):
        replayed = json.loads(invoke("replay", typed["run_id"], "--scorer", scorer, "--json").stdout)
        assert replayed["scorer_id"] == scorer
    assert invoke("verify").exit_code == 0


def test_a_typed_longmemeval_run_is_rescored_by_the_official_judge_prompts(shared_data, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        typed = _typed_run(server, "longmemeval", str(LONGMEMEVAL))
        agent_calls = server.count(role="agent")
        result = invoke("rejudge", typed["run_id"], "--protocol", "official", "--judge-model", "gpt-4o",
                        "--prompts-dir", str(shared_data / "longmemeval" / "prompts"), "--json")
        assert result.exit_code == 0, result.output
        assert server.count(role="agent") == agent_calls  # no answer is asked again
        judge_bodies = [b for b in server.requests if b["model"] == "gpt-4o-2024-08-06"]
    assert len(judge_bodies) == 3
    assert all((b["max_tokens"], b["temperature"], b["n"]) == (10, 0, 1) for b in judge_bodies)
    assert all([m["role"] for m in b["messages"]] == ["user"] for b in judge_bodies)
    rescored = json.loads(result.stdout)
    events = events_of(typed["run_id"])
    with Ledger.open(Path("ledger.db")) as ledger:
        labels = {e.question_id: judge_label(ledger.reader.get_blob(e.raw_hash).decode())
                  for e in events if e.type == "Judged" and e.scorer_id == "s2"}
    verdicts = {e.question_id: e.verdict == "correct" for e in events if e.type == "Judged" and e.scorer_id == "s2"}
    assert labels == verdicts and len(labels) == 3
    section = next(s for s in rescored["sections"] if s["name"] == "longmemeval.qa")
    assert section["scorer_id"] == "s2" and section["values"]["overall"] == sum(labels.values()) / 3
    assert conditions(rescored)["official_judges"] and not conditions(rescored)["official_prompts"]


def test_a_typed_memora_run_is_rescored_by_the_three_judge_vote(shared_data, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        typed = _typed_run(server, "memora", str(MEMORA), "--split", "weekly")
        result = invoke("rejudge", typed["run_id"], "--protocol", "official",
                        "--prompts-dir", str(shared_data / "memora" / "prompts"), "--json")
        assert result.exit_code == 0, result.output
        for model in OFFICIAL_JUDGES.values():
            assert server.count(model=model, role="judge") == 5  # every criterion, every judge
    rescored = json.loads(result.stdout)
    judged = [e for e in events_of(typed["run_id"]) if e.type == "Judged" and e.scorer_id == "s2"]
    assert len(judged) == 3 and all(set(v) == set(OFFICIAL_JUDGES.values())
                                    for e in judged for v in e.judge_votes.values())
    section = next(s for s in rescored["sections"] if s["name"] == "memora.fama")
    assert section["official"] and section["scorer_id"] == "s2"
    assert section["values"]["overall"]["fama"] == pytest.approx(sum(e.score for e in judged) / 3 * 100, rel=1e-12)


def test_rejudge_official_on_groupmem_is_its_reference_protocol(monkeypatch):
    mini = REPO / "examples" / "groupmem-mini"
    assert invoke("run", "groupmem", str(mini), "--domain", "Demo", "--question-limit", "1",
                  "--protocol", "typed", "--out", "typed.json").exit_code == 0
    typed = json.loads(Path("typed.json").read_text())
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        result = invoke("rejudge", typed["run_id"], "--protocol", "official", "--judge-model", "gpt-5",
                        "--base-url", server.base_url, "--json")
        assert result.exit_code == 0, result.output
        assert server.count(role="judge") == 6 and server.requests[0]["messages"][0]["role"] == "developer"
    assert json.loads(result.stdout)["protocol"] == "reference"


def test_an_interrupted_official_rescoring_is_finished_from_its_recorded_templates(shared_data, tmp_path, monkeypatch):
    prompts = tmp_path / "prompts"
    shutil.copytree(shared_data / "longmemeval" / "prompts", prompts)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        typed = _typed_run(server, "longmemeval", str(LONGMEMEVAL))
        server.faults.always("500", role="judge", contains="kayak")
        first = invoke("rejudge", typed["run_id"], "--protocol", "official", "--prompts-dir", str(prompts),
                       "--max-attempts", "1", "--json")
        assert first.exit_code in (0, 3), first.output
        assert json.loads(first.stdout)["failed"] == 1
        shutil.rmtree(prompts)  # the scorer's templates are blobs on the ledger now
        server.faults.clear()
        done = invoke("rejudge", typed["run_id"], "--continue", "s2", "--json")
        assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["scorer_id"] == "s2" and report["failed"] == 0 and report["judged"] == 3
    started = [e for e in events_of(typed["run_id"]) if e.type == "ScorerStarted"]
    assert [s.method for s in started] == ["", "longmemeval-judge"] and len(started[1].prompt_hashes) == 16
