"""LongMemEval-V2's publishable conditions: the official release, every question of the domain and tier, the
official reader prompts and scorer, the models the leaderboard requires, no failures.

The leaderboard's step 1 (`submission_utils.py`) refuses a run unless its reader model name
contains `qwen3.5-9b` and its evaluator model name contains `gpt-5.2`: both are required, so both
are a condition here (`leaderboard_models`), checked on what was asked and on what the endpoint
reported for the answers and for the LLM-checked verdicts (the four deterministic functions ask no
model).

`official_release`: the release is the gated Hugging Face dataset, and no public source states the
SHA-256 of its files, so its pin table lists them unpinned and the condition says `no pin for
questions.jsonl: official_release cannot be checked`, fetched or not: a run of LongMemEval-V2 is
diagnostic until its files have pins. (Every question of the domain must be planned, too.)
"""

from __future__ import annotations

from collections.abc import Sequence

from benchledger.adapters.benchmarks.longmemeval_v2.official import METHOD
from benchledger.adapters.benchmarks.longmemeval_v2.prompts import TEMPLATE_SHA256
from benchledger.adapters.benchmarks.longmemeval_v2.source import PINS
from benchledger.projections.publishable import (
    Check, Condition, models_reported, official_prompts, official_scorer, real_models, run_config,
    unsampled_questions, zero_failures,
)
from benchledger.ledger.events import ReleaseFile
from benchledger.projections.releases import official_release
from benchledger.projections.state import RunState
from benchledger.projections.tallies import KindTally

__all__ = ["CONDITIONS", "LEADERBOARD_READER", "LEADERBOARD_JUDGE"]

LEADERBOARD_READER = "qwen3.5-9b"
LEADERBOARD_JUDGE = "gpt-5.2"


def _whole(state: RunState, files: Sequence[ReleaseFile]) -> str | None:
    planned, available = len(state.questions), state.plan.available if state.plan else 0
    return None if planned == available and planned else \
        f"{planned:,} of {available:,} LongMemEval-V2 questions of the domain"


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
    official_release("LongMemEval-V2", PINS, _whole), unsampled_questions(), real_models, official_prompts(TEMPLATE_SHA256, "LongMemEval-V2"),
    official_scorer(METHOD, "LongMemEval-V2's official scoring (harness score_prediction)"), leaderboard_models,
    zero_failures,
)
