"""LoCoMo's official aggregation and printout (`task_eval/evaluation_stats.py::analyze_aggr_acc`).

Source: snap-research/locomo @ 92286325 (branch `code`). Conformance quirks 6 and 9:

- The official statistics read ten per-conversation score files in a fixed order
  (`OFFICIAL_CONVERSATION_ORDER`: conv-41, 42, 43, 44, 47, 48, 49, 50, 26, 30) and sum each
  category's scores in that order with Python `+=` from the integer 0, so the printed sums are the
  official strings ("110" when every score is an integer). Conversations outside those ten are
  not read by the official code; here they follow, in the order first met.
- Printout: category order 4, 1, 2, 3, 5, one line "k count sum round(mean, 3)", then
  "Overall accuracy:  round(micro mean, 3)". The overall is the micro-average over every item,
  category 5 included (`overall_excluding_cat5` is given only for comparison).
- RAG recall: per category, the sum of the recalls of items WITH evidence divided by the count of
  ALL the category's items (items without evidence add nothing but count); the overall recall is
  the sum of those sums (in the order the categories were first met) over all items, unrounded.

A category with no items makes the official printout divide by zero; here its mean is None and
its line shows "n/a".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from benchledger.adapters.benchmarks.locomo.scoring import Score

__all__ = [
    "OFFICIAL_CONVERSATION_ORDER", "PRINT_ORDER", "ScoredItem", "Total", "Aggregate",
    "official_order", "aggregate",
]

OFFICIAL_CONVERSATION_ORDER: tuple[str, ...] = (
    "conv-41", "conv-42", "conv-43", "conv-44", "conv-47", "conv-48", "conv-49", "conv-50",
    "conv-26", "conv-30",
)
PRINT_ORDER: tuple[int, ...] = (4, 1, 2, 3, 5)


@dataclass(frozen=True)
class ScoredItem:
    """One scored QA item of a run."""

    sample_id: str
    category: int
    score: Score
    evidence: tuple[str, ...] = ()
    recall: Score | None = None
    """The item's evidence recall (RAG runs only)."""


@dataclass(frozen=True)
class Total:
    count: int
    sum: Score

    @property
    def mean(self) -> float | None:
        return float(self.sum) / self.count if self.count else None

    @property
    def mean_printed(self) -> float | None:
        return None if self.mean is None else round(self.mean, 3)


@dataclass(frozen=True)
class Aggregate:
    """The official statistics of one run."""

    per_category: dict[int, Total]
    """Every category 1-5 (count 0 when the run has none)."""
    overall: Total
    overall_excluding_cat5: Total
    recall_sums: dict[int, Score] | None = None
    """RAG only: per category met with evidence, the summed recall, in the order first met."""

    @property
    def recall_by_category(self) -> dict[int, float] | None:
        """RAG only: the official `recall_by_category` (sum over the category's full count)."""
        if self.recall_sums is None:
            return None
        return {k: v / self.per_category[k].count for k, v in self.recall_sums.items()}

    @property
    def recall_overall(self) -> float | None:
        if self.recall_sums is None or not self.overall.count:
            return None
        return sum(self.recall_sums.values()) / self.overall.count

    def recall_printed(self, category: int) -> float | None:
        count = self.per_category[category].count
        if self.recall_sums is None or not count:
            return None
        return round(float(self.recall_sums.get(category, 0)) / count, 3)

    def printout(self) -> str:
        """The official printout, line for line."""
        lines = ["Total number of questions and corresponding accuracy in each category: "]
        for k in PRINT_ORDER:
            total = self.per_category[k]
            lines.append(f"{k} {total.count} {total.sum} {_shown(total.mean_printed)}")
        lines.append(f"Overall accuracy:  {_shown(self.overall.mean_printed)}")
        return "\n".join(lines + self.recall_lines()) + "\n"

    def recall_lines(self) -> list[str]:
        """The RAG recall part of the printout (nothing for a run without recalls)."""
        if self.recall_sums is None:
            return []
        return ["Category and corresponding recall accuracy in each category: ",
                *(f"{k} {_shown(self.recall_printed(k))}" for k in PRINT_ORDER),
                f"Overall recall accuracy:  {_shown(self.recall_overall)}"]


def _shown(value: float | None) -> str:
    return "n/a" if value is None else str(value)


def official_order(items: Iterable[ScoredItem]) -> list[ScoredItem]:
    """Items in the order the official statistics read them (stable within a conversation)."""
    items = list(items)
    rank = {sample_id: i for i, sample_id in enumerate(OFFICIAL_CONVERSATION_ORDER)}
    for item in items:
        rank.setdefault(item.sample_id, len(rank))
    return sorted(items, key=lambda item: rank[item.sample_id])


def _sum_in_order(per_category: dict[int, Total], categories: Sequence[int]) -> Total:
    count = 0
    total: float = 0  # an int 0 until a float score is added, as in the official code
    for k in categories:
        count += per_category[k].count
        total += per_category[k].sum
    return Total(count, total)


def aggregate(items: Iterable[ScoredItem], *, rag: bool = False) -> Aggregate:
    """`analyze_aggr_acc` over one run's scored items (any order; the official one is applied)."""
    counts = {k: 0 for k in PRINT_ORDER}
    sums: dict[int, Score] = {k: 0 for k in PRINT_ORDER}
    recall_sums: dict[int, Score] = {}
    for item in official_order(items):
        if item.category not in counts:
            raise ValueError(f"LoCoMo category {item.category!r} is not one of 1-5")
        counts[item.category] += 1
        sums[item.category] += item.score
        if rag and item.evidence:
            if item.recall is None:
                raise ValueError("a RAG aggregate needs every item's recall")
            recall_sums[item.category] = recall_sums.get(item.category, 0) + item.recall
    per_category = {k: Total(counts[k], sums[k]) for k in PRINT_ORDER}
    return Aggregate(
        per_category=per_category,
        overall=_sum_in_order(per_category, PRINT_ORDER),
        overall_excluding_cat5=_sum_in_order(per_category, (4, 1, 2, 3)),
        recall_sums=recall_sums if rag else None,
    )
