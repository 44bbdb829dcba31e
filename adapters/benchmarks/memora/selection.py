"""What a Memora run selects: one split, and optionally personas, tasks and a question limit."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from benchledger.settings import Selection

__all__ = ["MemoraSelection", "Split"]

Split = Literal["weekly", "monthly", "quarterly"]


class MemoraSelection(Selection):
    """One history length of a release; every persona and task unless limited."""

    model_config = ConfigDict(extra="forbid")

    split: Split
    """Which history length to run."""
    personas: tuple[str, ...] = ()
    """Persona folder names to run, comma-separated or repeated [default: every persona of the split]."""
    message_limit: None = None
    """Not offered: a persona's history is always ingested whole."""
