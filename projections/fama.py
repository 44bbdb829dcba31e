"""FAMA, Memora's forgetting-aware memory accuracy, per question and per category.

For one question, from its criteria and the judge's yes/no answer to each:

    MPA  = memory_presence criteria answered as expected / memory_presence criteria
    FAA  = forgetting_absence criteria answered as expected / forgetting_absence criteria
           (1 when there are none: nothing had to be forgotten)
    w    = forgetting_absence criteria / all criteria
    FAMA = max(0, MPA - w * (1 - FAA))

A question with only forgetting criteria has MPA 1 (nothing had to be remembered), so its FAMA is
FAA. A criterion the judge left "unclear" or did not answer is not answered as expected: the judge
ran and gave no usable verdict. (A judge that failed operationally records `Failed`, not `Judged`,
and its question is not scored at all.) A question with no criteria has no FAMA.

Per category and overall the score is the mean over scored questions; `score_100` is that mean
times 100 and `sum_100` adds the categories, the scale the Memora paper reports per split.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from benchledger.values import Criterion

__all__ = ["FAMA_VERSION", "QuestionFama", "score_question", "aggregate"]

FAMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class QuestionFama:
    fama: float
    mpa: float
    faa: float
    weight: float
    presence: int
    """memory_presence criteria."""
    forgetting: int
    """forgetting_absence criteria."""


def _criterion(value: Criterion | Mapping[str, str]) -> Criterion:
    return value if isinstance(value, Criterion) else Criterion.model_validate(dict(value))


def score_question(criteria: Sequence[Criterion | Mapping[str, str]],
                   answers: Mapping[str, str]) -> QuestionFama | None:
    """FAMA of one question from its criteria and the judge's answers (criterion_id -> yes/no)."""
    parsed = [_criterion(c) for c in criteria]
    if not parsed:
        return None
    presence = [c for c in parsed if c.kind == "memory_presence"]
    forgetting = [c for c in parsed if c.kind == "forgetting_absence"]

    def as_expected(group: list[Criterion]) -> float:
        if not group:
            return 1.0
        return sum(answers.get(c.criterion_id) == c.expected for c in group) / len(group)

    mpa, faa = as_expected(presence), as_expected(forgetting)
    weight = len(forgetting) / len(parsed)
    return QuestionFama(fama=max(0.0, mpa - weight * (1.0 - faa)), mpa=mpa, faa=faa,
                        weight=weight, presence=len(presence), forgetting=len(forgetting))


def _means(scores: list[QuestionFama]) -> dict[str, float | int]:
    n = len(scores)
    fama = sum(s.fama for s in scores) / n
    return {
        "fama": fama,
        "mpa": sum(s.mpa for s in scores) / n,
        "faa": sum(s.faa for s in scores) / n,
        "score_100": 100.0 * fama,
        "n": n,
    }


def aggregate(rows: Iterable[tuple[str, QuestionFama | None]]) -> dict[str, object]:
    """Mean FAMA overall and per category; questions without criteria are counted, not scored."""
    by_category: dict[str, list[QuestionFama]] = {}
    excluded = 0
    for category, score in rows:
        if score is None:
            excluded += 1
        else:
            by_category.setdefault(category, []).append(score)
    scored = [s for scores in by_category.values() for s in scores]
    categories = {cat: _means(scores) for cat, scores in sorted(by_category.items())}
    overall = _means(scored) if scored else {"fama": None, "mpa": None, "faa": None,
                                              "score_100": None, "n": 0}
    return {
        **overall,
        "sum_100": sum(c["score_100"] for c in categories.values()),
        "by_category": categories,
        "excluded": excluded,
    }

