"""Value types shared by every layer: small, frozen, and free of any layer's logic."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["Usage", "Criterion"]


class Usage(BaseModel):
    """Tokens a model call used, as the endpoint reported them."""

    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    """Tokens of the request (system prompt, context, question)."""
    completion_tokens: int = 0
    """Tokens of the reply, hidden reasoning included where the endpoint counts it."""


class Criterion(BaseModel):
    """One Memora evaluation question asked about a candidate answer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    criterion_id: str
    """The release's evaluation_question_id."""
    question: str
    """The evaluation question put to the judge."""
    expected: Literal["yes", "no"]
    """The answer a correct candidate earns."""
    kind: Literal["memory_presence", "forgetting_absence"]
    """memory_presence (something must be remembered) or forgetting_absence (something must not be)."""
