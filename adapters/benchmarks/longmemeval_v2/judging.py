"""The two LLM checkers (`llm_abstention_checker`, `llm_gotchas_checker`): request, reply, label.

A checker strips the raw reply and the gold; an empty one (with `require_non_empty`) is False with no
judge call. Otherwise it fills the kind's two official templates (`judge_<kind>_system.txt`,
`judge_<kind>_user.txt`, slots filled verbatim, braces in values left alone) and sends
`{model, messages, max_completion_tokens, timeout}` plus `reasoning_effort`, `temperature` and
`top_p` when set. The harness's evaluator settings beat the spec's (`EvaluatorConfig` overrides
model, base URL, key, effort, token cap and timeout); a spec's temperature and top_p pass through.

The reply: a string content stripped; a list content's text parts joined with "\\n"; anything else,
or nothing, raises. `parse_binary_judgement`: drop a ``` fence of three or more lines, take the
greedy `{.*}`, accept its `label` when it is in {0, 1, "0", "1"} (so also true/false/1.0, and an
unhashable label raises TypeError), else the first of three `label: n` regexes; else raise. Raises
are `OfficialError`s: the official harness ends the whole run on any of them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from benchledger.adapters.benchmarks.longmemeval_v2.errors import OfficialError

__all__ = [
    "LLM_CHECKERS", "OFFICIAL_JUDGE_MODEL", "EvaluatorConfig", "JudgeCall", "JudgeTransport",
    "judge_messages", "judge_request", "reply_text", "parse_binary_judgement", "llm_check",
]

OFFICIAL_JUDGE_MODEL = "gpt-5.2"
LLM_CHECKERS = {"llm_abstention_checker": "abstention", "llm_gotchas_checker": "gotchas"}
"""Checker name -> the kind of its templates (`judge_<kind>_system.txt`, `judge_<kind>_user.txt`)."""

_LABEL_PATTERNS = (re.compile(r'"label"\s*:\s*([01])', re.I), re.compile(r"'label'\s*:\s*([01])", re.I),
                   re.compile(r"\blabel\b\s*[:=]\s*([01])", re.I))


@dataclass(frozen=True)
class EvaluatorConfig:
    """The harness's evaluator settings (run_eval defaults); they beat a spec's evaluator keys."""

    evaluator_model: str | None = OFFICIAL_JUDGE_MODEL
    evaluator_base_url: str | None = None
    evaluator_api_key: str | None = None
    evaluator_reasoning_effort: str | None = "medium"
    evaluator_max_completion_tokens: int = 4096
    evaluator_timeout_seconds: float = 43200.0

    def overrides(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class JudgeCall:
    """One judge request as the official checker builds it."""

    create_kwargs: dict[str, Any]
    """What is passed to `chat.completions.create` (timeout included; it is a client option)."""
    base_url: str | None


JudgeTransport = Callable[[JudgeCall], Any]
"""Sends a request; returns the reply's `message.content` (str, list of parts, or None), or raises
`OfficialError` (an HTTP 400 is `BadRequestError`)."""


def _question_text(question_item: Mapping[str, Any]) -> str:
    question = question_item.get("question")
    if isinstance(question, Mapping):
        question = question.get("text")
    return str(question or "").strip()


def judge_messages(templates: Mapping[str, str], kind: str, question_item: Mapping[str, Any], gold: str,
                   full_response: str, final_answer: str) -> list[dict[str, str]]:
    """The system and user messages of a checker, the four slots filled verbatim."""
    user = templates[f"judge_{kind}_user.txt"]
    filled = (user.replace("{question_text}", "\x00q").replace("{reference_answer}", "\x00r")
              .replace("{model_full_response}", "\x00f").replace("{model_final_answer}", "\x00a"))
    for slot, value in (("\x00q", _question_text(question_item)), ("\x00r", gold), ("\x00f", full_response),
                        ("\x00a", final_answer)):
        filled = filled.replace(slot, value)
    return [{"role": "system", "content": templates[f"judge_{kind}_system.txt"]},
            {"role": "user", "content": filled}]


def judge_request(messages: list[dict[str, str]], options: Mapping[str, Any]) -> JudgeCall:
    """The create() arguments from the merged options (spec keys, then the harness overrides)."""
    kwargs: dict[str, Any] = {"model": options["evaluator_model"], "messages": messages,
                              "max_completion_tokens": options.get("evaluator_max_completion_tokens", 4096),
                              "timeout": options.get("evaluator_timeout_seconds", 43200.0)}
    for option, key in (("evaluator_reasoning_effort", "reasoning_effort"),
                        ("evaluator_temperature", "temperature"), ("evaluator_top_p", "top_p")):
        if options.get(option) is not None:
            kwargs[key] = options[option]
    return JudgeCall(kwargs, options.get("evaluator_base_url"))


def reply_text(content: Any) -> str:
    """The judge reply's text: a string stripped, a list's text parts joined; else the official raise."""
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        texts = [str(part.get("text") or "") for part in content if isinstance(part, Mapping)]
        joined = "\n".join(texts).strip()
        if joined:
            return joined
    raise OfficialError("ValueError", "Evaluator model returned empty response content.")


def parse_binary_judgement(text: str) -> int:
    """The judge's 0/1 label, read as the official parser reads it; OfficialError when it cannot."""
    cleaned = text.strip()
    lines = cleaned.splitlines()
    if cleaned.startswith("```") and cleaned.endswith("```") and len(lines) >= 3:
        cleaned = "\n".join(lines[1:-1]).strip()
    if not cleaned:
        raise OfficialError("ValueError", "Empty judgement response from evaluator model.")
    found = re.search(r"\{.*\}", cleaned, re.DOTALL)
    if found is not None:
        try:
            data = json.loads(found.group(0))
        except ValueError:
            data = None
        if isinstance(data, dict) and "label" in data:
            label = data["label"]
            try:
                accepted = label in {0, 1, "0", "1"}
            except TypeError as err:  # a list or object label: unhashable in the official set test
                raise OfficialError("TypeError", str(err)) from None
            if accepted:
                return int(label)
    for pattern in _LABEL_PATTERNS:
        if (match := pattern.search(cleaned)) is not None:
            return int(match.group(1))
    raise OfficialError("ValueError", f"Could not parse evaluator binary judgement: {cleaned!r}")


