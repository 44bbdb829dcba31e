"""Reports and views of recorded runs, under each run's own benchmark's conditions and report folds.

The folds are pure projections; which conditions apply, and which sections a report adds (the
benchmark's official statistics), is the benchmark adapter's declaration, found through the
benchmark registry by the name the run recorded. A run whose benchmark has no installed adapter is
reported, and is never publishable (`known_benchmark` is not met).
"""

from __future__ import annotations

from collections.abc import Sequence

from benchledger.adapters.benchmarks.registry import ReportFolds, benchmark_named, folds_for_benchmark
from benchledger.errors import BadInput
from benchledger.projections.headline import evaluation, scorer_verdicts
from benchledger.projections.publishable import Check
from benchledger.projections.report import Report, Section, report_from_state
from benchledger.projections.retrieval import retrieval_metrics
from benchledger.projections.state import RunState, fold_run
from benchledger.projections.tallies import CURRENT_SCORING_RULE
from benchledger.projections.views import run_views

__all__ = ["conditions_of", "folds_of", "report_of", "retrieval_of", "refold_views", "combined_report", "with_headline"]


def folds_of(state: RunState) -> ReportFolds:
    """The conditions and report folds of the run's benchmark."""
    return folds_for_benchmark(state.started.config.benchmark) if state.started else ReportFolds(())


def conditions_of(state: RunState) -> tuple[Check, ...]:
    """The publishable conditions of the run's benchmark."""
    return folds_of(state).conditions


def with_headline(state: RunState) -> RunState:
    """The state, its headline scorer chosen under its benchmark's conditions (`projections.headline`),
    so what reads `default_scorer` (questions, exports, prices, compare) leads with the report's scorer."""
    if len(state.scorers) > 1:
        folds = folds_of(state)
        state.headline_scorer = scorer_verdicts(state, evaluation(state, folds.conditions, folds.sections)).headline
    return state


def report_of(state: RunState, *, scorer_id: str | None = None,
              scoring_rule: int = CURRENT_SCORING_RULE) -> Report:
    """The report of a folded run, under its benchmark's conditions, with its benchmark's sections."""
    folds = folds_of(state)
    return report_from_state(state, conditions=folds.conditions, scorer_id=scorer_id,
                             scoring_rule=scoring_rule, sections=folds.sections, kind=folds.kind)


def retrieval_of(stored_events: Sequence, *, k: int | None = None) -> dict:
    """A retrieval run's metrics, with its benchmark's official retrieval numbers."""
    events = list(stored_events)
    state = fold_run(events[0].run_id if events else "", events)
    return retrieval_metrics(events, k=k, official=folds_of(state).retrieval_official)


def refold_views(run_id: str, stored_events: Sequence) -> dict[str, tuple[int, object]]:
    """What `Ledger.reader.verify(refold=...)` compares each stored view with."""
    folds = folds_of(fold_run(run_id, stored_events))
    return run_views(run_id, stored_events, folds.conditions, sections=folds.sections,
                     retrieval_official=folds.retrieval_official, kind=folds.kind)


def combined_report(states: Sequence[RunState]) -> tuple[Section, list[Report]]:
    """The benchmark's report over several runs (GroupMemBench: one per domain, the paper's total),
    each run under its default scorer, with each run's own report."""
    names = {state.started.config.benchmark for state in states if state.started is not None}
    if len(names) != 1 or any(state.started is None for state in states):
        raise BadInput(f"runs to combine must be runs of one benchmark, not {', '.join(sorted(names)) or 'none'}",
                       field="runs")
    benchmark = benchmark_named(names.pop())
    reports = [report_of(state) for state in states]
    scorers = [state.default_scorer for state in states]
    return benchmark.combine(states, scorers), reports
