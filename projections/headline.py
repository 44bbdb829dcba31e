"""Which scorer a run's report leads with, and one line for each of the others.

A run holds its own scorers (s1, and the companions its protocol opens beside it, such as
LoCoMo's LLM judge) and one more per rejudge. The report's headline is the run's **first scorer that
meets the benchmark's protocol**, else its first scorer. A scorer meets the protocol when no
publishable condition fails under it that holds under another of the run's scorers: what fails
under every scorer (a question limit, an offline answerer) is the run's, not the scorer's. So:

- a rejudge by a lenient judge, an interrupted rejudge, or one whose judge calls failed never takes
  the headline from the scorer the protocol names, whatever order they were added in;
- a rejudge by the protocol's own judge or method does take it from a run judged otherwise (a typed
  LoCoMo run rescored with its official token F1, a GroupMemBench run judged again by gpt-5);
- when no scorer is the protocol's more than another, the run's first scorer leads.

Every scorer gets a `ScorerLine`: its judge, when it was added, its headline number, its own
verdict and failure counts (a failure recorded under a scorer is counted under that scorer only),
and the conditions that keep it from being the headline. Pure, like every projection; the
conditions and sections are the benchmark's declarations, passed in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from benchledger.projections.publishable import Check, Condition, evaluate_conditions
from benchledger.projections.state import RunState
from benchledger.projections.tallies import CURRENT_SCORING_RULE, KindTally, tally

if TYPE_CHECKING:
    from benchledger.projections.report import Section

__all__ = ["Evaluate", "Evaluation", "ScorerLine", "ScorerVerdicts", "choose_headline", "evaluation", "scorer_verdicts"]

Evaluation = tuple[KindTally, "list[Condition]", "list[Section]"]
"""One scorer's overall tally, the benchmark's conditions under it, and its sections."""
Evaluate = Callable[[str], Evaluation]
"""scorer id -> its `Evaluation` (the report passes a memoised one, so the headline's is folded once)."""


def evaluation(state: RunState, conditions: Sequence[Check], sections: Sequence[Callable[..., "Section | None"]] = (),
               scoring_rule: int = CURRENT_SCORING_RULE) -> Evaluate:
    """The plain `Evaluate` of a run under its benchmark's conditions and section folds."""
    def evaluate(scorer: str) -> Evaluation:
        overall, _ = tally(state, scorer, scoring_rule)
        return (overall, evaluate_conditions(state, overall, scorer, conditions),
                [section for fold in sections if (section := fold(state, scorer)) is not None])
    return evaluate


class ScorerLine(BaseModel):
    """One scorer of a run, as the report lists it beside the headline."""

    model_config = ConfigDict(frozen=True)

    scorer_id: str
    judge: str
    """The judge model (every voting judge, joined with +), or the scoring method that asks none."""
    protocol: str
    """The protocol it judged under (reference, typed, official)."""
    method: str = ""
    """The scoring method the benchmark names ('' for a plain judge model)."""
    added_at: str = ""
    """When its ScorerStarted was appended (the run's start for the run's own first scorer)."""
    position: int = 0
    """The run position of its ScorerStarted (who added it is the writer of that row, on a shared ledger)."""
    headline: bool = False
    """True for the scorer the report leads with."""
    meets_protocol: bool = False
    """True when no condition fails under it that holds under another of the run's scorers."""
    not_met: list[str] = []
    """Conditions failing under it that hold under another scorer: why it is not the protocol's."""
    score: float | None = None
    """Its headline number: the benchmark's own overall number where it declares one, else accuracy."""
    metric: str = "accuracy"
    """What `score` measures."""
    answered: int = 0
    """Recorded answers it could judge."""
    judged: int = 0
    """Answers it judged."""
    failed: int = 0
    """Questions whose latest failure bearing on it is unresolved (its own judge failures among them)."""
    failures_by_error: dict[str, int] = {}
    """Its own judge failures still open, by error class, most common first."""


class ScorerVerdicts(BaseModel):
    """The run's scorers under the benchmark's conditions: the headline and one line each."""

    model_config = ConfigDict(frozen=True)

    headline: str | None
    lines: list[ScorerLine]


def _judge(state: RunState, scorer_id: str) -> str:
    started = state.scorers[scorer_id]
    if started.judge_models:
        return " + ".join(started.judge_models)
    return started.judge_model


def _added(state: RunState, scorer_id: str) -> tuple[int, str]:
    """(position, time) its ScorerStarted was appended: the run's own first scorer shares the start's
    segment (its ScorerStarted follows RunStarted in the run's first appends)."""
    for segment in state.segments:
        if segment.kind == "scorer" and segment.scorer_id == scorer_id:
            return segment.position, segment.recorded_at
    start = state.segments[0] if state.segments else None
    return (start.position, start.recorded_at) if start else (0, "")


def choose_headline(failed_by_scorer: dict[str, set[str]],
                    complete: set[str]) -> tuple[str | None, dict[str, set[str]]]:
    """(the first scorer that meets the protocol, else the first; per scorer the conditions that keep
    it from meeting it), from the conditions failing under each scorer (in start order) and the scorers
    that judged every recorded answer.

    What fails under every complete scorer is the run's; a scorer that left answers unjudged (an
    interrupted rejudge, one whose judge calls failed) is measured against them but never sets the
    measure, since a condition it passes by judging nothing (no verdict came from a bad endpoint)
    says nothing about the protocol.
    """
    if not failed_by_scorer:
        return None, {}
    measured = [failed for scorer, failed in failed_by_scorer.items() if scorer in complete] \
        or list(failed_by_scorer.values())
    everywhere = set.intersection(*measured)
    own = {scorer: (failed - everywhere) or ({"every_answer_judged"} if complete and scorer not in complete else set())
           for scorer, failed in failed_by_scorer.items()}
    meeting = [scorer for scorer, failed in own.items() if not failed]
    return (meeting or list(failed_by_scorer))[0], own


def scorer_verdicts(state: RunState, evaluate: Evaluate) -> ScorerVerdicts:
    """Every scorer of the run as `evaluate` finds it under the benchmark's declarations, and which leads."""
    evaluated = {scorer: evaluate(scorer) for scorer in state.scorers}
    headline, own = choose_headline({scorer: {c.name for c in checked if not c.met}
                                     for scorer, (_, checked, _) in evaluated.items()},
                                    {scorer for scorer in evaluated if state.complete(scorer)})
    lines = []
    for scorer, (overall, checked, folded) in evaluated.items():
        section = next((s for s in folded if s.scorer_id == scorer and s.headline is not None), None)
        position, added_at = _added(state, scorer)
        started = state.scorers[scorer]
        errors = Counter(failure.error_class for q in state.questions.values()
                         if (failure := q.unresolved_failure(scorer)) is not None and failure.stage == "judge")
        lines.append(ScorerLine(
            scorer_id=scorer, judge=_judge(state, scorer), protocol=started.protocol, method=started.method,
            added_at=added_at, position=position, headline=scorer == headline, meets_protocol=not own[scorer],
            not_met=[c.name for c in checked if c.name in own[scorer]]
            + (["every_answer_judged"] if "every_answer_judged" in own[scorer] else []),
            score=overall.accuracy if section is None else section.headline,
            metric="accuracy" if section is None else section.headline_metric or section.name,
            answered=overall.answered, judged=overall.judged, failed=overall.failed,
            failures_by_error=dict(errors.most_common())))
    return ScorerVerdicts(headline=headline, lines=lines)
