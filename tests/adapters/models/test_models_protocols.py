"""The reference and typed protocols: exact call shape, parsing, and both through the real SDK."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from benchledger.adapters.benchmarks.base import Document, Prompts, Question
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.models.abstention import ABSTENTION_ANSWER
from benchledger.adapters.models.base import Answer, EmptyResponseError, ModelParseError
from benchledger.adapters.models.factory import build_models
from benchledger.settings import ModelCalls
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.adapters.models.response_cache import InMemoryResponseCache
from benchledger.adapters.models.reference import (
    agent_user_prompt, format_passage, judge_user_prompt, parse_final, parse_verdict, release_call_shape,
)
from benchledger.adapters.models.typed import TYPED_PROMPT_HASHES, TypedAnswer
from benchledger.errors import BadInput

KEY = "sk-test-protocols-0123456789"
FULL = Document(doc_id="Msg_12", text=" The ESG sign-off deadline is 2025-07-18. Finance confirms. ",
                author="User_3", role="Finance Lead", channel="esg-reporting", reply_to="Msg_9",
                timestamp=datetime(2025, 7, 14, 9, 30, tzinfo=timezone.utc), phase="Define ESG Policy",
                topic="deadlines")
SPARSE = Document(doc_id="Msg_13", text="Lunch moved to noon.")
QUESTION = Question(question_id="multi_hop_1", kind="multi_hop", asking_user="User_7",
                    text="What is the ESG sign-off deadline?", gold="2025-07-18")
ABSTAIN = Question(question_id="abstention_2", kind="abstention", text="Who is the primary approver?",
                   gold=ABSTENTION_ANSWER, abstention=True)


def context(*documents: Document) -> list[Candidate]:
    return [Candidate(rank=n, score=1.0 / n, document=d) for n, d in enumerate(documents, start=1)]


@pytest.fixture
def prompts(shared_data: Path) -> Prompts:
    folder = shared_data / "groupmembench" / "prompts"
    return Prompts(agent_system=(folder / "agent_system.txt").read_text(),
                   judge_system=(folder / "judge_system.txt").read_text())


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with LoopbackOpenAI() as srv:
        yield srv


def test_passages_use_the_release_header_and_leave_out_empty_fields():
    assert format_passage(FULL) == (
        "[user=User_3 / speaker_role=Finance Lead / channel=esg-reporting / phase_name=Define ESG Policy"
        " / topic=deadlines / timestamp=2025-07-14T09:30:00+00:00 / reply_to=Msg_9 / msg_node=Msg_12]\n"
        "The ESG sign-off deadline is 2025-07-18. Finance confirms.")
    assert format_passage(SPARSE) == "[user=? / msg_node=Msg_13]\nLunch moved to noon."
    kept = SPARSE.model_copy(update={"extra": {"timestamp": "2025-07-14T09:30:00Z"}})
    assert "timestamp=2025-07-14T09:30:00Z /" in format_passage(kept)


def test_agent_and_judge_user_prompts_are_the_release_text():
    passages = context(SPARSE, FULL)[::-1]  # given out of order: rank decides the numbering
    assert agent_user_prompt(QUESTION, passages) == (
        "Asking user: User_7\n\nQuestion:\nWhat is the ESG sign-off deadline?\n\nRetrieved passages:\n"
        f"[1] {format_passage(SPARSE)}\n\n[2] {format_passage(FULL)}\n\n"
        "Answer the question using the retrieved passages.")
    assert agent_user_prompt(ABSTAIN, []).startswith("Question:\nWho is the primary approver?\n\n")
    assert judge_user_prompt(QUESTION, "July 18") == (
        "Question:\nWhat is the ESG sign-off deadline?\n\nGold Answer:\n2025-07-18\n\nAgent Answer:\nJuly 18\n")


def test_the_last_final_line_is_the_answer_and_its_absence_is_a_parse_error():
    assert parse_final("Final: first\nthinking more\nFINAL ANSWER:  second \n\n") == "second"
    assert parse_final("reasoning\n  final: Correct") == "Correct"
    with pytest.raises(ModelParseError):
        parse_final("The answer is 2025-07-18.")


@pytest.mark.parametrize(("final", "verdict"), [
    ("Correct", "correct"), ("Incorrect", "incorrect"), ("not correct", "incorrect"),
    ("Wrong answer", "incorrect"), ("correct.", "correct"), ("Partially", "unclear"), ("", "unclear"),
    ("Partially correct", "correct"), ("In-correct", "correct"),  # the official run-time rule
])
def test_verdicts_are_read_like_the_release_and_never_guessed(final, verdict):
    assert parse_verdict(final) == verdict


def test_call_parameters_follow_the_release_per_model():
    messages, params = release_call_shape("gpt-5", " sys \n", "user", max_tokens=512, temperature=0.2)
    assert messages[0] == {"role": "developer", "content": "sys"}
    assert params == {"max_completion_tokens": 512}
    messages, params = release_call_shape("gpt-4o-mini", "sys", "user", max_tokens=256, temperature=0.2)
    assert messages[0]["role"] == "system" and params == {"max_tokens": 256, "temperature": 0.2}
    assert release_call_shape("o3-mini", "s", "u", max_tokens=9, temperature=0.2)[1] == {"max_completion_tokens": 9}


def test_reference_protocol_end_to_end_through_the_sdk(server, prompts):
    answerer, judge = build_models(agent_model="loopback-agent", judge_model="loopback-judge",
                                   protocol="reference", calls=ModelCalls(base_url=server.base_url), cache=None, prompts=prompts)
    answer = answerer.answer(QUESTION, context(SPARSE, FULL), None)
    assert answer.answer == "The ESG sign-off deadline is 2025-07-18."
    assert not answer.abstained and answer.usage.prompt_tokens > 0 and answer.raw.endswith(answer.answer)
    verdict = judge.judge(QUESTION, answer, None)
    assert verdict.verdict == "correct" and verdict.reason == "Correct" and verdict.model == "loopback-judge"
    agent_body, judge_body = server.requests
    assert agent_body["messages"][0] == {"role": "system", "content": prompts.agent_system.strip()}
    assert agent_body["messages"][1]["content"] == agent_user_prompt(QUESTION, context(SPARSE, FULL))
    assert (agent_body["max_tokens"], judge_body["max_tokens"], agent_body["temperature"]) == (512, 256, 0.2)
    assert judge_body["messages"][0]["content"] == prompts.judge_system.strip()
    assert server.count(model="loopback-agent", role="agent") == server.count(model="loopback-judge", role="judge") == 1
    assert answerer.prompt_hashes == {"agent_system": prompts.hashes["agent_system"]}
    assert judge.prompt_hashes == {"judge_system": prompts.hashes["judge_system"]}


def test_reference_abstention_is_detected_and_judged(server, prompts):
    answerer, judge = build_models(agent_model="loopback-agent", judge_model=None, protocol="reference",
                                   calls=ModelCalls(base_url=server.base_url), cache=None)
    answer = answerer.answer(ABSTAIN, [], prompts)
    assert answer.abstained and answer.answer == ABSTENTION_ANSWER
    assert judge.judge(ABSTAIN, answer, prompts).verdict == "correct"
    wrong = Answer(answer="User_4 approves it.", abstained=False, raw="", model="x")
    assert judge.judge(ABSTAIN, wrong, prompts).verdict == "incorrect"


def test_a_reply_without_final_falls_back_to_its_last_line_as_the_official_parser_does(server, prompts):
    cache = InMemoryResponseCache()
    answerer, judge = build_models(agent_model="loopback-agent", judge_model=None, protocol="reference",
                                   calls=ModelCalls(base_url=server.base_url), cache=cache, prompts=prompts)
    server.faults.push("no_final")
    answer = answerer.answer(QUESTION, context(FULL), None)
    assert answer.answer == answer.raw.strip().splitlines()[-1].strip() and "Final" not in answer.answer
    assert answerer.answer(QUESTION, context(FULL), None).cache_hit  # a parsed reply is a reply
    server.faults.push("no_final", role="judge")
    verdict = judge.judge(QUESTION, answer, None)
    assert verdict.reason == verdict.raw.strip().splitlines()[-1].strip()


def test_an_empty_reply_is_asked_again_then_fails_after_five_attempts(server, prompts):
    answerer, _ = build_models(agent_model="loopback-agent", judge_model=None, protocol="reference",
                               calls=ModelCalls(base_url=server.base_url, backoff_base=0.01), cache=InMemoryResponseCache(), prompts=prompts)
    server.faults.push("empty", times=4)
    assert answerer.answer(QUESTION, context(FULL), None).answer  # the fifth attempt answers
    assert server.count(role="agent") == 5
    server.faults.push("empty", times=5)
    with pytest.raises(EmptyResponseError, match="5 attempts"):
        answerer.answer(QUESTION, context(SPARSE), None)
    assert server.count(role="agent") == 10


def test_the_reference_protocol_refuses_to_run_without_the_release_prompts(server):
    answerer, _ = build_models(agent_model="loopback-agent", judge_model=None, protocol="reference",
                               calls=ModelCalls(base_url=server.base_url), cache=None)
    with pytest.raises(BadInput, match="agent_system.txt"):
        answerer.answer(QUESTION, context(FULL), None)
    assert server.count() == 0


def test_typed_protocol_end_to_end_with_json_schema(server):
    answerer, judge = build_models(agent_model="loopback-agent", judge_model=None, protocol="typed",
                                   calls=ModelCalls(base_url=server.base_url), cache=None)
    answer = answerer.answer(QUESTION, context(FULL), None)
    assert (answer.answer, answer.abstained) == ("The ESG sign-off deadline is 2025-07-18.", False)
    assert json.loads(answer.raw) == {"answer": answer.answer, "abstained": False}
    verdict = judge.judge(QUESTION, answer, None)
    assert verdict.verdict == "correct" and "containment" in verdict.reason
    assert judge.judge(QUESTION, answer.model_copy(update={"answer": "2024-01-01"}), None).verdict == "incorrect"
    request_format = server.requests[0]["response_format"]
    assert request_format["type"] == "json_schema" and request_format["json_schema"]["strict"] is True
    assert request_format["json_schema"]["schema"] == TypedAnswer.model_json_schema()
    assert set(server.requests[1]["response_format"]["json_schema"]["schema"]["required"]) == {"correct", "reason"}
    assert answerer.prompt_hashes["agent_system"] == TYPED_PROMPT_HASHES["agent_system"]
    abstained = answerer.answer(ABSTAIN, [], None)
    assert abstained.abstained and judge.judge(ABSTAIN, abstained, None).verdict == "correct"


@pytest.mark.parametrize("kind", ["bad_json", "wrong_schema", "no_final"])
def test_typed_replies_that_break_the_schema_are_parse_errors(server, kind):
    cache = InMemoryResponseCache()
    answerer, _ = build_models(agent_model="loopback-agent", judge_model=None, protocol="typed",
                               calls=ModelCalls(base_url=server.base_url), cache=cache)
    server.faults.push(kind)
    with pytest.raises(ModelParseError, match="TypedAnswer"):
        answerer.answer(QUESTION, context(FULL), None)
    assert len(cache) == 0 and server.count() == 1


def test_the_ledger_cache_lets_a_later_session_of_the_run_rejudge_without_asking_again(server, prompts, tmp_path):
    import hashlib

    from benchledger.ledger.events import Judged
    from benchledger.ledger.store import CacheEntry, Ledger
    from benchledger.adapters.models.response_cache import ledger_cache, model_calls

    def judge_once(path, run):
        with Ledger.open(path) as ledger:
            _, judge = build_models(agent_model=None, judge_model="loopback-judge", protocol="reference",
                                    calls=ModelCalls(base_url=server.base_url), cache=ledger_cache(ledger), prompts=prompts)
            with model_calls(serve_from=(run,)) as calls:
                verdict = judge.judge(QUESTION, Answer(answer="2025-07-18", abstained=False, raw="", model="a"), None)
            # a response is written only with the verdict that names its request, and served to that run
            entries = [CacheEntry(request_digest=r.request_digest, response=r.response, model=r.model,
                                  idempotency_key=f"judge:scorer:s1:question:{QUESTION.question_id}") for r in calls.responses]
            ledger.writer.append(run, [Judged(question_id=QUESTION.question_id, scorer_id="s1", verdict=verdict.verdict,
                                              model=verdict.model, raw_hash=hashlib.sha256(verdict.raw.encode()).hexdigest(),
                                              request_digest=entries[0].request_digest if entries else "")],
                                 blobs=[verdict.raw.encode()], cache=entries)
            return verdict

    first, second = judge_once(tmp_path / "ledger.db", "run"), judge_once(tmp_path / "ledger.db", "run")
    assert (first.cache_hit, second.cache_hit) == (False, True)
    assert second.raw == first.raw and second.usage == first.usage and second.verdict == "correct"
    assert server.count(role="judge") == 1
    assert not judge_once(tmp_path / "ledger.db", "another-run").cache_hit, "another run asks for itself"
    assert server.count(role="judge") == 2
