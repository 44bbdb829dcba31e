"""Offline models (deterministic, labelled), the abstention matcher, and the model factory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchledger.adapters.benchmarks.base import Document, Prompts, Question
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.models.abstention import ABSTENTION_ANSWER, is_abstention
from benchledger.adapters.models.base import Answer
from benchledger.adapters.models.factory import build_models
from benchledger.settings import ModelCalls
from benchledger.adapters.models.offline import (
    OFFLINE_ANSWERER, OFFLINE_JUDGE, OfflineExtractiveAnswerer, OfflineLexicalJudge, extractive_answer,
)
from benchledger.adapters.models.reference import ReferenceAnswerModel, ReferenceJudgeModel
from benchledger.adapters.models.typed import TypedAnswerModel, TypedJudgeModel
from benchledger.errors import BadInput

PASSAGES = [
    "Kickoff went well. Reporting must validate fit against the ESG policy standard by 2025-07-18.",
    "The ESG policy standard was drafted by Legal. Lunch is at noon.",
    "Unrelated chatter about the office coffee machine.",
]
QUESTION = Question(question_id="multi_hop_1", kind="multi_hop", asking_user="User_7", gold="2025-07-18",
                    text="What is the deadline for Reporting to validate fit against the ESG policy standard?")
ABSTAIN = Question(question_id="abstention_2", kind="abstention", gold=ABSTENTION_ANSWER, abstention=True,
                   text="What is the name of the primary approver for the ESG Policy Framework?")


def context(texts: list[str]) -> list[Candidate]:
    return [Candidate(rank=n, score=1.0, document=Document(doc_id=f"Msg_{n}", text=t))
            for n, t in enumerate(texts, start=1)]


def answer(text: str, abstained: bool = False) -> Answer:
    return Answer(answer=text, abstained=abstained, raw=text, model="someone")


def test_the_extractive_answerer_picks_the_best_matching_sentence_of_the_context():
    model = OfflineExtractiveAnswerer()
    result = model.answer(QUESTION, context(PASSAGES), None)
    assert result.answer == "Reporting must validate fit against the ESG policy standard by 2025-07-18."
    assert (result.abstained, result.model, model.offline) == (False, OFFLINE_ANSWERER, True)
    assert result.raw.endswith(f"Final: {result.answer}")


def test_the_extractive_answerer_is_deterministic_and_reads_context_in_rank_order():
    model = OfflineExtractiveAnswerer()
    shuffled = context(PASSAGES)[::-1]
    answers = {model.answer(QUESTION, shuffled, None).answer for _ in range(5)}
    assert answers == {model.answer(QUESTION, context(PASSAGES), None).answer}
    tie = ["Reporting validates the ESG policy by Monday.", "Reporting validates the ESG policy by Friday."]
    assert extractive_answer(QUESTION.text, tie) == tie[0]
    assert extractive_answer(QUESTION.text, tie[::-1]) == tie[1]


@pytest.mark.parametrize("texts", [[], ["Unrelated chatter about the office coffee machine."]])
def test_the_extractive_answerer_abstains_without_matching_context(texts):
    result = OfflineExtractiveAnswerer().answer(QUESTION, context(texts), None)
    assert result.answer == ABSTENTION_ANSWER and result.abstained


@pytest.mark.parametrize(("text", "expected"), [
    (ABSTENTION_ANSWER, True),
    ("The retrieved passages do not mention the primary approver.", True),
    ("The approver is not specified in the conversation.", True),
    ("This cannot be determined from the passages.", True),
    ("Not enough information to answer.", True),
    ("Unknown", True),
    ("The vendor is not available until Monday.", False),
    ("Legal cannot sign before 2025-07-18, so Finance approves.", False),
    ("2025-07-18", False),
])
def test_the_abstention_matcher_looks_for_missing_information_only(text, expected):
    assert is_abstention(text) is expected


@pytest.mark.parametrize(("gold", "given", "verdict"), [
    ("2025-07-18", "The deadline is 2025-07-18.", "correct"),
    ("2025-07-18", "The deadline is 2025-07-17.", "incorrect"),
    ("Finance", "the finance team owns it", "correct"),
    ("dating the approval", "They are dating the approval.", "correct"),
    ("Finance, ESG, Ops, and Analytics are being asked to pressure-test the assumptions.",
     "You asked Finance, ESG, Ops and Analytics to pressure-test the assumptions.", "correct"),
    ("Finance, ESG, Ops, and Analytics", "Only Legal.", "incorrect"),
    ("2025-07-18", ABSTENTION_ANSWER, "incorrect"),
    ("...", "anything", "unclear"),
])
def test_the_lexical_judge_on_normal_questions(gold, given, verdict):
    question = QUESTION.model_copy(update={"gold": gold})
    result = OfflineLexicalJudge().judge(question, answer(given), None)
    assert result.verdict == verdict and result.model == OFFLINE_JUDGE
    assert result.raw.endswith(f"Final: {verdict.capitalize()}")


@pytest.mark.parametrize(("given", "abstained", "verdict"), [
    (ABSTENTION_ANSWER, True, "correct"),
    ("The passages do not mention the primary approver for the ESG Policy Framework.", False, "correct"),
    ("No information is available; however Priya Natarajan from Treasury approves it.", False, "incorrect"),
    ("User_4 is the primary approver.", False, "incorrect"),
])
def test_an_abstention_question_is_correct_only_when_the_answer_abstains_and_invents_nothing(given, abstained,
                                                                                             verdict):
    assert OfflineLexicalJudge().judge(ABSTAIN, answer(given, abstained), None).verdict == verdict


def test_released_abstention_questions_pass_offline_with_empty_context(shared_data: Path):
    lines = (shared_data / "groupmembench" / "questions" / "Finance" / "abstention.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    answerer, judge = build_models(agent_model=None, judge_model=None, protocol="reference", calls=ModelCalls(),
                                   cache=None)
    verdicts = set()
    for row in rows:
        question = Question(question_id=row["id"], kind="abstention", text=row["question"], gold=row["answer"],
                            asking_user=row["asking_user_id"], abstention=is_abstention(row["answer"]))
        verdicts.add(judge.judge(question, answerer.answer(question, [], None), None).verdict)
    assert len(rows) > 5 and verdicts == {"correct"}


def test_the_factory_gives_the_offline_pair_by_default():
    answerer, judge = build_models(agent_model=None, judge_model=None, protocol="typed", calls=ModelCalls(), cache=None)
    assert (answerer.name, judge.name) == (OFFLINE_ANSWERER, OFFLINE_JUDGE)
    assert answerer.offline and judge.offline
    assert answerer.prompt_hashes == {} and judge.prompt_hashes == {}


def test_the_factory_builds_real_models_only_with_the_key(monkeypatch, shared_data: Path):
    with pytest.raises(BadInput, match="BENCH_KEY") as missing:
        build_models(agent_model="gpt-5", judge_model=None, protocol="reference", calls=ModelCalls(api_key_env="BENCH_KEY"), cache=None)
    assert missing.value.field == "api_key_env"  # the CLI names it as the option --api-key-env
    monkeypatch.setenv("BENCH_KEY", "sk-test-factory-9876543210")
    folder = shared_data / "groupmembench" / "prompts"
    prompts = Prompts(agent_system=(folder / "agent_system.txt").read_text(),
                      judge_system=(folder / "judge_system.txt").read_text())
    answerer, judge = build_models(agent_model="gpt-5", judge_model=None, protocol="reference", calls=ModelCalls(api_key_env="BENCH_KEY"), cache=None, prompts=prompts)
    assert isinstance(answerer, ReferenceAnswerModel) and isinstance(judge, ReferenceJudgeModel)
    assert (answerer.name, judge.name, answerer.offline, judge.offline) == ("gpt-5", "gpt-5", False, False)
    assert answerer.client is judge.client
    assert answerer.prompt_hashes["agent_system"] == prompts.hashes["agent_system"]
    typed_agent, offline_judge = build_models(agent_model="gpt-5", judge_model=OFFLINE_JUDGE, protocol="typed",
                                              calls=ModelCalls(base_url="http://127.0.0.1:9/v1", api_key_env="BENCH_KEY"), cache=None)
    assert isinstance(typed_agent, TypedAnswerModel) and isinstance(offline_judge, OfflineLexicalJudge)
    _, typed_judge = build_models(agent_model=OFFLINE_ANSWERER, judge_model="gpt-5", protocol="typed",
                                  calls=ModelCalls(api_key_env="BENCH_KEY"), cache=None)
    assert isinstance(typed_judge, TypedJudgeModel)


@pytest.mark.parametrize(("options", "field"), [
    ({"agent_model": None, "base_url": "http://127.0.0.1:9/v1"}, "agent_model"),
    ({"agent_model": OFFLINE_JUDGE, "base_url": None}, "agent_model"),
    ({"agent_model": None, "base_url": None, "protocol": "fancy"}, "protocol"),
])
def test_the_factory_rejects_bad_options_naming_the_field(options, field):
    settings = {"judge_model": None, "protocol": "reference", "cache": None} | options
    calls = ModelCalls(base_url=settings.pop("base_url"))
    with pytest.raises(BadInput) as caught:
        build_models(calls=calls, **settings)
    assert caught.value.field == field
