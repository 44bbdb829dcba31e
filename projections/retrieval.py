"""Evidence retrieval metrics: did recall bring back what the release labels as evidence?

Per question, from its evidence ids and what each ranked candidate names (a stored document names
itself; derived text such as a fact names the documents it came from, none, one or several):

- recall@k: the fraction of evidence items named by the top k candidates;
- recall_all@k: 1 when every evidence item is named in the top k, else 0;
- NDCG@k: binary relevance per candidate: a candidate is relevant when it names an evidence item
  no higher candidate named; the ideal ranking puts min(|evidence|, k) relevant candidates first
  (so a fact naming three evidence documents at rank 1 scores no more than a perfect ranking).

A candidate naming no document counts toward none: a system that returns unattributed text gets no
evidence recall for it, and the report says how many recalled candidates named nothing. The other
side of that rule: a candidate naming many documents (a fact extracted from a whole session names
every message of it) is credited with all of them, so the report gives the mean number of sources
per derived candidate; compare systems at document level only when it is near 1.

Evidence is per document (LoCoMo dia_ids) or per session (LongMemEval, Memora), as the run's
`RunStarted.config.evidence_level` says; at session level a recalled document stands for
its channel, so a session is hit when any of its turns is recalled. Questions the release gives no
evidence are left out and counted (`excluded`), as are questions whose recall failed
(`not_recalled`). A benchmark may pass its own fold (`official`), which adds its official retrieval
numbers under "official" (LoCoMo's evidence recall with its population, LongMemEval's
`evaluate_retrieval`). Everything here is pure: the folds read only the run's events.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from benchledger.projections.memory_costs import memory_costs_summary
from benchledger.projections.publishable import ORACLE_MEMORY, ORACLE_NOTE
from benchledger.projections.state import RunState, fold_run

__all__ = [
    "RETRIEVAL_VERSION", "QuestionRetrieval", "RetrievalFold", "score_question", "aggregate", "retrieval_metrics",
    "question_scores", "retrieval_metrics_of",
]

RETRIEVAL_VERSION = 4
"""3: a candidate counts toward every document it names (derived candidates name several); 4: the mean sources per derived candidate is reported."""

RetrievalFold = Callable[[RunState, int], "dict[str, Any] | None"]
"""(run state, k) -> a benchmark's official retrieval numbers (with a "lines" printout), or None."""


@dataclass(frozen=True, slots=True)
class QuestionRetrieval:
    recall: float
    recall_all: float
    ndcg: float


def score_question(evidence: Iterable[str], ranked: Sequence[str | Collection[str]],
                   k: int) -> QuestionRetrieval | None:
    """Scores of one question at k; None when it has no evidence (it cannot be scored).

    Each ranked entry is the unit a candidate names, or the units it names (several, or none)."""
    if k < 1:
        raise ValueError("k must be at least 1")
    wanted = set(evidence)
    if not wanted:
        return None
    seen: set[str] = set()
    dcg = 0.0
    for rank, entry in enumerate(ranked[:k]):
        units = (entry,) if isinstance(entry, str) else entry
        if any(unit in wanted and unit not in seen for unit in units):
            dcg += 1.0 / math.log2(rank + 2)
        seen.update(units)
    hits = len(wanted & seen)
    ideal = sum(1.0 / math.log2(rank + 2) for rank in range(min(len(wanted), k)))
    return QuestionRetrieval(
        recall=hits / len(wanted),
        recall_all=1.0 if hits == len(wanted) else 0.0,
        ndcg=dcg / ideal,
    )


def _means(scores: list[QuestionRetrieval]) -> dict[str, float | int | None]:
    n = len(scores)
    if n == 0:
        return {"recall": None, "recall_all": None, "ndcg": None, "n": 0}
    return {
        "recall": sum(s.recall for s in scores) / n,
        "recall_all": sum(s.recall_all for s in scores) / n,
        "ndcg": sum(s.ndcg for s in scores) / n,
        "n": n,
    }


def aggregate(rows: Iterable[tuple[str, QuestionRetrieval | None]]) -> dict[str, object]:
    """Means overall and per category over scored questions; unscored ones are counted."""
    by_category: dict[str, list[QuestionRetrieval]] = {}
    scored: list[QuestionRetrieval] = []
    excluded = 0
    for category, score in rows:
        if score is None:
            excluded += 1
            continue
        scored.append(score)
        by_category.setdefault(category, []).append(score)
    return {
        **_means(scored),
        "by_category": {cat: _means(scores) for cat, scores in sorted(by_category.items())},
        "excluded": excluded,
    }


def question_scores(state: RunState, k: int | None = None) -> dict[str, tuple[str, QuestionRetrieval | None]]:
    """question id -> (kind, its scores at k) for every recalled question (None: it has no evidence).

    k defaults to the run's own; a smaller k re-scores the same recalls, a larger one is refused.
    """
    if state.started is None or state.plan is None:
        raise ValueError("the run has no RunStarted or QuestionsPlanned event")
    config = state.started.config
    recalled_k = config.settings.k
    k = recalled_k if k is None else k
    if k > recalled_k:
        raise ValueError(f"the run recalled {recalled_k} items per question; cannot score at k={k}")
    session_level = config.evidence_level == "session"
    scores: dict[str, tuple[str, QuestionRetrieval | None]] = {}
    for question in state.questions.values():
        if question.recalled is None:
            continue
        items = sorted(question.recalled.items, key=lambda item: item.rank)
        ranked = [item.named_channels() if session_level else item.named() for item in items]
        scores[question.planned.question_id] = (question.planned.kind,
                                                score_question(question.planned.evidence, ranked, k))
    return scores


def retrieval_metrics_of(state: RunState, *, k: int | None = None,
                         official: RetrievalFold | None = None) -> dict[str, object]:
    """The retrieval metrics of a folded run at k (default: the run's own k), with the benchmark's
    official retrieval numbers when it declares a fold for them."""
    scores = question_scores(state, k)
    assert state.started is not None
    k = k if k is not None else state.started.config.settings.k
    metrics: dict[str, object] = {
        **aggregate(scores.values()), "not_recalled": len(state.questions) - len(scores), "k": k,
        "evidence_level": "session" if state.started.config.evidence_level == "session" else "document"}
    if official is not None and (numbers := official(state, k)) is not None:
        metrics["official"] = numbers
    items = [item for q in state.questions.values() if q.recalled for item in q.recalled.items]
    if derived := [item for item in items if item.kind != "document"]:
        # How broadly derived text is attributed: a fact naming every message of its session is credited
        # with all of them, so a wide mean here inflates document-level recall (the report says so).
        metrics["candidates"] = {"recalled": len(items), "derived": len(derived),
                                 "unattributed": sum(1 for item in derived if not item.named()),
                                 "mean_sources": round(sum(len(item.named()) for item in derived) / len(derived), 2)}
    if state.started.config.memory == ORACLE_MEMORY:
        metrics["diagnostic"] = ORACLE_NOTE
    if (calls := memory_costs_summary(state)) is not None:
        metrics["memory_calls"] = calls
    return metrics


def retrieval_metrics(stored_events: Iterable[Any], *, k: int | None = None,
                      official: RetrievalFold | None = None) -> dict[str, object]:
    """Fold a run's events into retrieval metrics at k (default: the run's own k).

    A smaller k than the run's re-scores the same recalls without asking the memory again; a
    larger one cannot be answered from what was recalled and is refused.
    """
    events = list(stored_events)
    run_id = getattr(events[0], "run_id", "") if events else ""
    return retrieval_metrics_of(fold_run(run_id, events), k=k, official=official)
