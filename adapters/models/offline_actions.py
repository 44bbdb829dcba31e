"""The offline deterministic agent of an action benchmark: a tool call from memory by word rules, no model.

A labelled baseline (`offline-action/1`, always diagnostic), also what the loopback endpoint answers a
tool-call request with, so the model path runs offline. Its rules, in full:

1. **The tool**: of the tools offered, the one sharing the most words with the request (a tool's
   words are those of its name, description and parameter names; words are runs of letters and
   digits, casefolded, less a few function words); the first offered on a tie.
2. **Statements**: the memory's sentences, oldest first (passages in the order given, which the
   caller makes their chronological order where it knows it), and among them the statements of the
   form `my ATTRIBUTE is VALUE` (VALUE running to the sentence's end).
3. **Each parameter** of that tool, in schema order:
   - with an `enum`: the value named (as a whole word) in the latest sentence that names one; else
     the schema's `default`; else it is left out;
   - otherwise: the VALUE of the latest statement whose ATTRIBUTE shares the most words with the
     parameter's name and description (one at least), read as the parameter's type (an `integer`
     or `number` must parse, else that statement is passed over); else the `default`; else left out.

So it copies what was said and takes the latest of conflicting statements, and it cannot infer:
an argument only implied by the memory gets the default (a hallucinated default), or nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["OFFLINE_ACTOR", "offline_call", "content_words", "statements"]

OFFLINE_ACTOR = "offline-action/1"
_WORD = re.compile(r"[^\W_]+")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_STATEMENT = re.compile(r"\bmy ((?:[\w'-]+ ){0,4}?[\w'-]+) is (.+?)[.!?;]*\Z", re.IGNORECASE)
_FUNCTION_WORDS = frozenset("a an and are as be by for from i in is it me my of on or the to up what with".split())


def content_words(text: str) -> set[str]:
    return {word for word in (w.casefold() for w in _WORD.findall(text)) if word not in _FUNCTION_WORDS}


def statements(passages: Sequence[str]) -> list[tuple[str, str]]:
    """(attribute, value) of every `my ATTRIBUTE is VALUE` sentence, oldest first."""
    found = []
    for passage in passages:
        for sentence in _SENTENCE.split(passage):
            if match := _STATEMENT.search(sentence.strip()):
                found.append((match.group(1), match.group(2).strip()))
    return found


def _tool_words(tool: dict[str, Any]) -> set[str]:
    params = ((tool.get("parameters") or {}).get("properties") or {})
    return content_words(" ".join([str(tool.get("name", "")), str(tool.get("description", "")), *map(str, params)]))


def _typed(value: str, kind: Any) -> Any:
    if kind == "integer":
        return int(value) if re.fullmatch(r"-?\d+", value) else None
    if kind in ("number", "float"):
        try:
            number = float(value)
        except ValueError:
            return None
        return int(number) if number.is_integer() else number
    return value


def _enum_value(options: list[Any], sentences: list[str]) -> Any:
    for sentence in reversed(sentences):
        named = [o for o in options if re.search(rf"\b{re.escape(str(o))}\b", sentence, re.IGNORECASE)]
        if named:
            return named[-1]
    return None


def _argument(name: str, spec: dict[str, Any], sentences: list[str], said: list[tuple[str, str]]) -> Any:
    if isinstance(spec.get("enum"), list):
        return _enum_value(spec["enum"], sentences)
    wanted = content_words(f"{name.replace('_', ' ')} {spec.get('description', '')}")
    best, value = 0, None
    for attribute, stated in said:  # oldest first: a later statement of as many shared words wins
        shared = len(content_words(attribute) & wanted)
        typed = _typed(stated, spec.get("type"))
        if shared and shared >= best and typed is not None:
            best, value = shared, typed
    return value


def offline_call(request: str, passages: Sequence[str], tools: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The call the rules above make; None when no tool is offered."""
    if not tools:
        return None
    asked = content_words(request)
    tool = max(tools, key=lambda t: len(asked & _tool_words(t)))  # max keeps the first of equals
    sentences = [s.strip() for p in passages for s in _SENTENCE.split(p) if s.strip()]
    said = statements(passages)
    arguments: dict[str, Any] = {}
    properties = (tool.get("parameters") or {}).get("properties") or {}
    for name, spec in properties.items():
        spec = spec if isinstance(spec, dict) else {}
        value = _argument(name, spec, sentences, said)
        if value is None and "default" in spec:
            value = spec["default"]
        if value is not None:
            arguments[name] = value
    return {"name": tool.get("name", ""), "arguments": arguments}
