"""Reports and views of recorded runs, under each run's own benchmark's publishable conditions.

The folds are pure projections; which conditions apply is the benchmark adapter's declaration,
found through the benchmark registry by the name the run recorded. A run whose benchmark has no
installed adapter is reported, and is never publishable (`known_benchmark` is not met).
"""

from __future__ import annotations

from collections.abc import Sequence

from benchledger.adapters.benchmarks.registry import conditions_for_benchmark
from benchledger.projections.publishable import Check
from benchledger.projections.report import Report, report_from_state
from benchledger.projections.state import RunState, fold_run
from benchledger.projections.tallies import CURRENT_SCORING_RULE
from benchledger.projections.views import run_views

__all__ = ["conditions_of", "report_of", "refold_views"]


def conditions_of(state: RunState) -> tuple[Check, ...]:
    """The publishable conditions of the run's benchmark."""
    return conditions_for_benchmark(state.started.config.benchmark) if state.started else ()


def report_of(state: RunState, *, scorer_id: str | None = None,
              scoring_rule: int = CURRENT_SCORING_RULE) -> Report:
    """The report of a folded run, under its benchmark's conditions."""
    return report_from_state(state, conditions=conditions_of(state), scorer_id=scorer_id,
                             scoring_rule=scoring_rule)


def refold_views(run_id: str, stored_events: Sequence) -> dict[str, tuple[int, object]]:
    """What `Ledger.verify(refold=...)` compares each stored view with."""
    return run_views(run_id, stored_events, conditions_of(fold_run(run_id, stored_events)))