def llm_check(kind: str, templates: Mapping[str, str], transport: JudgeTransport, prediction: Any, answer: Any,
              *, question_item: Mapping[str, Any] | None = None, parsed_prediction: Any = None,
              model_response: Any = None, require_non_empty: Any = True, evaluator_model: Any = None,
              evaluator_base_url: Any = None, evaluator_api_key: Any = None,
              evaluator_api_key_env: Any = "OPENAI_API_KEY", evaluator_reasoning_effort: Any = None,
              evaluator_max_completion_tokens: Any = 4096, evaluator_timeout_seconds: Any = 43200.0,
              evaluator_temperature: Any = None, evaluator_top_p: Any = None) -> bool:
    """One checker call: False before any request on an empty side, else the judge's label == 1."""
    reply = str(prediction or "").strip()
    gold = str(answer or "").strip()
    if require_non_empty and (not reply or not gold):
        return False
    if not evaluator_model:
        raise OfficialError("ValueError", "evaluator_model is required for LLM-based evaluation.")
    final = str(parsed_prediction or "").strip() or reply
    full = str(model_response or "").strip() or reply
    messages = judge_messages(templates, kind, question_item or {}, gold, full, final)
    call = judge_request(messages, {
        "evaluator_model": evaluator_model, "evaluator_base_url": evaluator_base_url,
        "evaluator_reasoning_effort": evaluator_reasoning_effort,
        "evaluator_max_completion_tokens": evaluator_max_completion_tokens,
        "evaluator_timeout_seconds": evaluator_timeout_seconds, "evaluator_temperature": evaluator_temperature,
        "evaluator_top_p": evaluator_top_p})
    return parse_binary_judgement(reply_text(transport(call))) == 1
