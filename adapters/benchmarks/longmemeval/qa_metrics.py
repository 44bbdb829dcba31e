"""LongMemEval QA scoring: the labels of `evaluate_qa.py` and the numbers of `print_qa_metrics.py`.

`judge_requests` walks the hypotheses in order, skipping (and naming) any id the reference lacks,
as the official script does; `label_replies` turns each judge reply into an `autoeval_label`.
From the labels:

- `evaluate_qa_summary`: the script's own closing lines, "Accuracy" (Python's round of the mean
  over all labels) and one line per question type present in the reference (numpy's round);
- `qa_metrics` / `print_qa_metrics`: the official printout. Per type (the six, in their fixed
  order, abstention questions included) the mean of 0/1 labels; overall the mean over all;
  task-averaged the mean of the six type means, so a type with no questions prints `nan` and
  makes it `nan` (quirk 16); abstention the mean over `_abs` ids. All rounded numpy's way to 4
  places. The official script asserts every label came from gpt-4o-2024-08-06.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchledger.adapters.benchmarks.longmemeval.chat import ChatRequest
from benchledger.adapters.benchmarks.longmemeval.judge import (
    OFFICIAL_JUDGE_MODEL, judge_label, judge_request,
)
from benchledger.adapters.benchmarks.longmemeval.numpy_like import np_mean, np_round, np_str
from benchledger.adapters.benchmarks.longmemeval.prompts import QUESTION_TYPES
from benchledger.adapters.benchmarks.longmemeval.retrieval_printout import is_abstention
from benchledger.errors import BadInput

__all__ = ["QaLabel", "JudgePlan", "judge_requests", "label_replies", "EvaluateQaSummary",
           "evaluate_qa_summary", "QaMetrics", "qa_metrics", "print_qa_metrics"]


@dataclass(frozen=True, slots=True)
class QaLabel:
    """One `autoeval_label`: the question, its type, the verdict and the judge model."""

    question_id: str
    question_type: str
    label: bool
    judge_model: str


@dataclass(frozen=True)
class JudgePlan:
    requests: tuple[ChatRequest, ...]
    skipped: tuple[str, ...]
    """Hypothesis ids not in the reference ("Warning: skipping … not in reference data")."""
    question_types: Mapping[str, str] = field(default_factory=dict)


def judge_requests(templates: Mapping[str, str], references: Iterable[Mapping[str, Any]],
                   hypotheses: Iterable[Mapping[str, Any]], *,
                   model: str = OFFICIAL_JUDGE_MODEL) -> JudgePlan:
    by_id = {ref["question_id"]: ref for ref in references}
    requests, skipped = [], []
    for entry in hypotheses:
        reference = by_id.get(entry["question_id"])
        if reference is None:
            skipped.append(entry["question_id"])
            continue
        requests.append(judge_request(templates, reference, entry["hypothesis"], model=model))
    types = {qid: ref["question_type"] for qid, ref in by_id.items()}
    return JudgePlan(tuple(requests), tuple(skipped), types)


def label_replies(plan: JudgePlan, replies: Mapping[str, str]) -> list[QaLabel]:
    """The labels, in request order, from each question's judge reply text."""
    labels = []
    for request in plan.requests:
        question_id = request.question_id
        assert question_id is not None  # judge_request always names the question
        labels.append(QaLabel(question_id, plan.question_types[question_id], judge_label(replies[question_id]),
                              request.model))
    return labels


@dataclass(frozen=True)
class EvaluateQaSummary:
    accuracy: float
    by_type: Mapping[str, tuple[float, int]]
    """type -> (numpy-rounded mean, count), for every type in the reference."""


def evaluate_qa_summary(labels: Sequence[QaLabel], reference_types: Iterable[str]
                        ) -> EvaluateQaSummary:
    by_type: dict[str, list[int]] = {t: [] for t in dict.fromkeys(reference_types)}
    for label in labels:
        by_type[label.question_type].append(int(label.label))
    return EvaluateQaSummary(
        accuracy=round(np_mean([int(label.label) for label in labels]), 4),
        by_type={t: (np_round(np_mean(v), 4), len(v)) for t, v in by_type.items()},
    )


@dataclass(frozen=True)
class QaMetrics:
    """Unrounded means; `print_qa_metrics` rounds them as the official printout does."""

    by_type: Mapping[str, tuple[float, int]]
    task_averaged: float
    overall: float
    abstention: float
    abstention_n: int
    judge_models: frozenset[str]

    @property
    def official_judge(self) -> bool:
        return self.judge_models <= {OFFICIAL_JUDGE_MODEL}


def qa_metrics(labels: Iterable[QaLabel]) -> QaMetrics:
    by_type: dict[str, list[int]] = {t: [] for t in QUESTION_TYPES}
    abstention: list[int] = []
    models: set[str] = set()
    for label in labels:
        if label.question_type not in by_type:
            raise BadInput(f"question_type {label.question_type!r} of {label.question_id} is "
                           f"not one of {', '.join(QUESTION_TYPES)}", field="question_type")
        by_type[label.question_type].append(int(label.label))
        if is_abstention(label.question_id):
            abstention.append(int(label.label))
        models.add(label.judge_model)
    every = [value for values in by_type.values() for value in values]
    return QaMetrics(
        by_type={t: (np_mean(v), len(v)) for t, v in by_type.items()},
        task_averaged=np_mean([np_mean(v) for v in by_type.values()]),
        overall=np_mean(every), abstention=np_mean(abstention), abstention_n=len(abstention),
        judge_models=frozenset(models),
    )


def _shown(value: float) -> str:
    return np_str(np_round(value, 4))


def print_qa_metrics(metrics: QaMetrics, *, require_official_judge: bool = True) -> str:
    """What `print_qa_metrics.py` prints for these labels (its asserted judge model included)."""
    if require_official_judge and not metrics.official_judge:
        raise BadInput(f"the official printout needs every label judged by {OFFICIAL_JUDGE_MODEL},"
                       f" not {', '.join(sorted(metrics.judge_models - {OFFICIAL_JUDGE_MODEL}))}",
                       field="judge_model")
    lines = ["", "Evaluation results by task:"]
    lines += [f"\t{t}: {_shown(mean)} ({n})" for t, (mean, n) in metrics.by_type.items()]
    lines += ["", f"Task-averaged Accuracy: {_shown(metrics.task_averaged)}",
              f"Overall Accuracy: {_shown(metrics.overall)}",
              f"Abstention Accuracy: {_shown(metrics.abstention)} ({metrics.abstention_n})"]
    return "\n".join(lines) + "\n"

