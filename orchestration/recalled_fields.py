"""Is a recalled document the one that was ingested? Its structure is checked like its text.

A memory system returns a document candidate with every structural field (author, role,
channel, reply target, topic, phase, time, decision flag, released extras); those fields reach
the answer model's prompt as much as the text does, so a memory that put the gold answer into a
document's topic or author would answer the question for the model. `changed_fields(returned,
ingested)` names each field whose returned value is not the ingested one. It walks whatever
fields the document model has, so a field added to `Document` is checked without a change here.
A field returned empty (None, its default, an absent extra) is not a change: leaving structure
out tells the model nothing. The text is not compared here: it may be a passage of the document
(`verbatim`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

__all__ = ["changed_fields"]

_NOT_STRUCTURE = frozenset({"doc_id", "text"})


def changed_fields(returned: BaseModel, ingested: BaseModel) -> tuple[str, ...]:
    """Names of the structural fields whose returned value differs from the ingested one, in order."""
    changed = []
    for name, info in type(ingested).model_fields.items():
        if name in _NOT_STRUCTURE:
            continue
        value, expected = getattr(returned, name, None), getattr(ingested, name)
        if isinstance(expected, dict) and isinstance(value, dict):
            changed += [f"{name}.{key}" for key, item in value.items() if item != expected.get(key)]
        elif not _empty(value, info.get_default(call_default_factory=True)) and value != expected:
            changed.append(name)
    return tuple(changed)


def _empty(value: Any, default: Any) -> bool:
    return value is None or value == default
