"""LoCoMo's publishable conditions: the whole release file, every category, real models, no failures.

These stand until LoCoMo's official protocol is wired; a typed-protocol run is diagnostic under it.
"""

from __future__ import annotations

from benchledger.projections.publishable import (
    Check, Condition, no_limits, real_models, unsampled_questions, zero_failures,
)
from benchledger.projections.state import RunState
from benchledger.projections.tallies import KindTally

__all__ = ["CONDITIONS", "RELEASE_CONVERSATIONS"]

RELEASE_CONVERSATIONS = 10
"""Conversations in the full release (`locomo10.json`)."""


def complete_file(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    conversations = len(state.corpus.expected_documents) if state.corpus else 0
    if conversations < RELEASE_CONVERSATIONS:
        return Condition(name="complete_file", met=False,
                         reason=f"{conversations} conversation(s) run; the full release has {RELEASE_CONVERSATIONS}")
    return Condition(name="complete_file", met=True, reason=f"all {conversations} conversations")


def all_categories(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    condition = unsampled_questions()(state, overall, scorer)
    return condition.model_copy(update={"name": "all_categories"})


CONDITIONS: tuple[Check, ...] = (complete_file, all_categories, no_limits, real_models, zero_failures)
