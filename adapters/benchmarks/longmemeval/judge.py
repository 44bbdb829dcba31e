"""LongMemEval's judge call and verdict, as `src/evaluation/evaluate_qa.py` makes and reads them.

The request: one message, role "user", content the question type's template filled with the
question, the gold answer (through `format`, so 7 prints as "7") and the hypothesis; `n=1`,
`temperature=0`, `max_tokens=10`; the model is `gpt-4o-2024-08-06` (CLI alias `gpt-4o`).
The verdict is `'yes' in reply.strip().lower()`, a substring test (quirk 15): "Eyes closed: no"
and "No. The model says yes…" are correct, "Y" is not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchledger.adapters.benchmarks.longmemeval.chat import ChatRequest
from benchledger.adapters.benchmarks.longmemeval.prompts import judge_template_name
from benchledger.adapters.benchmarks.official_prompts import fill_positional

__all__ = ["OFFICIAL_JUDGE_MODEL", "JUDGE_MODEL_ALIASES", "JUDGE_MAX_TOKENS", "judge_prompt",
           "judge_request", "judge_label"]

OFFICIAL_JUDGE_MODEL = "gpt-4o-2024-08-06"
JUDGE_MODEL_ALIASES = {
    "gpt-4o": "gpt-4o-2024-08-06",
    "gpt-4o-mini": "gpt-4o-mini-2024-07-18",
    "llama-3.1-70b-instruct": "meta-llama/Meta-Llama-3.1-70B-Instruct",
}
"""`evaluate_qa.py`'s model_zoo: the short name on its command line -> the model it requests."""
JUDGE_MAX_TOKENS = 10


def judge_prompt(templates: Mapping[str, str], question_type: str, question_id: str,
                 question: Any, answer: Any, hypothesis: Any) -> str:
    template = templates[judge_template_name(question_type, question_id)]
    return fill_positional(template, format(question, ""), format(answer, ""),
                           format(hypothesis, ""))


def judge_request(templates: Mapping[str, str], reference: Mapping[str, Any], hypothesis: Any,
                  *, model: str = OFFICIAL_JUDGE_MODEL) -> ChatRequest:
    """The request for one reference item ({question_id, question_type, question, answer})."""
    model = JUDGE_MODEL_ALIASES.get(model, model)
    prompt = judge_prompt(templates, reference["question_type"], reference["question_id"],
                          reference["question"], reference["answer"], hypothesis)
    return ChatRequest(model=model, prompt=prompt, max_tokens=JUDGE_MAX_TOKENS,
                       question_id=reference["question_id"])


def judge_label(reply: str) -> bool:
    """The official verdict on the judge's reply text."""
    return "yes" in reply.strip().lower()
