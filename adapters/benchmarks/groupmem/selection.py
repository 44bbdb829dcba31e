"""What a GroupMemBench run selects: one domain, and optionally some kinds and limits."""

from __future__ import annotations

from pydantic import ConfigDict

from benchledger.settings import Selection

__all__ = ["GroupMemSelection"]


class GroupMemSelection(Selection):
    """One domain of a release; every kind and every message unless limited (limits are diagnostic)."""

    model_config = ConfigDict(extra="forbid")

    domain: str
    """Domain folder name (Finance, Healthcare, Manufacturing, Technology in the release)."""
