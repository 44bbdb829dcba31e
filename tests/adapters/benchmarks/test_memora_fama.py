"""FAMA on hand-computed cases: max(0, MPA - w(1 - FAA)), per question and per category."""

from __future__ import annotations

import pytest
from benchledger.adapters.benchmarks.base import Criterion
from benchledger.projections.fama import QuestionFama, aggregate, score_question


def _c(cid: str, kind: str, expected: str = "yes") -> Criterion:
    return Criterion(criterion_id=cid, question=f"Does the response ... {cid}?", expected=expected,
                     kind=kind)


P1, P2, P3 = (_c(f"p{i}", "memory_presence") for i in (1, 2, 3))
F1 = _c("f1", "forgetting_absence", "no")


def test_all_as_expected_is_one() -> None:
    got = score_question([P1, P2, F1], {"p1": "yes", "p2": "yes", "f1": "no"})
    assert got == QuestionFama(fama=1.0, mpa=1.0, faa=1.0, weight=1 / 3, presence=2, forgetting=1)


def test_remembering_what_should_be_forgotten_is_penalised_by_the_forgetting_weight() -> None:
    # MPA = 2/3, FAA = 0/1, w = 1/4 -> 2/3 - 1/4 = 5/12
    got = score_question([P1, P2, P3, F1], {"p1": "yes", "p2": "yes", "p3": "no", "f1": "yes"})
    assert got.mpa == pytest.approx(2 / 3) and got.faa == 0.0 and got.weight == 0.25
    assert got.fama == pytest.approx(5 / 12)


def test_fama_never_goes_below_zero() -> None:
    # MPA = 0, FAA = 0, w = 1/2 -> max(0, -1/2) = 0
    got = score_question([P1, F1], {"p1": "no", "f1": "yes"})
    assert got.fama == 0.0 and got.mpa == 0.0 and got.faa == 0.0


def test_no_forgetting_criteria_means_faa_one_and_fama_equals_mpa() -> None:
    got = score_question([P1, P2], {"p1": "yes", "p2": "no"})
    assert got.faa == 1.0 and got.weight == 0.0 and got.fama == 0.5


def test_only_forgetting_criteria_scores_faa() -> None:
    f2 = _c("f2", "forgetting_absence", "no")
    got = score_question([F1, f2], {"f1": "no", "f2": "yes"})
    assert got.mpa == 1.0 and got.weight == 1.0 and got.fama == 0.5


def test_unclear_or_missing_answers_are_not_as_expected() -> None:
    got = score_question([P1, P2], {"p1": "unclear"})
    assert got.mpa == 0.0 and got.fama == 0.0


def test_criteria_as_stored_on_the_ledger_are_accepted() -> None:
    stored = [P1.model_dump(), F1.model_dump()]
    assert score_question(stored, {"p1": "yes", "f1": "no"}).fama == 1.0


def test_no_criteria_has_no_fama() -> None:
    assert score_question([], {}) is None


def test_aggregate_by_category_and_paper_scale() -> None:
    rows = [
        ("remembering", score_question([P1, F1], {"p1": "yes", "f1": "no"})),   # 1.0
        ("remembering", score_question([P1, F1], {"p1": "yes", "f1": "yes"})),  # 1 - 1/2 = 0.5
        ("reasoning", score_question([P1, P2], {"p1": "yes", "p2": "no"})),     # 0.5
        ("recommending", None),
    ]
    got = aggregate(rows)
    assert got["n"] == 3 and got["excluded"] == 1
    assert got["fama"] == pytest.approx(2.0 / 3)
    assert got["by_category"]["remembering"]["fama"] == pytest.approx(0.75)
    assert got["by_category"]["remembering"]["score_100"] == pytest.approx(75.0)
    assert got["by_category"]["reasoning"]["n"] == 1
    assert got["sum_100"] == pytest.approx(125.0)
    assert "recommending" not in got["by_category"]
