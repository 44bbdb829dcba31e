"""The base of every ledger event: frozen, typed by a `type` literal, versioned.

An event is the domain fact; the stored row (see `ledger.mapper`) adds seq, run_id, position,
recorded_at and the hash chain around its JSON payload. `schema_version` is a class constant
written into the row, so an old row is upcast on read and never rewritten.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

__all__ = ["Event", "Usage", "cap_message", "MESSAGE_CAP"]

MESSAGE_CAP = 500


class Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: ClassVar[int] = 1

    def idempotency_key(self) -> str | None:
        """A deterministic key per stage and item; None when the event may repeat."""
        return None


class Usage(BaseModel):
    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0


def cap_message(text: str, cap: int = MESSAGE_CAP) -> str:
    """Cap an error message so a huge exception text never bloats the ledger."""
    return text if len(text) <= cap else text[: cap - 1] + "…"
