"""LongMemEval-V2's publishable conditions: the official release, every question of the domain and tier, the
official reader prompts and scorer, the models the leaderboard requires, no failures.

The leaderboard's step 1 (`submission_utils.py`) refuses a run unless its reader model name
contains `qwen3.5-9b` and its evaluator model name contains `gpt-5.2`: both are required, so both
are a condition here (`leaderboard_models`), checked on what was asked and on what the endpoint
reported for the answers and for the LLM-checked verdicts (the four deterministic functions ask no
model). The official release is the gated Hugging Face dataset; benchledger has never seen it, so
its question set is not pinned yet and `official_release` cannot be met until it is (a synthetic or
edited release never passes).
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.longmemeval_v2.official import METHOD
from benchledger.adapters.benchmarks.longmemeval_v2.prompts import TEMPLATE_SHA256
from benchledger.projections.publishable import (
    Check, Condition, models_reported, official_prompts, official_scorer, real_models, run_config,
    unsampled_questions, zero_failures,
)
from benchledger.projections.state import RunState
from benchledger.projections.tallies import KindTally

__all__ = ["CONDITIONS", "LEADERBOARD_READER", "LEADERBOARD_JUDGE", "RELEASED_QUESTION_SETS"]

LEADERBOARD_READER = "qwen3.5-9b"
LEADERBOARD_JUDGE = "gpt-5.2"
RELEASED_QUESTION_SETS: dict[str, tuple[int, str]] = {}
"""subset -> (question count, question-set SHA-256) of the official release; empty until it is pinned."""


def official_release(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    subset = run_config(state).subset
    if subset not in RELEASED_QUESTION_SETS:
        return Condition(name="official_release", met=False,
                         reason="the official release (gated: xiaowu0162/longmemeval-v2) is not pinned in benchledger "
                                f"yet, so no {subset} question set can be shown to be it")
    return Condition(name="official_release", met=True, reason=f"the released {subset} question set")


def leaderboard_models(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    cfg = run_config(state)
    started = state.scorers.get(scorer) if scorer else None
    judge = started.judge_model if started else cfg.judge_model
    problems = []
    if LEADERBOARD_READER not in cfg.agent_model.lower():
        problems.append(f"reader {cfg.agent_model}, not Qwen3.5-9B")
    if LEADERBOARD_JUDGE not in (judge or "").lower():
        problems.append(f"judge {judge}, not gpt-5.2")
    answered, judged = models_reported(state, scorer)
    strays = sorted({m for m in answered if LEADERBOARD_READER not in m.lower()} |
                    {m for m in judged if not m.startswith("rule:") and LEADERBOARD_JUDGE not in m.lower()})
    if strays:
        problems.append(f"the endpoint reported {', '.join(strays)}")
    if problems:
        return Condition(name="leaderboard_models", met=False, reason="; ".join(problems))
    return Condition(name="leaderboard_models", met=True, reason=f"reader {cfg.agent_model}, judge {judge}")


CONDITIONS: tuple[Check, ...] = (
    official_release, unsampled_questions(), real_models, official_prompts(TEMPLATE_SHA256, "LongMemEval-V2"),
    official_scorer(METHOD, "LongMemEval-V2's official scoring (harness score_prediction)"), leaderboard_models,
    zero_failures,
)
