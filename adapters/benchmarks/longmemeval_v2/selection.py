"""What a LongMemEval-V2 run selects: one domain, one haystack tier, the reader's memory-context budget."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from benchledger.settings import Selection

__all__ = ["LongMemEvalV2Selection", "Domain", "Tier", "Counter", "STAND_IN_COUNTER"]

Domain = Literal["web", "enterprise"]
Tier = Literal["small", "medium"]
Counter = Literal["qwen-chat-template-stand-in"]
STAND_IN_COUNTER: Counter = "qwen-chat-template-stand-in"


class LongMemEvalV2Selection(Selection):
    """Every question of one domain over one haystack tier, unless limited."""

    model_config = ConfigDict(extra="forbid")

    domain: Domain
    """Which domain's questions to run (web or enterprise)."""
    tier: Tier = "small"
    """Which haystack file: haystacks/lme_v2_small.json or lme_v2_medium.json."""
    memory_context_max_tokens: int = Field(default=200000, ge=1)
    """The reader's memory-context budget: the longest prefix of whole recalled items within it is sent
    (the official default, 200000)."""
    memory_context_counter: Counter = STAND_IN_COUNTER
    """How the memory context is counted: the official count is Qwen3.5-9B's processor; this stand-in
    renders the chat template and counts its pieces (63 per image), and the run records it."""
    message_limit: None = None
    """Not offered: a haystack is always ingested whole."""
