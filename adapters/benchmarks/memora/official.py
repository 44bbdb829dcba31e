"""Memora's official protocol: the model track's answer prompt over what the memory recalled, judged
criterion by criterion by three judges that vote, read as `model_based_evaluator.py` reads them.

Answering (`MemoraAnswerModel`, `PromptBuilder.build_question_prompt`): the recalled turns grouped
into their sessions (session order, turns in order) become the official conversation history
(`context.build_conversation_context`, no token limit); the speakers are passed as released, and
the official builder renders only "user" and "ai_agent", so with the release's "user_agent" the
user's own turns are left out of the history, exactly as the official code leaves them out (the
report counts them). The system message has no date sentence (the evaluator reads `session_date`,
which released questions lack, quirk 19). Two messages, temperature 0.7, no token limit; an empty
reply counts as a failed attempt, three in all, as `OpenRouterClient` tries.

Judging (`MemoraMajorityJudge`, method `memora-majority`): for every criterion, every judge gets
the official system prompt and the model-track user prompt (`prompts.judge_messages`, with its
"Target item being evaluated: None" line), temperature 0.0, three attempts; its reply is read by
`judge_verdict.model_track_verdict` (JSON, then the text fallback; a non-object JSON is "error")
and the criterion is decided by `vote.majority` (valid judges only, ties not correct). The judges
are `--judge-models` (default: the official trio, `prompts.OFFICIAL_JUDGES`), or the one
`--judge-model`. A judge call that still fails after its attempts is an operational failure of
the question here (a `Failed` event, retried by resume), where the official evaluator would drop
that judge from the vote; a reply it cannot read stays an "error" vote, as officially.

The verdict records every judge's reading per criterion (`Judged.judge_votes`), the question's
official FAMA (`Judged.score`, `scoring.fama_score`: 0 with no presence criterion), and in
`criteria` each criterion's outcome as an answer (the expected one when the vote found it met).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from benchledger.adapters.benchmarks.base import Criterion, Dataset, Prompts, Question
from benchledger.adapters.benchmarks.memora.context import build_conversation_context
from benchledger.adapters.benchmarks.memora.judge_verdict import JudgeVerdict, model_track_verdict
from benchledger.adapters.benchmarks.memora.prompts import (
    ANSWER_TEMPERATURE, CALL_ATTEMPTS, JUDGE_TEMPERATURE, OFFICIAL_JUDGES, TEMPLATE_SHA256, answer_messages,
    judge_messages,
)
from benchledger.adapters.benchmarks.memora.scoring import FORGETTING, PRESENCE, fama_score
from benchledger.adapters.benchmarks.memora.vote import CriterionVote, majority
from benchledger.adapters.benchmarks.official import OfficialProtocol
from benchledger.adapters.benchmarks.official_prompts import sha256_of
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.models.abstention import is_abstention
from benchledger.adapters.models.base import Answer, AnswerModel, EmptyResponseError, JudgeModel, Verdict
from benchledger.adapters.models.factory import ModelContext
from benchledger.adapters.models.offline import OFFLINE_JUDGE, lexical_criterion
from benchledger.adapters.models.openai_chat import ChatClient, ChatResult
from benchledger.retry import Transient
from benchledger.values import Usage

__all__ = ["MAJORITY_METHOD", "MemoraOfficial", "MemoraAnswerModel", "MemoraMajorityJudge", "recalled_sessions",
           "criterion_dict", "outcome_answer"]

MAJORITY_METHOD = "memora-majority"


def recalled_sessions(context: list[Candidate]) -> list[dict]:
    """The recalled turns as the official loader's session dicts, in session order, turns in order."""
    sessions: dict[str, dict] = {}
    for candidate in sorted(context, key=lambda c: c.passage.position):
        doc = candidate.passage
        channel = doc.channel or ""
        session_id: int | str = int(channel.removeprefix("session_")) if channel.removeprefix("session_").isdigit() \
            else channel
        entry = sessions.setdefault(channel, {
            "session_id": session_id, "date": doc.timestamp.strftime("%Y-%m-%d") if doc.timestamp else "unknown",
            "conversation": []})
        entry["conversation"].append({"speaker": doc.author or "unknown", "message": doc.text})
    return sorted(sessions.values(), key=lambda s: s["session_id"] if isinstance(s["session_id"], int) else 0)


