"""Memora's three-judge majority, as `MultiJudgeEvaluator` (model track) and the agent track vote.

Only valid judges vote: a judge whose `llm_answer` is "error" is left out. A criterion is correct
iff more than half of the valid judges found it correct, so one valid judge decides alone, a
1-1 split is not correct, and with no valid judge the criterion is not correct either (quirk 24).
The consensus answer is the more frequent of "yes" and "no" among valid judges; on a tie it is
"tie" in the model track and "no" in the agent track. agreement_rate = max(yes, no) / valid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from benchledger.adapters.benchmarks.memora.judge_verdict import JudgeVerdict

__all__ = ["CriterionVote", "majority"]


@dataclass(frozen=True)
class CriterionVote:
    is_correct: bool
    llm_answer: str
    """Consensus: "yes", "no", "tie" (model track) or "error" (no valid judge)."""
    correct_votes: int | None
    """None when no judge was valid (the official result then has no such field)."""
    num_valid_judges: int
    agreement_rate: float
    confidence: float
    """Mean confidence of the valid judges (0.0 with none)."""


def majority(verdicts: Sequence[JudgeVerdict], *,
             track: Literal["model", "agent"] = "model") -> CriterionVote:
    valid = [v for v in verdicts if v.llm_answer != "error"]
    if not valid:
        return CriterionVote(False, "error", None if track == "model" else 0, 0, 0.0, 0.0)
    correct = sum(1 for v in valid if v.is_correct)
    yes = sum(1 for v in valid if v.llm_answer == "yes")
    no = sum(1 for v in valid if v.llm_answer == "no")
    if track == "model":
        consensus = "yes" if yes > no else "no" if no > yes else "tie"
    else:
        consensus = "yes" if yes > no else "no"
    return CriterionVote(
        is_correct=correct > len(valid) / 2, llm_answer=consensus, correct_votes=correct,
        num_valid_judges=len(valid), agreement_rate=max(yes, no) / len(valid),
        confidence=sum(v.confidence for v in valid) / len(valid),
    )
