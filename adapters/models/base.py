"""What the run asks of models: an answer from a recalled context, and a verdict against gold.

Two protocols shape the calls. `reference` uses the benchmark's released system prompts, its
passage format and its `Final:` line parsing; `typed` asks for JSON-schema answers
{answer, abstained} and verdicts {correct, reason}. Offline deterministic models implement the
same interfaces so the whole path runs with no network; they are labelled as such.

Operational errors raise `ModelError` subclasses (never a wrong answer): the run turns them into
Failed events.
"""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from benchledger.adapters.benchmarks.base import Prompts, Question
from benchledger.adapters.memory.protocol import Candidate
from benchledger.retry import Transient
from benchledger.values import Usage

__all__ = [
    "Usage", "Answer", "Verdict", "AnswerModel", "JudgeModel", "judge_asks_model",
    "ModelError", "TransientModelError", "ModelParseError", "EmptyResponseError",
]

VerdictLabel = Literal["correct", "incorrect", "unclear"]
"""A verdict as a judge gives it (the `verdict` of `Verdict` and of the Judged event)."""


class Answer(BaseModel):
    """An answer produced from the recalled context only."""

    model_config = ConfigDict(frozen=True)

    answer: str
    abstained: bool
    raw: str
    """The full model output (stored as a blob)."""
    model: str
    usage: Usage = Field(default_factory=Usage)
    cache_hit: bool = False
    latency_ms: float = 0.0


class Verdict(BaseModel):
    """A judgment of an answer against gold."""

    model_config = ConfigDict(frozen=True)

    verdict: VerdictLabel
    reason: str = ""
    raw: str = ""
    model: str
    usage: Usage = Field(default_factory=Usage)
    cache_hit: bool = False
    latency_ms: float = 0.0
    criteria: dict[str, Literal["yes", "no", "unclear"]] = Field(default_factory=dict)
    """Memora: criterion_id -> the judge's yes/no about the candidate answer."""
    score: float | None = None
    """The scorer's number for the answer when its rule gives one (LoCoMo's token F1, a FAMA)."""
    judge_votes: dict[str, dict[str, str]] = Field(default_factory=dict)
    """Memora's official vote: criterion_id -> judge model -> that judge's reading (yes/no/unclear/error)."""


class AnswerModel(Protocol):
    name: str
    offline: bool

    def answer(self, question: Question, context: list[Candidate], prompts: Prompts | None) -> Answer: ...


class JudgeModel(Protocol):
    name: str
    offline: bool

    def judge(self, question: Question, answer: Answer, prompts: Prompts | None) -> Verdict: ...


def judge_asks_model(judge: JudgeModel) -> bool:
    """True when the judge calls an endpoint: not offline, and not a rule that asks no model
    (a judge says so with `asks_model = False`, as LoCoMo's token F1 does)."""
    return not judge.offline and bool(getattr(judge, "asks_model", True))


class ModelError(Exception):
    """A model call failed operationally."""

    status_code: int | None = None
    """The HTTP status the endpoint refused the call with, when it answered with one."""


class TransientModelError(ModelError, Transient):
    """Retryable: 429, 5xx, timeouts, connection resets (retried under `benchledger.retry`)."""


class ModelParseError(ModelError):
    """The model answered, but not in the shape the protocol requires."""


class EmptyResponseError(ModelError):
    """The model returned no content."""
