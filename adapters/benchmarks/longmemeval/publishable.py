"""LongMemEval's publishable conditions: every question of every type, the official reader prompt,
the official judge prompts and reading, the judge model the official scripts name, no failures.

`print_qa_metrics.py` asserts that every label came from gpt-4o-2024-08-06, so the official judge
model is a condition (the endpoint must report it, or a dated snapshot of it). A typed-protocol
run, or one judged by another model or offline, is diagnostic and says which condition failed.
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.longmemeval.judge import OFFICIAL_JUDGE_MODEL
from benchledger.adapters.benchmarks.longmemeval.official import JUDGE_METHOD
from benchledger.adapters.benchmarks.longmemeval.prompts import TEMPLATE_SHA256
from benchledger.projections.publishable import (
    Check, official_judges, official_prompts, official_scorer, real_models, unsampled_questions, zero_failures,
)

__all__ = ["CONDITIONS"]

CONDITIONS: tuple[Check, ...] = (
    unsampled_questions(), real_models, official_prompts(TEMPLATE_SHA256, "LongMemEval"),
    official_scorer(JUDGE_METHOD, "LongMemEval's official judge (evaluate_qa.py)"),
    official_judges((OFFICIAL_JUDGE_MODEL,), "the judge print_qa_metrics.py asserts"), zero_failures,
)
