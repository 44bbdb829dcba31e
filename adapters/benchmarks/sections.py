"""What every benchmark's report sections share: finding the scorer a section folds, and the note
a section shows when a run has no such scorer.

A section folds one scorer's verdicts: the report's own scorer when it is of the section's method
(`ScorerStarted.method`), else the newest scorer of that method, so `show RUN` shows the official
statistics beside any other scorer's table and `show RUN --scorer sN` can pick one.
"""

from __future__ import annotations

from benchledger.projections.report import Section
from benchledger.projections.state import RunState

__all__ = ["scorer_of_method", "missing_scorer_section"]


def scorer_of_method(state: RunState, report_scorer: str | None, method: str) -> str | None:
    """The scorer a section of `method` folds, or None when the run has none."""
    if report_scorer in state.scorers and state.scorers[report_scorer].method == method:
        return report_scorer
    return next((sid for sid in reversed(state.scorers) if state.scorers[sid].method == method), None)


def missing_scorer_section(name: str, title: str, what: str) -> Section:
    """The note shown when the run has no scorer of the benchmark's official method."""
    return Section(name=name, title=title, official=False, values={}, lines=[
        f"no {what} on this run: `benchledger rejudge RUN --protocol official` rescores the recorded "
        "answers with it (no answer-model call)"])
