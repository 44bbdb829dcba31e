"""The base of every ledger event: frozen, typed by a `type` literal, versioned.

An event is the domain fact; the stored row (see `ledger.mapper`) adds seq, run_id, position,
recorded_at and the hash chain around its JSON payload. `schema_version` is a class constant
written into the row, so an old row is upcast on read and never rewritten.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel, ConfigDict

from benchledger.text import MESSAGE_CAP, cap_message
from benchledger.values import Usage

__all__ = ["Event", "Usage", "cap_message", "MESSAGE_CAP"]


class Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    schema_version: ClassVar[int] = 1

    if TYPE_CHECKING:  # every event class declares it as a Literal field; the checker sees a str
        type: str

    def idempotency_key(self) -> str | None:
        """A deterministic key per stage and item; None when the event may repeat."""
        return None
