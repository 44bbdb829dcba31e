"""Per-question events: recall, answer, judgment, failure, and the scorers that judge."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from benchledger.ledger.events.base import Event, Usage

__all__ = [
    "RecalledItem", "ContextRecalled", "QuestionAnswered", "ScorerStarted", "Judged", "Failed",
    "STAGES",
]

STAGES = ("prepare", "verify", "recall", "answer", "judge", "purge", "run")


class RecalledItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    doc_id: str
    score: float
    rank: int
    author: str | None = None
    channel: str | None = None


class ContextRecalled(Event):
    """The memory system's candidates for one question, asked as its user."""

    type: Literal["ContextRecalled"] = "ContextRecalled"
    question_id: str
    query: str
    asking_user: str | None = None
    k: int
    token_budget: int | None = None
    items: tuple[RecalledItem, ...]
    context_hash: str
    """Blob hash of the packed context exactly as shown to the answer model."""
    context_tokens: int
    latency_ms: float

    def idempotency_key(self) -> str:
        return f"recall:{self.question_id}"


class QuestionAnswered(Event):
    """The answer model's answer from the recalled context only."""

    type: Literal["QuestionAnswered"] = "QuestionAnswered"
    question_id: str
    answer: str
    abstained: bool
    model: str
    raw_hash: str
    """Blob hash of the full model output."""
    usage: Usage = Field(default_factory=Usage)
    cache_hit: bool = False
    latency_ms: float = 0.0
    request_digest: str = ""
    """Cache key (SHA-256) of the model request that produced the answer; "" when not recorded."""

    def idempotency_key(self) -> str:
        return f"answer:{self.question_id}"


class ScorerStarted(Event):
    """A scorer (judge model, protocol, prompt) begins judging this run's answers."""

    type: Literal["ScorerStarted"] = "ScorerStarted"
    scorer_id: str
    judge_model: str
    protocol: str
    prompt_hash: str = ""
    offline: bool = False

    def idempotency_key(self) -> str:
        return f"scorer:{self.scorer_id}"


class Judged(Event):
    """One scorer's verdict on one answer against gold."""

    type: Literal["Judged"] = "Judged"
    question_id: str
    scorer_id: str
    verdict: Literal["correct", "incorrect", "unclear"]
    reason: str = ""
    model: str
    raw_hash: str = ""
    usage: Usage = Field(default_factory=Usage)
    cache_hit: bool = False
    latency_ms: float = 0.0
    criteria: dict[str, Literal["yes", "no", "unclear"]] = Field(default_factory=dict)
    """Memora: criterion_id -> the judge's answer about the candidate answer."""
    request_digest: str = ""
    """Cache key (SHA-256) of the judge request that produced the verdict; "" when not recorded."""

    def idempotency_key(self) -> str:
        return f"judge:{self.scorer_id}:{self.question_id}"


class Failed(Event):
    """An operational failure: never a wrong answer."""

    type: Literal["Failed"] = "Failed"
    stage: Literal["prepare", "verify", "recall", "answer", "judge", "purge", "run"]
    question_id: str | None = None
    scorer_id: str | None = None
    error_class: str
    message: str
    """Capped at 500 characters, secrets redacted."""
    attempt: int = 1
    """1 for the first run of the stage; resume retries under higher attempts."""
    scope_key: str | None = None
    """For a scope-level failure (purge), which scope of the run it concerns."""

    def idempotency_key(self) -> str:
        item = self.question_id or self.scope_key or "-"
        scorer = self.scorer_id or "-"
        return f"failed:{self.stage}:{scorer}:{item}:{self.attempt}"
