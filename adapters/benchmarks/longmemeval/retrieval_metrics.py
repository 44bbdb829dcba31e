"""LongMemEval's retrieval metrics exactly as `src/retrieval/eval_utils.py` computes them.

Inputs are the official ones: `rankings` (indices into `corpus_ids`, best first), `correct_docs`
(ids) and `corpus_ids` (one id per corpus row, see `corpus_ids.py`). Per k:

- recall_any@k = 1 if any correct doc is among the ids of the top k rows, recall_all@k = 1 if all
  are. With no correct doc, recall_all is 1.0 (`all([])`) and recall_any 0.0 (quirk 12).
- ndcg_any@k: relevance is 1 for every corpus row whose id is a correct doc, so duplicated ids
  count more than once, in the ranking and in the ideal (every relevant row of the corpus sorted
  first). The discount is the official one, `rel[0] + sum(rel[i] / log2(i + 1))` for i >= 1, which
  weighs ranks 1 and 2 alike (quirk 11). An ideal DCG of 0 gives 0.

`evaluate_retrieval_turn2session` scores a turn-level ranking at session level: every id loses its
last "_" part, correct docs become that set of sessions, and k widens until the top rows cover k
distinct sessions or k passes len(corpus) (quirk 13). Relevance stays per row, so several relevant
turns of one session each add to the DCG. `metrics_for_question` is the official retrieval loop
over k in (1, 3, 5, 10, 30, 50). Floats agree with numpy's to well within 1e-12 (numpy's log2 and
summation order differ from Python's in the last bits at most).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from benchledger.adapters.benchmarks.longmemeval.numpy_like import pairwise_sum

__all__ = [
    "OFFICIAL_KS", "RetrievalScore", "dcg", "ndcg", "evaluate_retrieval", "strip_turn_id",
    "evaluate_retrieval_turn2session", "metrics_for_question",
]

OFFICIAL_KS = (1, 3, 5, 10, 30, 50)
"""The k values of the official retrieval loop (`run_retrieval.py`)."""

Granularity = Literal["session", "turn"]


@dataclass(frozen=True, slots=True)
class RetrievalScore:
    recall_any: float
    recall_all: float
    ndcg_any: float


def dcg(relevances: Sequence[float], k: int) -> float:
    """The official discounted gain of the first k relevances."""
    top = [float(r) for r in relevances[:k]]
    if not top:
        return 0.0
    return top[0] + pairwise_sum([r / math.log2(i + 1) for i, r in enumerate(top[1:], start=1)])


def ndcg(rankings: Sequence[int], correct_docs: Collection[str], corpus_ids: Sequence[str],
         k: int) -> float:
    relevances = [1 if doc_id in correct_docs else 0 for doc_id in corpus_ids]
    ideal = dcg(sorted(relevances, reverse=True), k)
    if ideal == 0:
        return 0.0
    return dcg([relevances[index] for index in rankings[:k]], k) / ideal


def evaluate_retrieval(rankings: Sequence[int], correct_docs: Collection[str],
                       corpus_ids: Sequence[str], k: int) -> RetrievalScore:
    recalled = {corpus_ids[index] for index in rankings[:k]}
    return RetrievalScore(
        recall_any=float(any(doc in recalled for doc in correct_docs)),
        recall_all=float(all(doc in recalled for doc in correct_docs)),
        ndcg_any=ndcg(rankings, correct_docs, corpus_ids, k),
    )


def strip_turn_id(doc_id: str) -> str:
    """`answer_4be1b6b4_2_3` -> `answer_4be1b6b4_2`: everything before the last "_"."""
    return "_".join(doc_id.split("_")[:-1])


def evaluate_retrieval_turn2session(rankings: Sequence[int], correct_docs: Collection[str],
                                    corpus_ids: Sequence[str], k: int) -> RetrievalScore:
    sessions = [strip_turn_id(doc_id) for doc_id in corpus_ids]
    correct_sessions = {strip_turn_id(doc_id) for doc_id in correct_docs}
    effective_k = k
    covered = {sessions[index] for index in rankings[:effective_k]}
    while effective_k <= len(sessions) and len(covered) < k:
        effective_k += 1
        covered = {sessions[index] for index in rankings[:effective_k]}
    return evaluate_retrieval(rankings, correct_sessions, sessions, effective_k)


def metrics_for_question(rankings: Sequence[int], correct_docs: Collection[str],
                         corpus_ids: Sequence[str], granularity: Granularity,
                         ks: Sequence[int] = OFFICIAL_KS) -> dict[str, dict[str, float]]:
    """`retrieval_results.metrics` of one question: {"session": {...}, "turn": {...}}.

    A session-granularity run fills "session" only; a turn run fills "turn" with the turn scores
    and "session" with the turn-to-session ones.
    """
    metrics: dict[str, dict[str, float]] = {"session": {}, "turn": {}}
    for k in ks:
        scores = {granularity: evaluate_retrieval(rankings, correct_docs, corpus_ids, k)}
        if granularity == "turn":
            scores["session"] = evaluate_retrieval_turn2session(rankings, correct_docs,
                                                                corpus_ids, k)
        for level, score in scores.items():
            metrics[level].update({f"recall_any@{k}": score.recall_any,
                                   f"recall_all@{k}": score.recall_all,
                                   f"ndcg_any@{k}": score.ndcg_any})
    return metrics
