"""Scoring one action against the gold call: every rule here, written down (docs/benchmarks/mem2actbench.md).

The repository publishes no scorer, so these are benchledger's reading of the paper's metrics.

**Values are normalised before any comparison** (`normalise`), by the gold tool's parameter type:
a string is NFKC-normalised, casefolded, stripped and its runs of whitespace made one space; a
number (an integer or a float, never a boolean) is a float, so 2 and 2.0 are equal; a string where
the schema declares `integer` or `number` and that reads as a number is that number, and "true" /
"false" where it declares `boolean` are booleans; a list is its items normalised in order; an
object its values normalised by key. Nothing else is forgiven: "Lisbon, Portugal" is not "Lisbon".

**An argument the call leaves out** that the gold call names takes the gold tool's schema
`default`, when the schema declares one and the agent selected the gold tool.

Per task, with G the gold (parameter, value) pairs and P the predicted ones, normalised:

- `tool_selected`: the call names the gold tool (names compared as strings are);
- `exact`: `tool_selected` and P = G (every argument, nothing extra): Tool Accuracy as the paper
  describes it, and EM;
- argument `precision` |P ∩ G| / |P|, `recall` |P ∩ G| / |G|, `f1` their harmonic mean; a side that
  is empty scores 0 unless both are (then 1);
- `bleu1`: BLEU-1 (nltk's `sentence_bleu`, weights (1,), one reference, no smoothing: the clipped
  unigram precision times the brevity penalty) of the predicted arguments' tokens against the
  gold's, each side the text `name value` of every argument in name order, tokens the runs of
  letters and digits of the NFKC-casefolded text (a whole number written without its ".0"); 1 when
  both sides have no token.

No valid call (missing, or not parseable) scores 0 on every metric: a wrong action, not a failure.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
import warnings
from dataclasses import dataclass
from typing import Any

__all__ = ["SCORING_VERSION", "ActionScore", "normalise", "pairs", "tokens", "argument_text", "bleu1",
           "score_action", "NO_CALL"]

SCORING_VERSION = 1
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class ActionScore:
    called: bool
    """A valid call was made (else every figure is 0)."""
    tool_selected: bool
    exact: bool
    precision: float
    recall: float
    f1: float
    bleu1: float
    wrong: tuple[str, ...] = ()
    """Gold parameters whose value the call did not match (missing or different)."""
    extra: tuple[str, ...] = ()
    """Parameters the call gave that the gold call does not name."""


NO_CALL = ActionScore(called=False, tool_selected=False, exact=False, precision=0.0, recall=0.0, f1=0.0, bleu1=0.0)


def _text(value: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", value).casefold()).strip()


def _number(value: str) -> float | None:
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def normalise(value: Any, declared: Any = None) -> Any:
    """A value in the form compared (see the module docstring); `declared` is its parameter's schema."""
    kind = declared.get("type") if isinstance(declared, dict) else None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        if kind in ("integer", "number", "float") and (number := _number(value.strip())) is not None:
            return number
        if kind == "boolean" and value.strip().casefold() in ("true", "false"):
            return value.strip().casefold() == "true"
        return _text(value)
    if isinstance(value, (list, tuple)):
        item = declared.get("items") if isinstance(declared, dict) else None
        return [normalise(v, item) for v in value]
    if isinstance(value, dict):
        props = declared.get("properties", {}) if isinstance(declared, dict) else {}
        return {str(k): normalise(v, props.get(k)) for k, v in value.items()}
    return value


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def pairs(arguments: dict[str, Any], properties: dict[str, Any]) -> dict[str, str]:
    """parameter -> its normalised value, as a comparable key."""
    return {name: _key(normalise(value, properties.get(name))) for name, value in arguments.items()}


def _shown(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return str(value)


def argument_text(arguments: dict[str, Any], properties: dict[str, Any]) -> str:
    return " ".join(f"{name} {_shown(normalise(arguments[name], properties.get(name)))}" for name in sorted(arguments))


def tokens(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def bleu1(candidate: list[str], reference: list[str]) -> float:
    if not candidate and not reference:
        return 1.0
    if not candidate or not reference:
        return 0.0
    from nltk.translate.bleu_score import sentence_bleu  # nltk is imported when first scored

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nltk warns on a zero overlap; the score is 0 and says so
        return float(sentence_bleu([reference], candidate, weights=(1.0,)))


def _ratio(hit: int, of: int, other: int) -> float:
    if of == 0:
        return 1.0 if other == 0 else 0.0
    return hit / of


def score_action(call: dict[str, Any] | None, gold: dict[str, Any], schema: dict[str, Any]) -> ActionScore:
    """One task's scores: `call` and `gold` are `{name, arguments}` (call None: no valid call),
    `schema` the gold tool's (its `parameters.properties` give types and defaults)."""
    if call is None:
        return NO_CALL
    properties = (schema.get("parameters") or {}).get("properties") or {}
    tool_selected = _text(str(call.get("name", ""))) == _text(str(gold["name"]))
    given = dict(call.get("arguments") or {})
    if tool_selected:
        for name in gold["arguments"]:
            if name not in given and isinstance(properties.get(name), dict) and "default" in properties[name]:
                given[name] = properties[name]["default"]
    predicted, expected = pairs(given, properties), pairs(gold["arguments"], properties)
    hit = sum(1 for name, value in predicted.items() if expected.get(name) == value)
    precision = _ratio(hit, len(predicted), len(expected))
    recall = _ratio(hit, len(expected), len(predicted))
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return ActionScore(
        called=True, tool_selected=tool_selected, exact=tool_selected and predicted == expected,
        precision=precision, recall=recall, f1=f1,
        bleu1=bleu1(tokens(argument_text(given, properties)), tokens(argument_text(gold["arguments"], properties))),
        wrong=tuple(name for name in gold["arguments"] if predicted.get(name) != expected[name]),
        extra=tuple(name for name in given if name not in gold["arguments"]))
