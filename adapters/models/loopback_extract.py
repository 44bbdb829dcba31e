"""What the loopback endpoint answers a memory system's own model calls: extraction, not a benchmark.

Memory systems ask their model to extract facts as JSON: mem0 with `response_format: json_object`
and its additive extraction prompt (`{"memory": [{"id", "text"}]}`), Graphiti with `json_schema`
per pydantic model (ExtractedEntities, ExtractedEdges, ...), agents with `tools`. The answers are
deterministic and come from the input, so a test can tell where every extracted fact came from:

- the input is the messages a prompt hands over (mem0's "## New Messages" section, Graphiti's
  `<CURRENT MESSAGE>`, else the last user message), cut into sentences;
- `json_object` gets mem0's shape, one memory per sentence, verbatim;
- `json_schema` gets `schema_instance(schema, sentences)`: an instance of the request's own schema
  in which every string is a sentence of the input (arrays hold one item per sentence, capped;
  arrays of numbers, which name indexes such as duplicates, are empty), integers are 0, booleans are false, enums take their first value, optional fields are
  left out, and `$ref`/`$defs`/`anyOf` are followed;
- `tools` get one `tool_calls` entry for the tool the request names (`tool_choice`) or its first,
  with arguments built the same way from the tool's parameter schema.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["input_sentences", "schema_instance", "json_object_reply", "tool_call", "MAX_ITEMS"]

MAX_ITEMS = 8
"""At most this many items in an array of a built instance (one per input sentence)."""

_NEW_MESSAGES = re.compile(r"## New Messages\n(.*?)(?:\n\n## |\Z)", re.DOTALL)
_CURRENT = re.compile(r"<CURRENT[ _]MESSAGE>\s*(.*?)\s*</CURRENT[ _]MESSAGE>", re.DOTALL)
_ROLE = re.compile(r"^(?:user|assistant|system): ", re.MULTILINE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")


def _input_text(body: dict) -> str:
    messages = [m for m in body.get("messages", []) if isinstance(m, dict)]
    texts = [str(m["content"]) for m in messages if m.get("role") == "user" and isinstance(m.get("content"), str)]
    prompt = texts[-1] if texts else ""
    if m := _NEW_MESSAGES.search(prompt):
        block = m.group(1).strip()
        try:  # mem0 serialises a message list as JSON when it is not a string already
            listed = json.loads(block)
            if isinstance(listed, list):
                block = "\n".join(str(item.get("content", "")) for item in listed if isinstance(item, dict))
        except json.JSONDecodeError:
            pass
        return _ROLE.sub("", block)
    if m := _CURRENT.search(prompt):
        return m.group(1)
    return prompt


def input_sentences(body: dict) -> list[str]:
    """The sentences of the text the request hands over for extraction, in order, each once."""
    found: dict[str, None] = {}
    for line in _input_text(body).splitlines():
        for sentence in _SENTENCE.split(line.strip()):
            if sentence := sentence.strip():
                found.setdefault(sentence)
    return list(found)


def _resolve(schema: dict, root: dict) -> dict:
    while isinstance(schema, dict) and "$ref" in schema:
        ref = schema["$ref"]
        node: Any = root
        for part in ref.removeprefix("#/").split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        schema = node
    return schema if isinstance(schema, dict) else {}


class _Builder:
    def __init__(self, root: dict, sentences: list[str]) -> None:
        self.root, self.sentences = root, sentences or [""]
        self.strings = 0

    def next_string(self) -> str:
        text = self.sentences[self.strings % len(self.sentences)]
        self.strings += 1
        return text

    def build(self, schema: dict, depth: int = 0) -> Any:
        schema = _resolve(schema, self.root)
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return schema["enum"][0]
        for key in ("anyOf", "oneOf", "allOf"):
            if options := schema.get(key):
                usable = [o for o in options if _resolve(o, self.root).get("type") != "null"] or options
                return self.build(usable[0], depth)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind == "object" or "properties" in schema:
            props = schema.get("properties", {})
            required = schema.get("required", list(props))
            return {name: self.build(props[name], depth + 1) for name in props if name in required}
        if kind == "array":
            items = _resolve(schema.get("items", {}), self.root)
            if items.get("type") in ("integer", "number"):
                return []  # index lists (duplicates, contradictions): "none" is the answer that invents nothing
            count = 0 if depth > 3 else min(len(self.sentences), MAX_ITEMS)
            return [self._item(schema.get("items", {}), depth, i) for i in range(count)]
        if kind == "integer":
            return 0
        if kind == "number":
            return 0.0
        if kind == "boolean":
            return False
        if kind == "null":
            return None
        return self.next_string()

    def _item(self, schema: dict, depth: int, index: int) -> Any:
        self.strings = index  # item i draws from sentence i, so each item carries its own sentence
        return self.build(schema, depth + 1)


def schema_instance(schema: dict, sentences: list[str]) -> Any:
    """A deterministic instance of `schema` whose strings are the input's sentences (see module doc)."""
    return _Builder(schema, sentences).build(schema)


def json_object_reply(body: dict) -> dict:
    """mem0's additive extraction shape: one memory per input sentence, verbatim."""
    return {"memory": [{"id": str(i), "text": s} for i, s in enumerate(input_sentences(body))]}


def tool_call(body: dict) -> dict | None:
    """One tool call for the named (or first) tool, or None when the request offers no tool to call."""
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict) and t.get("type") == "function"]
    choice = body.get("tool_choice")
    if not tools or choice == "none":
        return None
    named = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
    tool = next((t for t in tools if t["function"].get("name") == named), tools[0])["function"]
    arguments = schema_instance(tool.get("parameters") or {"type": "object", "properties": {}}, input_sentences(body))
    return {"id": f"call_{tool.get('name', 'tool')}_0", "type": "function",
            "function": {"name": tool.get("name", ""), "arguments": json.dumps(arguments)}}
