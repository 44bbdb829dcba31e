"""Views for inspecting one run: every failure (resolved or not), and one question in full.

Pure like every projection; the caller looks blobs up (packed contexts, raw outputs) by hash.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, ConfigDict

from benchledger.ledger.events import ContextRecalled, Judged, QuestionAnswered
from benchledger.projections.state import RunState

__all__ = ["FailureEntry", "failure_entries", "group_failures", "QuestionDetail", "question_detail"]


class FailureEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    stage: str
    question_id: str | None
    kind: str | None
    scorer_id: str | None
    error_class: str
    message: str
    attempt: int
    resolved: bool
    """True when a later retry or resume completed the stage."""


def failure_entries(state: RunState, *, stage: str | None = None) -> list[FailureEntry]:
    scorer = state.latest_scorer
    entries = []
    unresolved_run = {id(f) for f in state.unresolved_run_failures}
    for failure in state.run_failures:
        entries.append(FailureEntry(stage=failure.stage, question_id=None, kind=None, scorer_id=failure.scorer_id,
                                    error_class=failure.error_class, message=failure.message,
                                    attempt=failure.attempt, resolved=id(failure) not in unresolved_run))
    for question in state.questions.values():
        open_failure = question.unresolved_failure(scorer)
        for failure in question.failures:
            entries.append(FailureEntry(
                stage=failure.stage, question_id=question.planned.question_id, kind=question.planned.kind,
                scorer_id=failure.scorer_id, error_class=failure.error_class, message=failure.message,
                attempt=failure.attempt, resolved=failure is not open_failure))
    return [e for e in entries if stage is None or e.stage == stage]


def group_failures(entries: list[FailureEntry]) -> list[tuple[str, int, list[str]]]:
    """(error_class, count, question ids) most frequent first."""
    counts = Counter(e.error_class for e in entries)
    return [(error, count, [e.question_id or "-" for e in entries if e.error_class == error])
            for error, count in counts.most_common()]


class QuestionDetail(BaseModel):
    model_config = ConfigDict(frozen=True)

    question_id: str
    kind: str
    text: str
    asking_user: str | None
    gold: str
    abstention: bool
    status: str
    recalled: ContextRecalled | None
    answered: QuestionAnswered | None
    judged: dict[str, Judged]
    failures: list[FailureEntry]


def question_detail(state: RunState, question_id: str) -> QuestionDetail:
    question = state.questions[question_id]
    planned = question.planned
    return QuestionDetail(
        question_id=planned.question_id, kind=planned.kind, text=planned.text, asking_user=planned.asking_user,
        gold=planned.gold, abstention=planned.abstention, status=question.status(state.latest_scorer),
        recalled=question.recalled, answered=question.answered, judged=dict(question.judged),
        failures=[e for e in failure_entries(state) if e.question_id == question_id],
    )
