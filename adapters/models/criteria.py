"""Memora criteria judging: the judge answers each evaluation question about the candidate answer.

A Memora question has no gold sentence; its gold is a list of criteria ("Does the response
mention repairing the water butt lid?", expected yes or no). Every judge (offline, reference,
typed) asks **one call per criterion**: each criterion is an independent yes/no question, so a
criterion's call is cached on its own (a resume or a rejudge after one failed criterion pays only
for that one), and a reply never has to be matched back to a list. The answers go to
`Verdict.criteria` (criterion_id -> yes/no/unclear); FAMA is folded from them in the report
(`projections.fama`), never from the verdict.

The verdict is derived, by `verdict_from_criteria`: `correct` when every criterion is answered as
expected (exactly when FAMA = 1), `unclear` when none is answered against expectation but some
answer is unclear, `incorrect` otherwise.

Both model protocols send the same user prompt:

    Question:
    <the Memora question>

    Candidate Answer:
    <the answer under judgment>

    Evaluation Question:
    <the criterion's question>

The reference protocol's system prompt is `CRITERION_JUDGE_SYSTEM` and its reply ends with
`Final: Yes` or `Final: No`; the typed protocol's is `TYPED_CRITERION_JUDGE_SYSTEM` and its reply
is `{"answer": "yes"|"no", "reason": str}` under a strict JSON schema (`TypedCriterion`).
Memora releases no judge prompt of its own, so these are this module's, identified by
`CRITERION_PROMPT_HASHES`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from benchledger.adapters.benchmarks.base import Criterion, Question
from benchledger.adapters.models.base import Usage, Verdict, VerdictLabel

__all__ = [
    "CriterionAnswer", "CriterionJudgment", "TypedCriterion", "CRITERION_JUDGE_SYSTEM",
    "TYPED_CRITERION_JUDGE_SYSTEM", "CRITERION_PROMPT_HASHES", "criterion_user_prompt",
    "parse_yes_no", "verdict_from_criteria", "combine_judgments",
]

CriterionAnswer = Literal["yes", "no", "unclear"]

CRITERION_JUDGE_SYSTEM = (
    "You are a strict evaluator of an assistant's answer to a user's question. You are given the "
    "question, the candidate answer and one evaluation question about that answer. Decide whether "
    "the evaluation question is true of the candidate answer as written, judging only what the "
    "answer says, not what would be correct. Give one sentence of reasoning, then a last line "
    "'Final: Yes' or 'Final: No'."
)
TYPED_CRITERION_JUDGE_SYSTEM = (
    "You are a strict evaluator of an assistant's answer to a user's question. You are given the "
    "question, the candidate answer and one evaluation question about that answer. Decide whether "
    "the evaluation question is true of the candidate answer as written, judging only what the "
    "answer says, not what would be correct. Reply with a JSON object with two fields: "
    "\"answer\", \"yes\" or \"no\", and \"reason\", one sentence."
)
CRITERION_PROMPT_HASHES = {
    "criterion_judge_system": hashlib.sha256(CRITERION_JUDGE_SYSTEM.encode()).hexdigest(),
    "typed_criterion_judge_system": hashlib.sha256(TYPED_CRITERION_JUDGE_SYSTEM.encode()).hexdigest(),
}


class TypedCriterion(BaseModel):
    """The typed protocol's reply to one criterion."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    answer: Literal["yes", "no"]
    reason: str


class CriterionJudgment(BaseModel):
    """One criterion's answer, with what the call cost."""

    model_config = ConfigDict(frozen=True)

    criterion_id: str
    answer: CriterionAnswer
    reason: str = ""
    raw: str = ""
    model: str
    usage: Usage = Field(default_factory=Usage)
    cache_hit: bool = False
    latency_ms: float = 0.0


def criterion_user_prompt(question: Question, answer_text: str, criterion: Criterion) -> str:
    return (f"Question:\n{question.text}\n\nCandidate Answer:\n{answer_text}\n\n"
            f"Evaluation Question:\n{criterion.question}\n")


def parse_yes_no(final: str) -> CriterionAnswer:
    """'Yes.' -> yes, 'No, it does not' -> no; anything else is unclear, never guessed."""
    words = final.strip().lower().replace(",", " ").replace(".", " ").split()
    first = words[0] if words else ""
    return first if first in ("yes", "no") else "unclear"  # type: ignore[return-value]


def verdict_from_criteria(criteria: Sequence[Criterion],
                          answers: dict[str, CriterionAnswer]) -> tuple[VerdictLabel, str]:
    """(verdict, reason): correct when all are as expected (FAMA 1), unclear, or incorrect."""
    against = [c for c in criteria if answers.get(c.criterion_id) not in (c.expected, "unclear", None)]
    unclear = [c for c in criteria if answers.get(c.criterion_id) in ("unclear", None)]
    met = len(criteria) - len(against) - len(unclear)
    reason = f"{met}/{len(criteria)} criteria as expected"
    if against:
        reason += "; not as expected: " + ", ".join(
            f"{c.criterion_id}={answers.get(c.criterion_id)} (expected {c.expected})" for c in against)
    if unclear:
        reason += "; unclear: " + ", ".join(c.criterion_id for c in unclear)
    if against:
        return "incorrect", reason
    return ("unclear", reason) if unclear else ("correct", reason)


def combine_judgments(question: Question, judgments: Sequence[CriterionJudgment], *, model: str) -> Verdict:
    """One Verdict from a question's per-criterion judgments: summed usage, every raw reply kept."""
    answers = {j.criterion_id: j.answer for j in judgments}
    verdict, reason = verdict_from_criteria(question.criteria, answers)
    raw = json.dumps([{"criterion_id": j.criterion_id, "answer": j.answer, "raw": j.raw}
                      for j in judgments], ensure_ascii=False, indent=1)
    usage = Usage(prompt_tokens=sum(j.usage.prompt_tokens for j in judgments),
                  completion_tokens=sum(j.usage.completion_tokens for j in judgments))
    return Verdict(verdict=verdict, reason=reason, raw=raw, model=model, usage=usage,
                   cache_hit=bool(judgments) and all(j.cache_hit for j in judgments),
                   latency_ms=sum(j.latency_ms for j in judgments), criteria=answers)
