"""What a LongMemEval run selects: question types and a question limit."""

from __future__ import annotations

from pydantic import ConfigDict

from benchledger.settings import Selection

__all__ = ["LongMemEvalSelection"]


class LongMemEvalSelection(Selection):
    """Every question of a release file (each with its own haystack) unless limited."""

    model_config = ConfigDict(extra="forbid")

    message_limit: None = None
    """Not offered: a haystack is always ingested whole."""
