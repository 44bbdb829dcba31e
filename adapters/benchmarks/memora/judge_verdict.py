"""One Memora judge's reply read exactly as the official evaluators read it.

`parse_judge_response(reply, expected)` is `ModelEvaluator._parse_judge_response`:

1. strip; a reply that **starts** with ``` loses its first and last lines when it has more than
   two (whatever they hold, so a missing closing fence loses the JSON's last line), then every
   "```json" and "```" (case-sensitive) and surrounding space (quirk 23);
2. `json.loads`; `answer` lower-cased and stripped, `confidence` through `float`, and an answer
   other than exactly "yes"/"no" inferred from the explanation: "yes" if it contains "yes" and not
   "no", "no" in the mirror case, else "unclear". "no" matches inside "not", "cannot", "know"…
   (quirk 22), and `"YES."` is not "yes" (quirk 23);
3. a reply that is not JSON at all gets the same substring test on the whole raw reply,
   confidence 0.5 (text before a JSON object lands here too);
4. anything else, valid JSON that is not an object, a non-string answer, a confidence `float`
   refuses, makes the judge "error" (quirk 21), and an "error" judge is left out of the vote.

`model_track_verdict` adds the client around it (`ModelEvaluator.evaluate_response`): a call that
failed, or came back with empty or null content, after its attempts is "error". The agent track
(`memory_to_answer.py::_evaluate_with_single_judge`) differs in one place: its text fallback reads
the fence-stripped reply. `is_correct` is `llm_answer == expected.lower()`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["JudgeCallFailed", "JudgeVerdict", "parse_judge_response", "model_track_verdict",
           "agent_track_verdict", "needs_retry", "EMPTY_CONTENT"]

_FENCE = "```"
EMPTY_CONTENT = "the model returned empty or null content"
# What else the official `except Exception` catches while reading a parsed reply: no .get on a
# list, no .lower on a number, float() of "high", None or a 400-digit integer, deep nesting.
_READ_ERRORS = (AttributeError, TypeError, ValueError, ArithmeticError, RecursionError)


@dataclass(frozen=True)
class JudgeCallFailed:
    """A judge call that raised (after its attempts); `message` is the exception's text."""

    message: str


JudgeOutcome = str | None | JudgeCallFailed
"""What a judge call gave: the message content, None for a null content, or the failure."""


@dataclass(frozen=True)
class JudgeVerdict:
    llm_answer: str
    """"yes", "no", "unclear" or "error"."""
    is_correct: bool
    confidence: float
    explanation: Any = ""
    parse_error: str | None = None
    """Set when the reply was not JSON and the text fallback decided."""
    error: str | None = None
    """Set when the judge is "error" (left out of the vote)."""

    def as_official(self) -> dict[str, Any]:
        """The per-judge fields the official results keep."""
        return {"llm_answer": self.llm_answer, "is_correct": self.is_correct,
                "confidence": self.confidence}


def _strip_fences(reply: str) -> str:
    text = reply.strip()
    if text.startswith(_FENCE):
        lines = text.split("\n")
        if len(lines) > 2:
            text = "\n".join(lines[1:-1])
        text = text.replace("```json", "").replace(_FENCE, "").strip()
    return text


def _yes_or_no_in(text: str) -> str:
    lower = text.lower()
    if "yes" in lower and "no" not in lower:
        return "yes"
    if "no" in lower and "yes" not in lower:
        return "no"
    return "unclear"


def _error(message: str, explanation: str) -> JudgeVerdict:
    return JudgeVerdict("error", False, 0.0, explanation, error=message)


def _from_json(text: str, expected: str) -> JudgeVerdict:
    """Read a JSON reply; raises what the official code would raise on the way."""
    result = json.loads(text)
    answer = result.get("answer", "").lower().strip()
    confidence = float(result.get("confidence", 0.0))
    explanation = result.get("explanation", "")
    if answer not in ("yes", "no"):
        answer = _yes_or_no_in(explanation)
    return JudgeVerdict(answer, answer == expected.lower(), confidence, explanation)


def _read(text: str, fallback_text: str, expected: str) -> JudgeVerdict:
    try:
        return _from_json(text, expected)
    except json.JSONDecodeError as err:
        answer = _yes_or_no_in(fallback_text)
        return JudgeVerdict(answer, answer == expected.lower(), 0.5,
                            f"Parse error, inferred from text: {fallback_text[:200]}",
                            parse_error=str(err))
    except _READ_ERRORS as err:
        return _error(str(err), f"Error parsing response: {err}")


def parse_judge_response(reply: str, expected: str) -> JudgeVerdict:
    """The model track's parser on a reply string (an empty one reads as "unclear")."""
    return _read(_strip_fences(reply), reply, expected)


def needs_retry(outcome: JudgeOutcome) -> bool:
    """Whether the official client would try this call again (a failure, empty or null content)."""
    return isinstance(outcome, JudgeCallFailed) or outcome is None or not outcome.strip()


def _failed(outcome: JudgeOutcome) -> str | None:
    if isinstance(outcome, JudgeCallFailed):
        return outcome.message
    return EMPTY_CONTENT if needs_retry(outcome) else None


def model_track_verdict(outcome: JudgeOutcome, expected: str) -> JudgeVerdict:
    """`ModelEvaluator.evaluate_response` for the call's final outcome."""
    if (message := _failed(outcome)) is not None:
        return _error(message, f"Evaluation error: {message}")
    assert isinstance(outcome, str)  # _failed names every other outcome
    return parse_judge_response(outcome, expected)


def agent_track_verdict(outcome: JudgeOutcome, expected: str) -> JudgeVerdict:
    """`_evaluate_with_single_judge` of the memory-agent track for the call's final outcome."""
    if (message := _failed(outcome)) is not None:
        return _error(message, "")
    assert isinstance(outcome, str)  # _failed names every other outcome
    text = _strip_fences(outcome)
    return _read(text, text, expected)


def outcome_from_fixture(value: str | Mapping[str, Any]) -> JudgeOutcome:
    """The conformance fixtures' encoding: a string, {"content": …} or {"raise": message}."""
    if isinstance(value, str):
        return value
    if "raise" in value:
        return JudgeCallFailed(str(value["raise"]))
    if "content" in value and (value["content"] is None or isinstance(value["content"], str)):
        return value["content"]
    raise ValueError(f"not a judge reply encoding: {value!r}")
