"""Value types shared by every layer: small, frozen, and free of any layer's logic."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Usage", "Criterion", "Question", "OFFLINE_MODEL_PREFIX", "is_offline_model", "BenchmarkKind",
           "BENCHMARK_KINDS"]

BenchmarkKind = Literal["recall", "answer", "action"]
"""What a benchmark scores, as its adapter declares it (`Benchmark.kind`)."""
BENCHMARK_KINDS: dict[str, str] = {
    "recall": "evidence retrieval: did the memory bring back what the release labels as evidence",
    "answer": "a free-text or typed answer from the recalled memory, judged against gold",
    "action": "the answer is a tool call, scored as an action (tool selected, arguments grounded); "
              "a retrieval figure is never its score",
}
"""Each benchmark kind and what it scores, in one place (messages and docs read it)."""

OFFLINE_MODEL_PREFIX = "offline-"
"""How the deterministic offline models' names begin, as runs record them."""


def is_offline_model(name: str | None) -> bool:
    """True for a recorded offline model name: a model that asked no endpoint."""
    return bool(name) and str(name).startswith(OFFLINE_MODEL_PREFIX)


class Usage(BaseModel):
    """Tokens a model call used, as the endpoint reported them."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    prompt_tokens: int = 0
    """Tokens of the request (system prompt, context, question)."""
    completion_tokens: int = 0
    """Tokens of the reply, hidden reasoning included where the endpoint counts it."""

    @property
    def impossible(self) -> bool:
        """True when the endpoint claimed a negative count, which no call can have.

        The ledger keeps the claim as the endpoint made it (it is evidence of the endpoint); every
        sum leaves such a call's tokens out and counts the call instead, so an endpoint cannot take
        tokens or dollars off a total.
        """
        return self.prompt_tokens < 0 or self.completion_tokens < 0


class Criterion(BaseModel):
    """One Memora evaluation question asked about a candidate answer."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    criterion_id: str
    """The release's evaluation_question_id."""
    question: str
    """The evaluation question put to the judge."""
    expected: Literal["yes", "no"]
    """The answer a correct candidate earns."""
    kind: Literal["memory_presence", "forgetting_absence"]
    """memory_presence (something must be remembered) or forgetting_absence (something must not be)."""


class Question(BaseModel):
    """One scored item, as a benchmark adapter reads it and as `QuestionsPlanned` records it.

    Gold, evidence and criteria are kept on the ledger (so rejudge needs no corpus) and never
    reach a memory system.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    question_id: str
    """Id unique within the dataset (GroupMemBench ids are prefixed by kind already)."""
    kind: str
    """The benchmark's question category (GroupMemBench kind, LoCoMo mapped category)."""
    text: str
    """The question as released."""
    asking_user: str | None = None
    """The user who asks; recall and answering happen as this user."""
    gold: str
    """The released gold answer, as a string."""
    abstention: bool = False
    """True when the correct behaviour is to say the information is not there."""
    scope_key: str = "default"
    """Which scope of the dataset holds this question's memory."""
    evidence: tuple[str, ...] = ()
    """doc_ids (or session ids) the release labels as evidence."""
    question_time: datetime | None = None
    """When the question is asked, if the release says."""
    criteria: tuple[Criterion, ...] = ()
    """Memora evaluation questions; empty elsewhere."""
    extra: dict[str, str] = Field(default_factory=dict)
    """Released fields the benchmark's official scorer reads that the fields above do not hold, as
    strings (JSON for structured values): LoCoMo's raw evidence and category-5 answer, LongMemEval's
    haystack labels. Like gold, never sent to a memory system."""
