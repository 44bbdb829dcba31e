"""Spec strings (`name|key=value|...`) and scoring one question as the official pass 3 does.

Parsing: split on every `|` and strip; part 0 is the function name (empty raises); every other
non-empty part is `key=value` (a missing `=`, an empty key or a repeated key raises). A value is a
bool (`true`/`false`, any case), None (`none`/`null`), for `separators`/`separator` a list (empty:
`[]`; `[...]`: JSON; else its non-space characters), else a float when it holds `.`, else an int,
else the string.

The name is looked up among the official module's callables, so a helper is accepted and fails as it
does there (`OFFICIAL_HELPERS`); a name the module does not hold raises `Unknown eval function`.

`score` routes by name: the two LLM checkers get the raw reply (plus the question item, the boxed
answer, the reply and the harness's evaluator settings, which beat the spec's); every other
function gets the boxed answer. `score_to_bool` accepts a bool or 0/1; UNKNOWN forces False after
the function ran. Every raise is an `OfficialError` carrying the official exception type.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from benchledger.adapters.benchmarks.longmemeval_v2 import matching
from benchledger.adapters.benchmarks.longmemeval_v2.answers import extract_boxed, is_unknown
from benchledger.adapters.benchmarks.longmemeval_v2.errors import OfficialError
from benchledger.adapters.benchmarks.longmemeval_v2.judging import (
    LLM_CHECKERS, EvaluatorConfig, JudgeTransport, llm_check,
)

__all__ = ["EVAL_FUNCTIONS", "OFFICIAL_HELPERS", "Scored", "eval_name", "parse_spec", "parse_value", "score",
           "score_to_bool", "category_of", "CATEGORY_MAP"]

EVAL_FUNCTIONS: dict[str, Callable[..., bool]] = {
    "norm_phrase_set_match": matching.norm_phrase_set_match,
    "norm_phrase_set_match_ordered": matching.norm_phrase_set_match_ordered,
    "mc_choice_match": matching.mc_choice_match,
    "mc_choice_set_match": matching.mc_choice_set_match,
}

_ONE_ARGUMENT = ("normalize_phrase", "split_phrases", "extract_boxed_answer", "is_unknown", "eval_name",
                 "score_to_bool", "_stringify_text", "_extract_multi_select_letters",
                 "parse_eval_function_spec", "_parse_llm_binary_judgement")
_MORE_ARGUMENTS = ("eval_from_spec", "_build_abstention_judge_messages", "_build_gotchas_judge_messages")
OFFICIAL_HELPERS: dict[str, str] = {
    **{name: "one positional argument" for name in _ONE_ARGUMENT},
    **{name: "more positional arguments" for name in _MORE_ARGUMENTS},
    "Any": "typing special form", "List": "typing alias", "_parse_eval_value": "value parser",
}
"""Callables of the official module that are not eval functions, and how calling one fails."""

CATEGORY_MAP = {
    "static-environment": "static", "static-environment-abs": "static-abs",
    "dynamic-environment": "dynamic", "dynamic-environment-abs": "dynamic-abs",
    "procedure": "procedure", "procedure-abs": "procedure-abs", "errors-gotchas": "gotchas",
}


def category_of(question_type: str) -> str:
    return CATEGORY_MAP[question_type]


def eval_name(spec: str) -> str:
    """The part before the first `|`, stripped: it decides whether the route is an LLM checker."""
    return spec.split("|", 1)[0].strip()


def parse_value(key: str, value: str) -> Any:
    """One option value, typed as the official `_parse_eval_value` types it."""
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    if key in ("separators", "separator"):
        if value == "":
            return []
        if value.startswith("[") and value.endswith("]"):
            try:
                return json.loads(value)
            except json.JSONDecodeError as err:
                raise OfficialError("JSONDecodeError", str(err)) from None
        return [char for char in value if not char.isspace()]
    try:
        return float(value) if "." in value else int(value)
    except ValueError:
        return value


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """(function name, typed options); OfficialError for what the official parser refuses."""
    parts = [part.strip() for part in spec.split("|")]
    name = parts[0]
    if not name:
        raise OfficialError("ValueError", "eval function spec missing function name.")
    if name not in EVAL_FUNCTIONS and name not in LLM_CHECKERS and name not in OFFICIAL_HELPERS:
        raise OfficialError("ValueError", f"Unknown eval function: {name}")
    options: dict[str, Any] = {}
    for part in parts[1:]:
        if not part:
            continue
        if "=" not in part:
            raise OfficialError("ValueError", f"Invalid eval function option: {part}")
        key, value = (piece.strip() for piece in part.split("=", 1))
        if not key:
            raise OfficialError("ValueError", f"Invalid eval function option: {part}")
        if key in options:
            raise OfficialError("ValueError", f"Duplicate eval function option: {key}")
        options[key] = parse_value(key, value)
    return name, options


def score_to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    raise OfficialError("RuntimeError", f"Eval function returned non-binary score: {value!r}")


def _call_helper(name: str, prediction: Any, answer: Any, options: Mapping[str, Any]) -> Any:
    kind = OFFICIAL_HELPERS[name]
    if kind == "value parser" and not options:
        return parse_value(str(prediction), str(answer))
    if kind == "typing special form":
        raise OfficialError("TypeError", f"{name} cannot be instantiated")
    if kind == "typing alias":
        raise OfficialError("TypeError", f"Type {name} cannot be instantiated; use {name.lower()}() instead")
    if kind == "more positional arguments":
        raise OfficialError("TypeError", f"{name}() is missing required positional arguments")
    raise OfficialError("TypeError", f"{name}() takes 1 positional argument but 2 were given")


@dataclass(frozen=True)
class Scored:
    """One question scored: what the function returned, the harness's bool, and the inputs it read."""

    parsed: str
    unknown: bool
    eval_return: Any
    score_bool: bool
    judge_called: bool
    judge_label: int | None = None


def score(spec: str, response_raw: str, gold: str, question_item: Mapping[str, Any], *,
          templates: Mapping[str, str], transport: JudgeTransport,
          evaluator: EvaluatorConfig | None = None) -> Scored:
    """Score one reply under its spec as the harness's pass 3 does; OfficialError where it raises."""
    parsed = extract_boxed(response_raw)
    unknown = is_unknown(parsed)
    name = eval_name(spec)
    calls: list[int | None] = []

    def counted(call):
        calls.append(None)
        return transport(call)

    fname, options = parse_spec(spec)
    try:
        if name in LLM_CHECKERS:
            merged = {**options, **(evaluator or EvaluatorConfig()).overrides()}
            returned = llm_check(LLM_CHECKERS[name], templates, counted, response_raw, gold,
                                 question_item=question_item, parsed_prediction=parsed,
                                 model_response=response_raw, **merged)
        elif fname in EVAL_FUNCTIONS:
            returned = EVAL_FUNCTIONS[fname](parsed, gold, **options)
        else:
            returned = _call_helper(fname, parsed, gold, options)
    except (TypeError, ValueError) as err:  # an option the function does not take, a bad value
        raise OfficialError(type(err).__name__, str(err)) from None
    try:
        result = score_to_bool(returned)
    except OfficialError as err:
        raise OfficialError(err.official_type, err.message, eval_return=returned) from None
    return Scored(parsed=parsed, unknown=unknown, eval_return=returned, score_bool=result and not unknown,
                  judge_called=bool(calls))
