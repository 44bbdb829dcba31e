"""LoCoMo's report sections: the official statistics of the token-F1 scorer, the labelled LLM judge
beside them, and the official evidence recall of a retrieval run.

`official_section` folds the scorer of method `locomo-f1` (`official.TokenF1Scorer`) as
`evaluation_stats.analyze_aggr_acc` does (`stats.aggregate`): per category count, sum and mean, and
the overall micro-average with category 5 included, printed line for line as the official
printout; the overall without category 5 is shown beside it, labelled as not the official number.
Scores keep the official types (an item scores the integer 0 on no overlap and in category 5,
a float otherwise), so sums print as the official ones ("110", "288.0"). When the run recalled,
the official RAG recall is added: each item's `evidence_recall` of the evidence exactly as
released (malformed labels never match, quirk 9) by the recalled dia_ids in rank order, summed
over items with evidence and divided by every item of the category (the official population).

`llm_judge_section` shows the scorer of method `locomo-llm-judge` per category: the judge-based
score memory-system papers report, labelled as not LoCoMo's official scorer.
"""

from __future__ import annotations

import json
from typing import Any

from benchledger.adapters.benchmarks.locomo.loader import CATEGORY_NAMES, CATEGORY_NUMBERS, RAW_EVIDENCE
from benchledger.adapters.benchmarks.locomo.official import F1_METHOD, LLM_JUDGE_METHOD
from benchledger.adapters.benchmarks.locomo.scoring import Score, evidence_recall
from benchledger.adapters.benchmarks.locomo.stats import PRINT_ORDER, Aggregate, ScoredItem, Total, aggregate
from benchledger.adapters.benchmarks.sections import missing_scorer_section, scorer_of_method
from benchledger.projections.report import Section
from benchledger.projections.state import QuestionState, RunState
from benchledger.projections.tallies import tally
from benchledger.values import Question

__all__ = ["official_section", "llm_judge_section", "official_retrieval", "released_evidence", "typed_score"]


def released_evidence(question: Question) -> tuple[tuple[str, ...], bool]:
    """(the evidence as released, True) when the run recorded it, else (the normalised labels, False)."""
    if RAW_EVIDENCE in question.extra:
        return tuple(json.loads(question.extra[RAW_EVIDENCE])), True
    return question.evidence, False


def typed_score(category: int, value: float) -> Score:
    """The score with the official type: `f1_score` gives the integer 0 on no overlap and
    `category5_score` integers; everything else is a float."""
    if category == 5 or (category != 1 and value == 0):
        return int(value)
    return float(value)


def _recalled_ids(question: QuestionState) -> list[str] | None:
    if question.recalled is None:
        return None
    return [item.doc_id for item in sorted(question.recalled.items, key=lambda item: item.rank)]


def _item(question: QuestionState, score: Score) -> tuple[ScoredItem, bool]:
    evidence, released = released_evidence(question.planned)
    ids = _recalled_ids(question)
    recall = evidence_recall(evidence, ids) if ids is not None else None
    return ScoredItem(question.planned.scope_key, CATEGORY_NUMBERS[question.planned.kind], score, evidence,
                      recall), released


def _total(total: Total) -> dict:
    return {"count": total.count, "sum": total.sum, "mean": total.mean}


def _values(result: Aggregate) -> dict[str, Any]:
    values: dict[str, Any] = {
        "per_category": {str(k): _total(result.per_category[k]) for k in PRINT_ORDER},
        "overall": _total(result.overall), "overall_excluding_cat5": _total(result.overall_excluding_cat5),
    }
    if result.recall_sums is not None:
        values["recall_by_category"] = {str(k): v for k, v in (result.recall_by_category or {}).items()}
        values["recall_overall"] = result.recall_overall
    return values


def official_section(state: RunState, report_scorer: str | None) -> Section | None:
    title = "LoCoMo official statistics (token F1 per category, overall with category 5)"
    scorer = scorer_of_method(state, report_scorer, F1_METHOD)
    if scorer is None:
        return missing_scorer_section("locomo.official", title, "official token-F1 scorer")
    items, all_released, planned = [], True, 0
    for question in state.questions.values():
        planned += 1
        judged = question.judged.get(scorer)
        if judged is None or judged.score is None or question.planned.kind not in CATEGORY_NUMBERS:
            continue
        item, released = _item(question, typed_score(CATEGORY_NUMBERS[question.planned.kind], judged.score))
        items.append(item)
        all_released &= released
    rag = bool(items) and all(item.recall is not None for item in items)
    result = aggregate(items, rag=rag)
    excluding = result.overall_excluding_cat5.mean
    lines = result.printout().rstrip("\n").split("\n")
    lines.append(f"(not official, for comparison: overall without category 5 "
                 f"{'n/a' if excluding is None else round(excluding, 3)})")
    if len(items) < planned:
        lines.append(f"{planned - len(items)} of {planned} planned questions have no score (failed or pending)")
    if rag and not all_released:
        lines.append("recall uses benchledger's normalised evidence: this run did not record the released labels")
    return Section(name="locomo.official", title=f"{title}, scorer {scorer}", scorer_id=scorer, official=True,
                   values={**_values(result), "scored": len(items), "planned": planned}, lines=lines,
                   headline=result.overall.mean, headline_metric="LoCoMo token F1")


def llm_judge_section(state: RunState, report_scorer: str | None) -> Section | None:
    scorer = scorer_of_method(state, report_scorer, LLM_JUDGE_METHOD)
    if scorer is None:
        return None
    started = state.scorers[scorer]
    overall, by_kind = tally(state, scorer)
    rows = [(kind, by_kind[kind]) for number in PRINT_ORDER if (kind := CATEGORY_NAMES[number]) in by_kind]
    lines = [f"{kind:<14}{t.correct:>5}/{t.judged:<5} {_pct(t.accuracy)}" for kind, t in rows]
    lines.append(f"{'overall':<14}{overall.correct:>5}/{overall.judged:<5} {_pct(overall.accuracy)}")
    judge = f"{started.judge_model}{' (offline, standing in for an LLM)' if started.offline else ''}"
    return Section(
        name="locomo.llm_judge", scorer_id=scorer, official=False,
        title=f"LLM judge, scorer {scorer} ({judge}): the judge score memory-system papers report, "
              "not LoCoMo's official scorer",
        values={"accuracy": overall.accuracy, "correct": overall.correct, "judged": overall.judged,
                "by_category": {kind: t.accuracy for kind, t in rows}}, lines=lines)


def _pct(value: float | None) -> str:
    return "   n/a" if value is None else f"{100 * value:5.1f}%"


def official_retrieval(state: RunState, k: int) -> dict | None:
    """The official RAG evidence recall of a retrieval run's recalls (the top k of each)."""
    items = []
    released = True
    for question in state.questions.values():
        ids = _recalled_ids(question)
        if ids is None or question.planned.kind not in CATEGORY_NUMBERS:  # not one of the release's categories
            continue
        evidence, was_released = released_evidence(question.planned)
        released &= was_released
        items.append(ScoredItem(question.planned.scope_key, CATEGORY_NUMBERS[question.planned.kind], 0, evidence,
                                evidence_recall(evidence, ids[:k])))
    if not items:
        return None
    result = aggregate(items, rag=True)
    lines = result.recall_lines()
    if not released:
        lines.append("(benchledger's normalised evidence: this run did not record the released labels)")
    return {"title": "LoCoMo official evidence recall (evaluation_stats, RAG population)",
            "recall_by_category": {str(c): v for c, v in (result.recall_by_category or {}).items()},
            "recall_overall": result.recall_overall, "items": len(items), "lines": lines}
