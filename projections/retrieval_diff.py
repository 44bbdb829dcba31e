"""Diff of two retrieval runs: paired per-question recall@k, with a bootstrap interval.

Both runs are scored at the same k, the smaller of their two (a run recalled at k=10 is re-scored
at k=5 from what it recalled, with no memory call). A question is paired when both runs recalled
it and it has evidence; the difference of mean recall (b - a) gets the same seeded percentile
bootstrap as the accuracy diff. Questions whose recall changed are listed (improved, worsened),
and those not paired are listed as excluded with the reason. Runs over different corpora or
questions are refused unless `allow_different`, as for the accuracy diff.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from benchledger.errors import BadInput
from benchledger.projections.config_diff import ConfigDifference, config_differences
from benchledger.projections.diff import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, compare_plans
from benchledger.projections.retrieval import QuestionRetrieval, question_scores
from benchledger.projections.state import RunState
from benchledger.projections.stats import paired_bootstrap_diff

__all__ = ["RETRIEVAL_DIFF_VERSION", "RetrievalDiffSlice", "RetrievalExcluded", "RetrievalDiff", "diff_retrieval"]

RETRIEVAL_DIFF_VERSION = 1


class RetrievalDiffSlice(BaseModel):
    """Paired recall over one kind (or all kinds)."""

    model_config = ConfigDict(frozen=True)

    paired: int
    """Questions with evidence that both runs recalled."""
    recall_a: float | None
    recall_b: float | None
    difference: float | None
    """recall_b - recall_a: mean recall@k over the paired questions."""
    ci_low: float | None
    """95% paired bootstrap interval of the difference (seeded)."""
    ci_high: float | None
    ndcg_a: float | None
    ndcg_b: float | None
    improved: list[str]
    """Question ids whose recall@k is higher in run b."""
    worsened: list[str]
    """Question ids whose recall@k is lower in run b."""


class RetrievalExcluded(BaseModel):
    model_config = ConfigDict(frozen=True)

    question_id: str
    kind: str
    reason: str
    """no evidence, not recalled in a or b, or planned in one run only."""


class RetrievalDiff(BaseModel):
    model_config = ConfigDict(frozen=True)

    run_a: str
    run_b: str
    mode: str = "retrieval"
    k: int
    """The k both runs are scored at (the smaller of their k)."""
    config: list[ConfigDifference]
    """Configuration and provenance fields that differ between the runs."""
    different_corpora: bool
    different_questions: bool
    overall: RetrievalDiffSlice
    by_kind: dict[str, RetrievalDiffSlice]
    excluded: list[RetrievalExcluded]
    bootstrap_seed: int
    bootstrap_resamples: int
    diff_version: int


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _slice(rows: list[tuple[str, QuestionRetrieval, QuestionRetrieval]], resamples: int, seed: int) -> RetrievalDiffSlice:
    a = [sa.recall for _, sa, _ in rows]
    b = [sb.recall for _, _, sb in rows]
    difference = low = high = None
    if rows:
        difference, low, high = paired_bootstrap_diff(a, b, resamples=resamples, seed=seed)
    return RetrievalDiffSlice(
        paired=len(rows), recall_a=_mean(a), recall_b=_mean(b), difference=difference, ci_low=low, ci_high=high,
        ndcg_a=_mean([sa.ndcg for _, sa, _ in rows]), ndcg_b=_mean([sb.ndcg for _, _, sb in rows]),
        improved=[qid for qid, sa, sb in rows if sb.recall > sa.recall],
        worsened=[qid for qid, sa, sb in rows if sb.recall < sa.recall])


def diff_retrieval(state_a: RunState, state_b: RunState, *, allow_different: bool = False,
                   resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> RetrievalDiff:
    """Compare retrieval run b against run a question by question. Pure and reproducible."""
    for state in (state_a, state_b):
        if state.mode != "retrieval" or state.started is None:
            raise BadInput(f"run {state.run_id} is not a retrieval run; diff compares two retrieval runs or two "
                           "question-answering runs", field="run")
    plans = compare_plans(state_a, state_b, allow_different=allow_different)
    assert state_a.started is not None and state_b.started is not None
    k = min(state_a.started.config.settings.k, state_b.started.config.settings.k)
    scores_a, scores_b = question_scores(state_a, k), question_scores(state_b, k)
    pairs: list[tuple[str, str, QuestionRetrieval, QuestionRetrieval]] = []
    excluded: list[RetrievalExcluded] = []
    for qid in plans.shared:
        kind = state_a.questions[qid].planned.kind
        sa, sb = scores_a.get(qid, (kind, None))[1], scores_b.get(qid, (kind, None))[1]
        if qid not in scores_a or qid not in scores_b:
            missing = "a" if qid not in scores_a else "b"
            excluded.append(RetrievalExcluded(question_id=qid, kind=kind, reason=f"not recalled in {missing}"))
        elif sa is None or sb is None:
            excluded.append(RetrievalExcluded(question_id=qid, kind=kind, reason="no evidence"))
        else:
            pairs.append((kind, qid, sa, sb))
    excluded += [RetrievalExcluded(question_id=q, kind=state_a.questions[q].planned.kind, reason="only in a")
                 for q in plans.only_in_a]
    excluded += [RetrievalExcluded(question_id=q, kind=state_b.questions[q].planned.kind, reason="only in b")
                 for q in plans.only_in_b]
    kinds = sorted({kind for kind, *_ in pairs})
    return RetrievalDiff(
        run_a=state_a.run_id, run_b=state_b.run_id, k=k,
        config=config_differences(state_a.started, state_b.started),
        different_corpora=plans.different_corpora, different_questions=plans.different_questions,
        overall=_slice([p[1:] for p in pairs], resamples, seed),
        by_kind={kind: _slice([p[1:] for p in pairs if p[0] == kind], resamples, seed) for kind in kinds},
        excluded=excluded, bootstrap_seed=seed, bootstrap_resamples=resamples, diff_version=RETRIEVAL_DIFF_VERSION)
