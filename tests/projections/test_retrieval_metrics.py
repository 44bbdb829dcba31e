"""Retrieval metrics on hand-computed cases, and the invariants every ranking must keep."""

from __future__ import annotations

import math
import pytest
from hypothesis import given, strategies as st

from benchledger.projections.retrieval import QuestionRetrieval, aggregate, score_question


def _dcg(*ranks: int) -> float:
    return sum(1 / math.log2(rank + 1) for rank in ranks)


def test_one_of_two_evidence_items_at_rank_three() -> None:
    got = score_question(["D1:3", "D2:8"], ["D5:1", "D4:2", "D1:3", "D9:9"], k=10)
    assert got.recall == 0.5
    assert got.recall_all == 0.0
    assert got.ndcg == pytest.approx(_dcg(3) / _dcg(1, 2))


def test_everything_at_the_top_is_perfect() -> None:
    got = score_question(["a", "b"], ["b", "a", "x"], k=2)
    assert got == QuestionRetrieval(recall=1.0, recall_all=1.0, ndcg=1.0)


def test_items_below_k_do_not_count() -> None:
    got = score_question(["a"], ["x", "y", "a"], k=2)
    assert (got.recall, got.recall_all, got.ndcg) == (0.0, 0.0, 0.0)


def test_ideal_dcg_is_capped_at_k_when_evidence_outnumbers_k() -> None:
    got = score_question(["a", "b", "c"], ["a", "b"], k=2)
    assert got.ndcg == pytest.approx(1.0)
    assert got.recall == pytest.approx(2 / 3)
    assert got.recall_all == 0.0


def test_a_session_recalled_twice_counts_once_at_its_first_rank() -> None:
    # Session-level: recalled turns map to their session; s1 appears at ranks 1 and 2.
    got = score_question(["s1", "s2"], ["s1", "s1", "s3", "s2"], k=4)
    assert got.recall == 1.0 and got.recall_all == 1.0
    assert got.ndcg == pytest.approx(_dcg(1, 4) / _dcg(1, 2))


def test_no_evidence_cannot_be_scored() -> None:
    assert score_question([], ["a"], k=10) is None


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError):
        score_question(["a"], ["a"], k=0)


def test_aggregate_means_overall_and_by_category_and_counts_excluded() -> None:
    rows = [
        ("temporal", QuestionRetrieval(1.0, 1.0, 1.0)),
        ("temporal", QuestionRetrieval(0.0, 0.0, 0.0)),
        ("multi_hop", QuestionRetrieval(0.5, 0.0, 0.25)),
        ("open_domain", None),
    ]
    got = aggregate(rows)
    assert got["n"] == 3 and got["excluded"] == 1
    assert got["recall"] == pytest.approx(1.5 / 3)
    assert got["recall_all"] == pytest.approx(1 / 3)
    assert got["ndcg"] == pytest.approx(1.25 / 3)
    assert got["by_category"] == {
        "multi_hop": {"recall": 0.5, "recall_all": 0.0, "ndcg": 0.25, "n": 1},
        "temporal": {"recall": 0.5, "recall_all": 0.5, "ndcg": 0.5, "n": 2},
    }


def test_aggregate_of_nothing_scored_is_empty_not_zero() -> None:
    got = aggregate([("x", None)])
    assert got["n"] == 0 and got["recall"] is None and got["excluded"] == 1


ids = st.sampled_from([f"D{i}" for i in range(12)])


@given(evidence=st.lists(ids, min_size=1, max_size=6), ranked=st.lists(ids, max_size=15),
       k=st.integers(min_value=1, max_value=15))
def test_metrics_stay_in_range_and_ordered(evidence, ranked, k) -> None:
    got = score_question(evidence, ranked, k)
    assert 0.0 <= got.recall_all <= got.recall <= 1.0
    assert 0.0 <= got.ndcg <= 1.0 + 1e-12
    assert (got.recall == 0.0) == (got.ndcg == 0.0)


@given(evidence=st.lists(ids, min_size=1, max_size=6, unique=True))
def test_evidence_ranked_first_scores_one(evidence) -> None:
    got = score_question(evidence, [*evidence, "X1", "X2"], k=len(evidence))
    assert got.recall == 1.0 and got.recall_all == 1.0 and got.ndcg == pytest.approx(1.0)
