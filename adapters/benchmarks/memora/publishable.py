"""Memora's publishable conditions: every persona and question of the split, the official answer and
judge prompts, the official three-judge vote by the judges the README names, no failures.

Memora scores a run over a split's personas (Table 3 averages per-persona reports), so a run that
names some personas, limits questions or leaves a task out is diagnostic. The judges are
configurable (`--judge-models`); only the official trio (`prompts.OFFICIAL_JUDGES`) is publishable.
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.memora.official import MAJORITY_METHOD
from benchledger.adapters.benchmarks.memora.prompts import OFFICIAL_JUDGES, TEMPLATE_SHA256
from benchledger.projections.publishable import (
    Check, Condition, official_judges, official_prompts, official_scorer, real_models, run_config,
    unsampled_questions, zero_failures,
)
from benchledger.projections.state import RunState
from benchledger.projections.tallies import KindTally

__all__ = ["CONDITIONS"]


def all_personas(state: RunState, overall: KindTally, scorer: str | None) -> Condition:
    chosen = getattr(run_config(state).selection, "personas", ()) or ()
    if chosen:
        return Condition(name="all_personas", met=False,
                         reason=f"personas chosen: {', '.join(chosen)} (Table 3 averages every persona of the split)")
    return Condition(name="all_personas", met=True, reason="every persona of the split")


CONDITIONS: tuple[Check, ...] = (
    all_personas, unsampled_questions(), real_models, official_prompts(TEMPLATE_SHA256, "Memora"),
    official_scorer(MAJORITY_METHOD, "Memora's official three-judge vote"),
    official_judges(tuple(OFFICIAL_JUDGES.values()), "the judges Memora's README names"), zero_failures,
)