def criterion_dict(criterion: Criterion) -> dict[str, str]:
    """A criterion as the released evaluation question the official judge prompt is built from."""
    return {"evaluation_question_id": criterion.criterion_id, "evaluation_question": criterion.question,
            "expected_answer": criterion.expected, "evaluation_type": criterion.kind}


def outcome_answer(criterion: Criterion, vote: CriterionVote) -> str:
    """A criterion's voted outcome as an answer: the expected one when met, else the other (unclear
    when no judge was valid or they tied)."""
    if vote.is_correct:
        return criterion.expected
    if vote.num_valid_judges == 0 or vote.llm_answer == "tie":
        return "unclear"
    return "no" if criterion.expected == "yes" else "yes"


class _EmptyReply(EmptyResponseError, Transient):
    """An empty or null reply, which the official code tries again (and so do we, under the shared policy)."""


def _complete(client: ChatClient, attempts: int, **call) -> ChatResult:
    """One official call: an empty or null reply counts as a failed attempt, `attempts` in all,
    waiting between them as the client's retry policy does."""

    def once() -> ChatResult:
        try:
            return client.complete(**call)
        except EmptyResponseError as err:
            raise _EmptyReply(str(err)) from None

    try:
        return replace(client.retry, max_attempts=attempts).call(once).value
    except _EmptyReply:
        raise EmptyResponseError(f"{call.get('model')}: empty reply after {attempts} attempts") from None


class MemoraAnswerModel:
    """The model track's answer call over the recalled history."""

    offline = False

    def __init__(self, client: ChatClient, model: str, templates) -> None:
        self.client, self.name = client, model
        self.texts = dict(templates)
        self.prompt_hashes = {name: sha256_of(text) for name, text in self.texts.items()}

    def messages(self, question: Question, context: list[Candidate]) -> list[dict[str, str]]:
        history, _ = build_conversation_context(recalled_sessions(context))
        return answer_messages(self.texts, history, question.text).as_list()

    def answer(self, question: Question, context: list[Candidate], prompts: Prompts | None) -> Answer:
        result = _complete(self.client, CALL_ATTEMPTS, model=self.name, messages=self.messages(question, context),
                           params={"temperature": ANSWER_TEMPERATURE})
        return Answer(answer=result.text, abstained=is_abstention(result.text), raw=result.text,
                      model=result.model, usage=result.usage, cache_hit=result.cache_hit,
                      latency_ms=result.latency_ms)


@dataclass(frozen=True)
class _Reading:
    verdict: JudgeVerdict
    raw: str
    model: str
    usage: Usage = Usage()
    cache_hit: bool = True
    latency_ms: float = 0.0


Voter = Callable[[Question, Criterion, str], _Reading]


