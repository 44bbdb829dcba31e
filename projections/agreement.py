"""Judge agreement: how often two scorers of one run give the same verdict, and Cohen's kappa.

Both scorers judged the same recorded answers, so the comparison is per question over the
questions both judged; kappa is over the three verdict labels (correct, incorrect, unclear).
The disagreements are listed with both verdicts and both reasons, so a person can read why.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from benchledger.errors import BadInput
from benchledger.projections.state import RunState
from benchledger.projections.stats import cohen_kappa

__all__ = ["AGREEMENT_VERSION", "AgreementSlice", "Disagreement", "Agreement", "judge_agreement", "pick_scorer_pair"]

AGREEMENT_VERSION = 1


class AgreementSlice(BaseModel):
    model_config = ConfigDict(frozen=True)

    both_judged: int
    agreed: int
    agreement_rate: float | None
    """agreed / both_judged; None when no question was judged by both."""
    kappa: float | None
    """Cohen's kappa over the verdict labels; None when no question was judged by both."""


class Disagreement(BaseModel):
    model_config = ConfigDict(frozen=True)

    question_id: str
    kind: str
    verdict_a: str
    verdict_b: str
    reason_a: str
    reason_b: str


class Agreement(BaseModel):
    model_config = ConfigDict(frozen=True)

    run_id: str
    scorer_a: str
    scorer_b: str
    judge_model_a: str
    judge_model_b: str
    overall: AgreementSlice
    by_kind: dict[str, AgreementSlice]
    disagreements: list[Disagreement]
    judged_by_one: list[str]
    """Question ids only one of the two scorers judged (left out of every figure)."""
    agreement_version: int


def pick_scorer_pair(state: RunState, scorers: tuple[str, str] | None = None) -> tuple[str, str]:
    """The asked pair (checked), or the run's two newest scorers (older first)."""
    state.require_answers("compare judges on")
    known = list(state.scorers)
    if scorers is None:
        if len(known) < 2:
            raise BadInput(
                f"run {state.run_id} has {len(known)} scorer(s) ({', '.join(known) or 'none'}); "
                f"agreement needs two: judge it again with `benchledger rejudge {state.run_id}`",
                field="scorers")
        return known[-2], known[-1]
    for scorer in scorers:
        if scorer not in state.scorers:
            raise BadInput(f"run {state.run_id} has no scorer {scorer!r} (its scorers: {', '.join(known) or 'none'})",
                           field="scorers")
    if scorers[0] == scorers[1]:
        raise BadInput(f"give two different scorers, not {scorers[0]!r} twice", field="scorers")
    return scorers[0], scorers[1]


def judge_agreement(state: RunState, scorers: tuple[str, str] | None = None) -> Agreement:
    """Agreement of two scorers on one run (default: its two newest). Pure."""
    scorer_a, scorer_b = pick_scorer_pair(state, scorers)
    pairs: list[tuple[str, str, str, str]] = []  # (kind, question id, verdict a, verdict b)
    disagreements, judged_by_one = [], []
    for qid, question in state.questions.items():
        judged_a, judged_b = question.judged.get(scorer_a), question.judged.get(scorer_b)
        if judged_a is None or judged_b is None:
            if judged_a is not None or judged_b is not None:
                judged_by_one.append(qid)
            continue
        kind = question.planned.kind
        pairs.append((kind, qid, judged_a.verdict, judged_b.verdict))
        if judged_a.verdict != judged_b.verdict:
            disagreements.append(Disagreement(question_id=qid, kind=kind, verdict_a=judged_a.verdict,
                                              verdict_b=judged_b.verdict, reason_a=judged_a.reason,
                                              reason_b=judged_b.reason))
    kinds = sorted({kind for kind, *_ in pairs})
    return Agreement(
        run_id=state.run_id, scorer_a=scorer_a, scorer_b=scorer_b,
        judge_model_a=state.scorers[scorer_a].judge_model, judge_model_b=state.scorers[scorer_b].judge_model,
        overall=_slice([(a, b) for _, _, a, b in pairs]),
        by_kind={kind: _slice([(a, b) for k, _, a, b in pairs if k == kind]) for kind in kinds},
        disagreements=disagreements, judged_by_one=judged_by_one, agreement_version=AGREEMENT_VERSION,
    )


def _slice(verdicts: list[tuple[str, str]]) -> AgreementSlice:
    n = len(verdicts)
    if n == 0:
        return AgreementSlice(both_judged=0, agreed=0, agreement_rate=None, kappa=None)
    agreed = sum(a == b for a, b in verdicts)
    kappa = cohen_kappa([a for a, _ in verdicts], [b for _, b in verdicts])
    return AgreementSlice(both_judged=n, agreed=agreed, agreement_rate=agreed / n, kappa=kappa)
