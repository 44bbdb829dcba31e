"""The `typed` protocol: JSON-schema structured outputs instead of a `Final:` line.

The agent returns `{"answer": str, "abstained": bool}` and the judge `{"correct": bool,
"reason": str}`, requested with `response_format={"type": "json_schema", ...}` (strict
schemas generated from the pydantic models below). A reply that is not JSON, or does not
match the schema exactly, is a `ModelParseError`. The user prompts keep the reference
protocol's sections and passage format, so the same recalled context reads the same way;
the system prompts are this module's own, and `TYPED_PROMPT_HASHES` identifies them.

A Memora question (one with criteria) is judged one call per criterion with
`TYPED_CRITERION_JUDGE_SYSTEM` and the strict `TypedCriterion` schema `{answer: yes|no, reason}`
(see `adapters.models.criteria`).
"""

from __future__ import annotations

import hashlib
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from benchledger.adapters.benchmarks.base import Prompts, Question
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.models.base import Answer, ModelParseError, Verdict
from benchledger.adapters.models.criteria import (
    CRITERION_PROMPT_HASHES, TYPED_CRITERION_JUDGE_SYSTEM, CriterionJudgment, TypedCriterion,
    combine_judgments, criterion_user_prompt,
)
from benchledger.adapters.models.openai_chat import ChatClient
from benchledger.adapters.models.reference import (
    AGENT_MAX_TOKENS, JUDGE_MAX_TOKENS, TEMPERATURE, agent_user_prompt, judge_user_prompt,
    release_call_shape,
)

__all__ = [
    "TypedAnswer", "TypedVerdict", "TYPED_AGENT_SYSTEM", "TYPED_JUDGE_SYSTEM", "TYPED_PROMPT_HASHES",
    "response_format", "parse_typed", "TypedAnswerModel", "TypedJudgeModel",
]

_Shape = TypeVar("_Shape", bound=BaseModel)

TYPED_AGENT_SYSTEM = (
    "You are a careful QA agent. Use only the retrieved conversation passages to answer the "
    "question. Reply with a JSON object with two fields: \"answer\", a short answer taken from "
    "the passages, and \"abstained\", true when the passages do not contain the information "
    "(then say so in \"answer\") and false otherwise."
)
TYPED_JUDGE_SYSTEM = (
    "You are a strict judge evaluating whether an agent's answer matches the gold answer for a "
    "question. Consider paraphrases correct if they have the same meaning as the gold answer. "
    "When the gold answer says the information is not available, the agent is correct only if "
    "it also says so and asserts nothing else. Reply with a JSON object with two fields: "
    "\"correct\", true or false, and \"reason\", one sentence."
)
TYPED_PROMPT_HASHES = {
    "agent_system": hashlib.sha256(TYPED_AGENT_SYSTEM.encode()).hexdigest(),
    "judge_system": hashlib.sha256(TYPED_JUDGE_SYSTEM.encode()).hexdigest(),
}


class TypedAnswer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    answer: str
    abstained: bool


class TypedVerdict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    correct: bool
    reason: str


def response_format(shape: type[BaseModel], name: str) -> dict:
    """A strict json_schema response_format for a pydantic model."""
    return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": shape.model_json_schema()}}


def parse_typed(text: str, shape: type[_Shape]) -> _Shape:
    """The reply as `shape`; ModelParseError when it is not JSON or does not match exactly."""
    try:
        return shape.model_validate_json(text.strip())
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in error.errors()[:3])
        raise ModelParseError(f"the reply does not match the {shape.__name__} schema: {problems}") from None


class TypedAnswerModel:
    """Answers as `{answer, abstained}` JSON."""

    offline = False
    prompt_hashes = {"agent_system": TYPED_PROMPT_HASHES["agent_system"]}

    def __init__(self, client: ChatClient, model: str, *, max_tokens: int = AGENT_MAX_TOKENS,
                 temperature: float = TEMPERATURE) -> None:
        self.client, self.name, self.max_tokens, self.temperature = client, model, max_tokens, temperature

    def answer(self, question: Question, context: list[Candidate], prompts: Prompts | None) -> Answer:
        messages, params = release_call_shape(self.name, TYPED_AGENT_SYSTEM, agent_user_prompt(question, context),
                                              max_tokens=self.max_tokens, temperature=self.temperature)
        params["response_format"] = response_format(TypedAnswer, "typed_answer")
        result = self.client.complete(model=self.name, messages=messages, params=params,
                                      validate=lambda text: parse_typed(text, TypedAnswer))
        parsed = parse_typed(result.text, TypedAnswer)
        return Answer(answer=parsed.answer, abstained=parsed.abstained, raw=result.text, model=result.model,
                      usage=result.usage, cache_hit=result.cache_hit, latency_ms=result.latency_ms)


class TypedJudgeModel:
    """Judges as `{correct, reason}` JSON; a typed verdict is never `unclear`."""

    offline = False
    prompt_hashes = {"judge_system": TYPED_PROMPT_HASHES["judge_system"],
                     "typed_criterion_judge_system": CRITERION_PROMPT_HASHES["typed_criterion_judge_system"]}

    def __init__(self, client: ChatClient, model: str, *, max_tokens: int = JUDGE_MAX_TOKENS,
                 temperature: float = TEMPERATURE) -> None:
        self.client, self.name, self.max_tokens, self.temperature = client, model, max_tokens, temperature

    def _criterion(self, question: Question, answer: Answer, criterion) -> CriterionJudgment:
        messages, params = release_call_shape(self.name, TYPED_CRITERION_JUDGE_SYSTEM,
                                              criterion_user_prompt(question, answer.answer, criterion),
                                              max_tokens=self.max_tokens, temperature=self.temperature)
        params["response_format"] = response_format(TypedCriterion, "typed_criterion")
        result = self.client.complete(model=self.name, messages=messages, params=params,
                                      validate=lambda text: parse_typed(text, TypedCriterion))
        parsed = parse_typed(result.text, TypedCriterion)
        return CriterionJudgment(criterion_id=criterion.criterion_id, answer=parsed.answer, reason=parsed.reason,
                                 raw=result.text, model=result.model, usage=result.usage,
                                 cache_hit=result.cache_hit, latency_ms=result.latency_ms)

    def judge(self, question: Question, answer: Answer, prompts: Prompts | None) -> Verdict:
        if question.criteria:
            judgments = [self._criterion(question, answer, c) for c in question.criteria]
            return combine_judgments(question, judgments, model=judgments[0].model)
        messages, params = release_call_shape(self.name, TYPED_JUDGE_SYSTEM, judge_user_prompt(question, answer.answer),
                                              max_tokens=self.max_tokens, temperature=self.temperature)
        params["response_format"] = response_format(TypedVerdict, "typed_verdict")
        result = self.client.complete(model=self.name, messages=messages, params=params,
                                      validate=lambda text: parse_typed(text, TypedVerdict))
        parsed = parse_typed(result.text, TypedVerdict)
        return Verdict(verdict="correct" if parsed.correct else "incorrect", reason=parsed.reason,
                       raw=result.text, model=result.model, usage=result.usage,
                       cache_hit=result.cache_hit, latency_ms=result.latency_ms)
