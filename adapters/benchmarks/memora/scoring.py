"""One Memora question scored the official way (`EvaluationRunner._evaluate_questions`).

The answer: when the answer call fails (or comes back empty after its attempts) the official
evaluator does not drop the question; it sends `"ERROR: <message>"` to the judges as the answer
and scores their verdicts like any other (`answer_response`). The question result remembers the
failure, so a report can also show the "failures excluded" view (`report.py`).

Per question, over its criteria (each decided by `vote.majority`):
MPA = presence correct / presence total (0 with none), FAA = forgetting correct / forgetting
total (1 with none), λ = N_f / (N_p + N_f), FAMA = max(0, MPA − λ(1 − FAA)), and 0 with no
presence or forgetting criterion at all (quirk 25). A criterion of another `evaluation_type` (tone_check)
counts in accuracy, not in FAMA. Expected answers compare lower-cased.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchledger.adapters.benchmarks.memora.judge_verdict import (
    EMPTY_CONTENT, JudgeCallFailed, JudgeVerdict, needs_retry,
)
from benchledger.adapters.benchmarks.memora.vote import CriterionVote, majority

__all__ = ["TASK_TYPES", "PRESENCE", "FORGETTING", "task_type_of", "fama_score", "answer_response",
           "CriterionResult", "QuestionResult", "question_result"]

TASK_TYPES = ("Remembering", "Reasoning", "Recommending")
PRESENCE = "memory_presence"
FORGETTING = "forgetting_absence"


def task_type_of(category: str) -> str:
    """The task a released category key names ("remembering" -> "Remembering"), as the
    official loader stamps it; an unknown key is kept as it is."""
    return {task.lower(): task for task in TASK_TYPES}.get(category.lower(), category)


def fama_score(presence_correct: int, presence_total: int,
               forgetting_correct: int, forgetting_total: int) -> float:
    if presence_total == 0 and forgetting_total == 0:
        return 0.0
    mpa = presence_correct / presence_total if presence_total > 0 else 0.0
    faa = forgetting_correct / forgetting_total if forgetting_total > 0 else 1.0
    weight = forgetting_total / (presence_total + forgetting_total)
    return max(0.0, mpa - weight * (1.0 - faa))


def answer_response(outcome: str | None | JudgeCallFailed) -> tuple[str, str | None]:
    """(what the judges are shown, the failure message or None) for the answer call's outcome."""
    if needs_retry(outcome):
        message = outcome.message if isinstance(outcome, JudgeCallFailed) else EMPTY_CONTENT
        return f"ERROR: {message}", message
    assert isinstance(outcome, str)  # needs_retry names every other outcome
    return outcome, None


@dataclass(frozen=True)
class CriterionResult:
    criterion: Mapping[str, Any]
    """The released evaluation question (id, text, expected_answer, evaluation_type, …)."""
    per_judge: Mapping[str, JudgeVerdict]
    vote: CriterionVote

    @property
    def criterion_id(self) -> str:
        return self.criterion.get("evaluation_question_id", "")

    @property
    def evaluation_type(self) -> str | None:
        return self.criterion.get("evaluation_type")


def _correct_of(results: Sequence[CriterionResult]) -> int:
    return sum(1 for result in results if result.vote.is_correct)


@dataclass(frozen=True)
class QuestionResult:
    question_id: str
    task_type: str
    model_response: str
    criteria: tuple[CriterionResult, ...]
    judges: tuple[str, ...]
    answer_error: str | None = None
    """The answer call's failure; the official score still counts the question."""

    def _of_type(self, evaluation_type: str) -> list[CriterionResult]:
        return [c for c in self.criteria if c.evaluation_type == evaluation_type]

    @property
    def presence(self) -> tuple[int, int]:
        """(correct, total) memory_presence criteria."""
        found = self._of_type(PRESENCE)
        return _correct_of(found), len(found)

    @property
    def forgetting(self) -> tuple[int, int]:
        found = self._of_type(FORGETTING)
        return _correct_of(found), len(found)

    @property
    def correct_count(self) -> int:
        return _correct_of(self.criteria)

    @property
    def fama(self) -> float:
        return fama_score(*self.presence, *self.forgetting)

    @property
    def unscored_criteria(self) -> list[str]:
        """Criteria no judge could score (every judge "error")."""
        return [c.criterion_id for c in self.criteria if c.vote.num_valid_judges == 0]

    def per_judge_metrics(self) -> dict[str, dict[str, float | int]]:
        metrics = {}
        for judge in self.judges:
            judged = [c.per_judge[judge] for c in self.criteria if judge in c.per_judge]
            correct = sum(1 for verdict in judged if verdict.is_correct)
            metrics[judge] = {"correct": correct, "total": len(judged),
                              "accuracy": correct / len(judged) if judged else 0.0}
        return metrics

    def as_official(self) -> dict[str, Any]:
        """The numbers of the official per-question result."""
        (p_correct, p_total), (f_correct, f_total) = self.presence, self.forgetting
        return {
            "question_id": self.question_id, "task_type": self.task_type, "fama": self.fama,
            "total_eval_questions": len(self.criteria),
            "memory_presence_correct": p_correct, "memory_presence_total": p_total,
            "memory_presence_accuracy": p_correct / p_total if p_total else None,
            "forgetting_absence_correct": f_correct, "forgetting_absence_total": f_total,
            "forgetting_absence_accuracy": f_correct / f_total if f_total else None,
            "per_judge_metrics": self.per_judge_metrics(), "model_response": self.model_response,
        }


def question_result(question: Mapping[str, Any], model_response: str,
                    verdicts: Mapping[str, Mapping[str, JudgeVerdict]],
                    judges: Sequence[str], *, answer_error: str | None = None) -> QuestionResult:
    """Score a question from each criterion's per-judge verdicts (keyed by criterion id)."""
    criteria = []
    for criterion in question.get("evaluation", {}).get("evaluation_questions", []):
        per_judge = verdicts[criterion["evaluation_question_id"]]
        criteria.append(CriterionResult(
            criterion, dict(per_judge), majority([per_judge[j] for j in judges if j in per_judge])))
    return QuestionResult(
        question_id=question["question_id"], task_type=question.get("task_type", "Unknown"),
        model_response=model_response, criteria=tuple(criteria), judges=tuple(judges),
        answer_error=answer_error)
