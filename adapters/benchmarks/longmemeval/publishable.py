"""LongMemEval's publishable conditions: every question of every type, the official reader prompt,
the official judge prompts and reading, the judge model the official scripts name, no failures.

`print_qa_metrics.py` asserts that every label came from gpt-4o-2024-08-06, so the official judge
model is a condition (the endpoint must report it, or a dated snapshot of it). A typed-protocol
run, or one judged by another model or offline, is diagnostic and says which condition failed.

`official_release`: the file read hashes to its pin (`pins.json`: the three cleaned files at the
hub revision 98d7416, SHA-256 as public sources state them), however it reached the machine, and
all 500 questions of it were planned.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchledger.adapters.benchmarks.longmemeval.judge import OFFICIAL_JUDGE_MODEL
from benchledger.adapters.benchmarks.longmemeval.official import JUDGE_METHOD
from benchledger.adapters.benchmarks.longmemeval.prompts import TEMPLATE_SHA256
from benchledger.adapters.benchmarks.longmemeval.source import PINS
from benchledger.ledger.events import ReleaseFile
from benchledger.projections.publishable import (
    Check, official_judges, official_prompts, official_scorer, real_models, unsampled_questions, zero_failures,
)

from benchledger.projections.releases import official_release
from benchledger.projections.state import RunState

__all__ = ["CONDITIONS", "RELEASE_QUESTIONS"]

RELEASE_QUESTIONS = 500
"""Questions in each released file (S, M and oracle)."""


def _whole(state: RunState, files: Sequence[ReleaseFile]) -> str | None:
    planned = len(state.questions)
    return None if planned == RELEASE_QUESTIONS else f"{planned:,} of {RELEASE_QUESTIONS} LongMemEval questions"

CONDITIONS: tuple[Check, ...] = (
    official_release("LongMemEval", PINS, _whole), unsampled_questions(), real_models,
    official_prompts(TEMPLATE_SHA256, "LongMemEval"),
    official_scorer(JUDGE_METHOD, "LongMemEval's official judge (evaluate_qa.py)"),
    official_judges((OFFICIAL_JUDGE_MODEL,), "the judge print_qa_metrics.py asserts"), zero_failures,
)
