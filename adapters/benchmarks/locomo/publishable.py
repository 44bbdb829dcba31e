"""LoCoMo's publishable conditions: the official release file, whole, every category, real models,
the official prompts and the official scorer, no failures.

`official_release`: the file read is `locomo10.json` as published (its SHA-256 is pinned in
`pins.json`, whatever the file is called and wherever it came from) and every one of its 1,986
questions was planned; a file of ten "conversations" that are not the release's, or a part of it,
is diagnostic and says so.

The release (`locomo10.json`) holds ten conversations, so a run of exactly ten is a complete file
(the seven of the dev file `locomo-dev.json` are diagnostic by design; eleven are not the release
either); every category must be asked, unsampled.
The answers must come from LoCoMo's own QA prompt (`--protocol official`, its templates pinned by
SHA-256, a real answer model), and the report's scorer must be the official token F1 (LoCoMo
names no judge model: its score is a rule). A typed-protocol run, or a report of the LLM-judge
scorer, is diagnostic and says which of these failed.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchledger.adapters.benchmarks.locomo.official import F1_METHOD
from benchledger.adapters.benchmarks.locomo.prompts import OFFICIAL_SHA256
from benchledger.adapters.benchmarks.locomo.source import PINS, RELEASE_FILE
from benchledger.ledger.events import ReleaseFile
from benchledger.projections.publishable import (
    Check, Condition, no_limits, official_prompts, official_scorer, real_models, unsampled_questions, zero_failures,
)
from benchledger.projections.releases import official_release
from benchledger.projections.state import RunState
from benchledger.projections.tallies import KindTally

__all__ = ["CONDITIONS", "RELEASE_CONVERSATIONS", "RELEASE_QUESTIONS"]

RELEASE_CONVERSATIONS = 10
"""Conversations in the full release (`locomo10.json`)."""
RELEASE_QUESTIONS = 1986
"""QA items in the full release."""


def _release_file(file: ReleaseFile) -> str:
    return RELEASE_FILE  # LoCoMo reads one file, the release, whatever it is named


def _whole(state: RunState, files: Sequence[ReleaseFile]) -> str | None:
    planned = len(state.questions)
    return None if planned == RELEASE_QUESTIONS else f"{planned:,} of {RELEASE_QUESTIONS:,} LoCoMo questions"


def complete_file(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    conversations = len(state.corpus.expected_documents) if state.corpus else 0
    if conversations != RELEASE_CONVERSATIONS:  # more is not the release either
        return Condition(name="complete_file", met=False,
                         reason=f"{conversations} conversation(s) run; the full release has {RELEASE_CONVERSATIONS}")
    return Condition(name="complete_file", met=True, reason=f"all {conversations} conversations")


def all_categories(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    condition = unsampled_questions()(state, overall, scorer)
    return condition.model_copy(update={"name": "all_categories"})


CONDITIONS: tuple[Check, ...] = (
    official_release("LoCoMo", PINS, _whole, locate=_release_file), complete_file, all_categories, no_limits, real_models,
    official_prompts(OFFICIAL_SHA256, "LoCoMo"),
    official_scorer(F1_METHOD, "LoCoMo's official token F1"), zero_failures,
)
