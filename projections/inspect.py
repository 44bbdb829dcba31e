"""Views for inspecting one run: every failure (resolved or not), its questions, one question in full.

Pure like every projection; the caller looks blobs up (packed contexts, raw outputs) by hash.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, ConfigDict

from benchledger.errors import BadInput
from benchledger.ledger.events import ContextRecalled, Judged, QuestionAnswered
from benchledger.projections.diff import pick_scorer
from benchledger.projections.retrieval import question_scores
from benchledger.projections.state import RunState

__all__ = [
    "FailureEntry", "failure_entries", "group_failures", "QuestionDetail", "question_detail", "QuestionRow",
    "question_rows", "VERDICT_FILTERS",
]

VERDICT_FILTERS = ("correct", "incorrect", "unclear", "failed", "pending")
"""What `questions --verdict` selects: a verdict, a failed question, or one not judged yet."""


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
    """True when a later success of the same stage resolved it (a judge failure: a verdict of its own scorer)."""


def failure_entries(state: RunState, *, stage: str | None = None) -> list[FailureEntry]:
    """Every failure of the run, each resolved or open by its own stage and scorer (`QuestionState.resolved`)."""
    entries = []
    unresolved_run = {id(f) for f in state.unresolved_run_failures}
    for failure in state.run_failures:
        entries.append(FailureEntry(stage=failure.stage, question_id=None, kind=None, scorer_id=failure.scorer_id,
                                    error_class=failure.error_class, message=failure.message,
                                    attempt=failure.attempt, resolved=id(failure) not in unresolved_run))
    for question in state.questions.values():
        for failure in question.failures:
            entries.append(FailureEntry(
                stage=failure.stage, question_id=question.planned.question_id, kind=question.planned.kind,
                scorer_id=failure.scorer_id, error_class=failure.error_class, message=failure.message,
                attempt=failure.attempt, resolved=question.resolved(failure)))
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
        gold=planned.gold, abstention=planned.abstention, status=question.status(state.default_scorer),
        recalled=question.recalled, answered=question.answered, judged=dict(question.judged),
        failures=[e for e in failure_entries(state) if e.question_id == question_id],
    )


class QuestionRow(BaseModel):
    """One question of a run as `benchledger questions` lists it."""

    model_config = ConfigDict(frozen=True)

    question_id: str
    kind: str
    text: str
    status: str
    """judged, failed, answered, recalled or pending (for the scorer)."""
    verdict: str | None
    """correct, incorrect or unclear under the scorer; None unless judged (and in a retrieval run)."""
    recall: float | None = None
    """Retrieval runs: recall@k of the question's evidence (None when not recalled or it has none)."""


def _selected_status(row: QuestionRow) -> str:
    if row.verdict is not None:
        return row.verdict
    return "failed" if row.status == "failed" else "pending"


def question_rows(state: RunState, *, kinds: tuple[str, ...] = (), verdict: str | None = None,
                  scorer_id: str | None = None) -> list[QuestionRow]:
    """The run's questions in plan order, of the given kinds and verdict (BadInput naming what exists)."""
    known = sorted({q.planned.kind for q in state.questions.values()})
    unknown = sorted(set(kinds) - set(known))
    if unknown:
        raise BadInput(f"run {state.run_id} has no question of kind {', '.join(unknown)}; its kinds: "
                       f"{', '.join(known) or 'none'}", field="kind")
    if verdict is not None and verdict not in VERDICT_FILTERS:
        raise BadInput(f"unknown verdict {verdict!r}; use one of {', '.join(VERDICT_FILTERS)}", field="verdict")
    if state.mode == "retrieval":
        if verdict is not None:
            raise BadInput(f"run {state.run_id} is a retrieval run: it has no verdicts; select with --kind",
                           field="verdict")
        scores = question_scores(state)
        rows = [QuestionRow(question_id=qid, kind=q.planned.kind, text=q.planned.text,
                            status="recalled" if q.recalled else q.status(None), verdict=None,
                            recall=(score.recall if (score := scores.get(qid, ("", None))[1]) else None))
                for qid, q in state.questions.items()]
    else:
        scorer = pick_scorer(state, scorer_id)
        rows = [QuestionRow(question_id=qid, kind=q.planned.kind, text=q.planned.text, status=q.status(scorer),
                            verdict=q.judged[scorer].verdict if scorer in q.judged else None)
                for qid, q in state.questions.items()]
    return [row for row in rows if (not kinds or row.kind in kinds)
            and (verdict is None or _selected_status(row) == verdict)]