class MemoraMajorityJudge:
    """Every criterion put to every judge; the valid judges' majority decides it."""

    offline: bool
    method = MAJORITY_METHOD

    def __init__(self, voters: Sequence[tuple[str, Voter]], *, offline: bool, templates=None) -> None:
        self.voters = list(voters)
        self.judge_models = tuple(model for model, _ in self.voters)
        self.name = " + ".join(self.judge_models) if len(self.judge_models) > 1 else self.judge_models[0]
        self.offline = offline
        self.templates = dict(templates or {})
        self.prompt_hashes = {name: sha256_of(text) for name, text in self.templates.items()}

    def judge(self, question: Question, answer: Answer, prompts: Prompts | None) -> Verdict:
        votes: dict[str, dict[str, str]] = {}
        outcomes: dict[str, str] = {}
        raws, readings = [], []
        met = {PRESENCE: [0, 0], FORGETTING: [0, 0]}
        for criterion in question.criteria:
            per_judge = [(model, voter(question, criterion, answer.answer)) for model, voter in self.voters]
            vote = majority([reading.verdict for _, reading in per_judge])
            votes[criterion.criterion_id] = {model: reading.verdict.llm_answer for model, reading in per_judge}
            outcomes[criterion.criterion_id] = outcome_answer(criterion, vote)
            met[criterion.kind][0] += vote.is_correct
            met[criterion.kind][1] += 1
            readings += [reading for _, reading in per_judge]
            raws.append({"criterion_id": criterion.criterion_id,
                         "judges": {model: reading.raw for model, reading in per_judge}})
        fama = fama_score(met[PRESENCE][0], met[PRESENCE][1], met[FORGETTING][0], met[FORGETTING][1])
        correct = sum(1 for c in question.criteria if outcomes[c.criterion_id] == c.expected)
        reported = list(dict.fromkeys(reading.model for reading in readings)) or list(self.judge_models)
        return Verdict(
            verdict="correct" if correct == len(question.criteria) else "incorrect",
            reason=f"FAMA {fama:.3f}; {correct}/{len(question.criteria)} criteria met by the valid judges' majority",
            raw=json.dumps(raws, ensure_ascii=False, indent=1), model=" + ".join(reported),
            criteria=outcomes,
            score=fama, judge_votes=votes,
            usage=Usage(prompt_tokens=sum(r.usage.prompt_tokens for r in readings),
                        completion_tokens=sum(r.usage.completion_tokens for r in readings)),
            cache_hit=bool(readings) and all(r.cache_hit for r in readings),
            latency_ms=sum(r.latency_ms for r in readings))


def _model_voter(client: ChatClient, model: str, templates) -> Voter:
    def vote(question: Question, criterion: Criterion, response: str) -> _Reading:
        messages = judge_messages(templates, response, criterion_dict(criterion)).as_list()
        result = _complete(client, CALL_ATTEMPTS, model=model, messages=messages,
                           params={"temperature": JUDGE_TEMPERATURE})
        return _Reading(model_track_verdict(result.text, criterion.expected), result.text, result.model,
                        result.usage, result.cache_hit, result.latency_ms)
    return vote


def _offline_voter(question: Question, criterion: Criterion, response: str) -> _Reading:
    said, reason = lexical_criterion(criterion.question, response)
    verdict = JudgeVerdict(said, said == criterion.expected, 1.0, reason)
    return _Reading(verdict, f"{reason}\nFinal: {said}", OFFLINE_JUDGE)


class MemoraOfficial(OfficialProtocol):
    benchmark = "Memora"
    summary = ("geniesinc/Memora @ a649318 model track: the official answer prompt over the recalled history, "
               "three judges per criterion (valid judges' majority), official FAMA")
    template_pins = TEMPLATE_SHA256
    template_source = ("geniesinc/Memora @ a649318, evals/model_eval/model_based_evaluator.py; the copy in "
                       "../shared/data/memora/prompts")
    scorer_methods = (MAJORITY_METHOD,)

    def official_answerer(self, client: ChatClient, model: str, templates, dataset: Dataset) -> AnswerModel:
        return MemoraAnswerModel(client, model, templates)

    def judge_models(self, context: ModelContext) -> tuple[str, ...]:
        """The voting judges: those asked for, the one judge asked for, the offline judge, or the trio."""
        if context.judge_models:
            return context.judge_models
        if context.judge_model is not None:
            return (context.judge_model,)
        if context.offline_agent and context.base_url is None:
            return (OFFLINE_JUDGE,)
        return tuple(OFFICIAL_JUDGES.values())

    def scorer(self, context: ModelContext, templates, method: str) -> JudgeModel:
        models = self.judge_models(context)
        if models == (OFFLINE_JUDGE,):
            return MemoraMajorityJudge([(OFFLINE_JUDGE, _offline_voter)], offline=True)
        voters = [(model, _offline_voter if model == OFFLINE_JUDGE
                   else _model_voter(context.client(), model, templates)) for model in models]
        return MemoraMajorityJudge(voters, offline=OFFLINE_JUDGE in models, templates=templates)
