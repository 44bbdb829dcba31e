"""The raw GroupMemBench records, validated strictly before anything else sees them.

`RawMessage` is one element of a channel list in
`data/final/<Domain>/synthetic_domain_channels_rolevariants_<Domain>.json`; `RawQuestion` is one
line of `questions/<Domain>/<kind>.jsonl`. Both are strict (a number where a string belongs is an
error, never coerced) and frozen; fields the release does not document are tolerated and kept, so
the adapter can record them instead of dropping them silently.

Required in a message: msg_node, content, author, timestamp (the canonical order and every
user-scoped question depend on them). Optional: role, reply_to, phase_name, topic, is_noise,
is_decision_point. A message's content is capped at `MAX_CONTENT_BYTES` of UTF-8: a release with a
10 MB message is broken, and letting it through would bloat every memory system and prompt.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "KINDS", "ABSTENTION_GOLD", "MAX_CONTENT_BYTES", "RawMessage", "RawQuestion", "parse_timestamp",
    "extras_as_strings", "SURROGATE_ESCAPE", "is_encodable",
]

KINDS: tuple[str, ...] = (
    "multi_hop", "knowledge_update", "temporal", "user_implicit", "term_ambiguity", "abstention",
)
ABSTENTION_GOLD = "There is no information available in the conversation to answer this question."
MAX_CONTENT_BYTES = 1_000_000
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A JSON escape that may decode to a lone surrogate; only then are fields checked one by one."""


def parse_timestamp(value: str) -> datetime:
    """ISO-8601 to a timezone-aware UTC datetime (naive times are taken as UTC)."""
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=timezone.utc)
    try:
        return parsed.astimezone(timezone.utc)
    except OverflowError as err:
        raise ValueError(f"timestamp {value!r} is out of range in UTC") from err


def is_encodable(value: object) -> bool:
    """False for text that cannot be written as UTF-8 (lone surrogates from JSON escapes)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
    elif isinstance(value, dict):
        return all(is_encodable(key) and is_encodable(item) for key, item in value.items())
    elif isinstance(value, list):
        return all(is_encodable(item) for item in value)
    return True


def extras_as_strings(model: BaseModel) -> dict[str, str]:
    """Undocumented fields kept verbatim: strings as they are, anything else as JSON."""
    extra = model.model_extra or {}
    return {key: value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            for key, value in sorted(extra.items())}


class _Raw(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True, extra="allow")

    def unencodable_field(self) -> str | None:
        """The first field holding a lone surrogate (only a JSON escape can put one there)."""
        return next((name for name, value in self if not is_encodable(value)), None)


class RawMessage(_Raw):
    """One released message, exactly as the corpus file gives it."""

    msg_node: str = Field(min_length=1)
    """Message id, "Msg_<n>"; unique across the whole domain."""
    content: str
    """Message text, possibly HTML-escaped (the adapter unescapes it)."""
    author: str
    """"User_<n>"."""
    timestamp: str
    """ISO-8601, kept exactly as released (the official order and passages use the string);
    `moment` is the time it names, naive times read as UTC."""
    role: str | None = None
    reply_to: str | None = None
    """msg_node this message answers, or null."""
    phase_name: str | None = None
    topic: str | None = None
    is_noise: bool = False
    is_decision_point: bool = False

    @field_validator("timestamp", mode="before")
    @classmethod
    def _iso_timestamp(cls, value: Any) -> str:
        if not isinstance(value, str):
            raise ValueError("timestamp must be an ISO-8601 string")
        parse_timestamp(value)
        return value

    @property
    def moment(self) -> datetime:
        return parse_timestamp(self.timestamp)

    @field_validator("content")
    @classmethod
    def _capped(cls, value: str) -> str:
        if len(value) * 4 > MAX_CONTENT_BYTES and \
                len(value.encode("utf-8", "surrogatepass")) > MAX_CONTENT_BYTES:
            raise ValueError(f"content is larger than {MAX_CONTENT_BYTES} bytes")
        return value


class RawQuestion(_Raw):
    """One released question line."""

    id: str = Field(min_length=1)
    """Released id, already prefixed by kind ("multi_hop_3")."""
    question: str = Field(min_length=1)
    answer: str
    """Gold answer; for abstention always `ABSTENTION_GOLD`."""
    asking_user_id: str | None = None
    """The user who asks ("User_<n>"), kept exactly."""
