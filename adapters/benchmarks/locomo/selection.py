"""What a LoCoMo run selects: conversations, categories and a question limit."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from benchledger.settings import Selection

__all__ = ["LoCoMoSelection"]


class LoCoMoSelection(Selection):
    """Some or all conversations of a release file; every category unless limited."""

    model_config = ConfigDict(extra="forbid")

    conversation_ids: tuple[str, ...] = Field(default=(), json_schema_extra={"option": "conversations"})
    """Conversation sample_ids to run, comma-separated or repeated [default: every conversation]."""
    message_limit: None = None
    """Not offered: a conversation is always ingested whole."""
