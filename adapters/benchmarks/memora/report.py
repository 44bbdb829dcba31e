"""Memora's official report of one run (`EvaluationRunner._generate_report`), and a labelled
"failures excluded" view beside it.

`official_report(results, judges)` returns the report's score sections exactly as the official
evaluator builds them (its metadata, detailed results and context metadata are the caller's):

- overall_metrics: questions, criteria, presence and forgetting counts and accuracies (None with
  no such criterion); overall_accuracy = (presence correct + forgetting correct) / all criteria,
  so a correct tone_check criterion adds to the denominator only; fama = 100 × the mean of the
  per-question FAMAs;
- by_task_type: the three tasks always present (an empty one has fama 0.0, quirk 26), any other
  task type added as met; per task the per-question accuracies in order, the counts, accuracy
  (all correct criteria, tone_check included, over all criteria), the mean question accuracy and
  fama = 100 × the mean per-question FAMA;
- per_judge_overall and per_judge_by_task_type: each judge's own verdicts, as if it judged alone.

Results go in the official evaluation order (`in_official_order`: Remembering, Reasoning, then
Recommending questions, each in file order). Answer failures are counted the official way: the
judges scored "ERROR: <message>". `failures_excluded_report` drops every question with an
operational failure (its answer call failed, or a criterion no judge could score) and says which
and why; it is not the official number and is labelled so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchledger.adapters.benchmarks.memora.scoring import TASK_TYPES, QuestionResult

__all__ = ["official_report", "in_official_order", "FailuresExcluded", "failures_excluded_report",
           "FAILURES_EXCLUDED_LABEL"]

FAILURES_EXCLUDED_LABEL = "failures excluded (not the official number: Memora scores failures)"


def _ratio(correct: float, total: float, empty: float | None) -> float | None:
    return correct / total if total > 0 else empty


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def in_official_order(results: Iterable[QuestionResult]) -> list[QuestionResult]:
    """The three tasks in order, file order within each; other task types are not evaluated."""
    results = list(results)
    return [r for task in TASK_TYPES for r in results if r.task_type == task]


def _task_bucket(results: Sequence[QuestionResult]) -> dict[str, Any]:
    accuracies = [r.correct_count / len(r.criteria) if r.criteria else 0.0 for r in results]
    total = sum(len(r.criteria) for r in results)
    correct = sum(r.correct_count for r in results)
    p_correct, p_total = (sum(r.presence[i] for r in results) for i in (0, 1))
    f_correct, f_total = (sum(r.forgetting[i] for r in results) for i in (0, 1))
    famas = [r.fama for r in results]
    return {
        "total_questions": len(results), "total_eval_questions": total, "correct_count": correct,
        "accuracies": accuracies, "memory_presence_total": p_total,
        "memory_presence_correct": p_correct, "forgetting_absence_total": f_total,
        "forgetting_absence_correct": f_correct, "accuracy": _ratio(correct, total, 0.0),
        "avg_question_accuracy": _mean(accuracies),
        "memory_presence_accuracy": _ratio(p_correct, p_total, None),
        "forgetting_absence_accuracy": _ratio(f_correct, f_total, None),
        "fama": _mean(famas) * 100 if famas else 0.0,
    }


def _judge_totals(results: Iterable[QuestionResult], judge: str) -> dict[str, float | None]:
    correct: float = 0
    total: float = 0
    for result in results:
        metrics = result.per_judge_metrics().get(judge, {})
        correct += metrics.get("correct", 0)
        total += metrics.get("total", 0)
    return {"correct": correct, "total": total, "accuracy": _ratio(correct, total, 0.0)}


def official_report(results: Sequence[QuestionResult], judges: Sequence[str]) -> dict[str, Any]:
    tasks = list(dict.fromkeys([*TASK_TYPES, *(r.task_type for r in results)]))
    by_task = {task: _task_bucket([r for r in results if r.task_type == task]) for task in tasks}
    total = sum(len(r.criteria) for r in results)
    p_correct, p_total = (sum(r.presence[i] for r in results) for i in (0, 1))
    f_correct, f_total = (sum(r.forgetting[i] for r in results) for i in (0, 1))
    famas = [r.fama for r in results]
    return {
        "overall_metrics": {
            "total_questions": len(results), "total_evaluation_questions": total,
            "total_correct_evaluations": p_correct + f_correct,
            "overall_accuracy": _ratio(p_correct + f_correct, total, 0.0),
            "fama": _mean(famas) * 100 if famas else 0.0,
            "memory_presence_total": p_total, "memory_presence_correct": p_correct,
            "memory_presence_accuracy": _ratio(p_correct, p_total, None),
            "forgetting_absence_total": f_total, "forgetting_absence_correct": f_correct,
            "forgetting_absence_accuracy": _ratio(f_correct, f_total, None),
        },
        "per_judge_overall": {judge: _judge_totals(results, judge) for judge in judges},
        "per_judge_by_task_type": {
            judge: {task: _judge_totals([r for r in results if r.task_type == task], judge)
                    for task in by_task}
            for judge in judges},
        "by_task_type": by_task,
    }


@dataclass(frozen=True)
class FailuresExcluded:
    label: str
    excluded: Mapping[str, str]
    """question_id -> why it was left out."""
    report: dict[str, Any]


def _failure(result: QuestionResult) -> str | None:
    if result.answer_error is not None:
        return f"answer call failed: {result.answer_error}"
    if unscored := result.unscored_criteria:
        return f"no judge could score {', '.join(unscored)}"
    return None


def failures_excluded_report(results: Sequence[QuestionResult],
                             judges: Sequence[str]) -> FailuresExcluded:
    excluded = {r.question_id: why for r in results if (why := _failure(r)) is not None}
    kept = [r for r in results if r.question_id not in excluded]
    return FailuresExcluded(FAILURES_EXCLUDED_LABEL, excluded, official_report(kept, judges))
