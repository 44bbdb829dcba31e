"""The base of every ledger event: frozen, typed by a `type` literal, versioned.

An event is the domain fact; the stored row (see `ledger.mapper`) adds seq, run_id, position,
recorded_at and the hash chain around its JSON payload. `schema_version` is a class constant
written into the row, so an old row is upcast on read and never rewritten.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict
from pydantic.dataclasses import is_pydantic_dataclass
from pydantic.fields import FieldInfo

from benchledger.text import MESSAGE_CAP, cap_message
from benchledger.values import Usage

__all__ = ["Event", "Usage", "cap_message", "MESSAGE_CAP", "is_validated_type", "fields_of"]


def is_validated_type(value: Any) -> bool:
    """True for a pydantic model class or validated dataclass (what an event's payload nests)."""
    return isinstance(value, type) and (issubclass(value, BaseModel) or is_pydantic_dataclass(value))


def fields_of(model: type) -> dict[str, FieldInfo]:
    """The fields of a model class or of a validated dataclass, by name, in declared order."""
    if issubclass(model, BaseModel):
        return dict(model.model_fields)
    return dict(getattr(model, "__pydantic_fields__"))


class Event(BaseModel):
    # Reading JSON, cache only the keys: caching every short value too (ids, names) costs a long
    # read more time (~15%) than the memory its shared copies save.
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True, cache_strings="keys")

    schema_version: ClassVar[int] = 1

    if TYPE_CHECKING:  # every event class declares it as a Literal field; the checker sees a str
        type: str

    def idempotency_key(self) -> str:
        """The key the store derives for this event (`ledger.reader.events.keys`); the store never asks
        the event for it, so overriding this changes nothing that is recorded."""
        from benchledger.ledger.events.keys import derive_key  # keys imports every event class

        return derive_key(self)
