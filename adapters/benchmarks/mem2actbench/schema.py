"""Mem2ActBench's release as published, in frozen models: tasks, sessions, statistics.

The shapes are those independent loaders read at the pinned commit (`../shared/data/mem2actbench/
README.md`; no file of the release has been seen here). A task is one line of `qa_dataset.jsonl`; a
session one line of `toolmem_conversation.jsonl`; `benchmark_statistics.json` holds the two counts.
Fields the models do not name are kept (`extra="allow"`) and listed by `unmodelled`, so a release
with more than is known is read, and says what it held, rather than refused.

Two known defects of the pinned commit are modelled, not refused: a task's `tool_call.name` may be
a number (`qa_283` names the tool 4 while its schema names "4D Dream Dictionary"), and source ids may
name conversations no session holds. `release.py` finds both and reports them; nothing here crashes
on them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "LEVELS", "GROUNDING_TYPES", "EvolutionStep", "Grounding", "GoldCall", "ToolParameters", "ToolSchema",
    "Complexity", "Task", "TurnCall", "TurnFunction", "Turn", "Session", "Statistics", "unmodelled",
]

LEVELS = ("L1", "L2", "L3", "L4")
"""L1 direct copy, L2 inferred, L3 multi-source aggregation, L4 conflict resolution."""
GROUNDING_TYPES = ("explicit", "inferred", "default")
"""Where a gold argument's value comes from: said in memory, inferred from it, or the schema's default."""


class _Released(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")


class EvolutionStep(_Released):
    """One fact of the memory the task needs, in the order it was said."""

    attribute: str
    fact: str
    source_id: str
    """The original conversation the fact was said in (a turn's `source_id`)."""
    source_text: str
    """The words that said it."""


class Grounding(_Released):
    type: Literal["explicit", "inferred", "default"]
    source_text: str | None = None
    """The memory's words the value comes from (none for a default)."""


class GoldCall(_Released):
    name: str | int
    """The gold tool; a number in `qa_283` of the pinned commit (a known defect, repaired to the schema's name)."""
    arguments: dict[str, Any]
    grounding_info: dict[str, Grounding] = Field(default_factory=dict)


class ToolParameters(_Released):
    type: str = "dict"
    properties: dict[str, dict[str, Any]] = Field(default_factory=dict)
    required: tuple[str, ...] = ()


class ToolSchema(_Released):
    """A tool as BFCL and ToolACE describe one (`parameters.type` is "dict")."""

    name: str
    description: str = ""
    parameters: ToolParameters = Field(default_factory=ToolParameters)


class Complexity(_Released):
    level: Literal["L1", "L2", "L3", "L4"]
    level_name: str = ""
    reasoning: str = ""
    source_count: int = 0
    explicit_count: int = 0
    inferred_count: int = 0
    effective_param_count: int = 0
    has_temporal_conflict: bool = False


class Task(_Released):
    qa_id: str
    query: str
    """The underspecified request."""
    source_conversation_ids: tuple[str, ...]
    evolution_chain: tuple[EvolutionStep, ...] = ()
    tool_call: GoldCall
    target_tool_schema: ToolSchema
    complexity_metadata: Complexity


class TurnFunction(_Released):
    name: str | int
    arguments: dict[str, Any] | str | None = None
    """As released: an object, or the JSON text of one."""


class TurnCall(_Released):
    function: TurnFunction


class Turn(_Released):
    role: str
    content: str | None = None
    """None when the turn is a tool call."""
    source_id: str | None = None
    """The original conversation the turn comes from."""
    tool_calls: tuple[TurnCall, ...] | None = None
    name: str | None = None
    """The tool's name, on a tool's reply."""


class Session(_Released):
    session_id: str
    original_conversation_ids: tuple[str, ...]
    turn_count: int = 0
    """User turns."""
    token_count: int = 0
    has_tool_calls: bool = False
    turns: tuple[Turn, ...]


class Statistics(_Released):
    total_sessions: int
    total_qa: int


def unmodelled(record: BaseModel, prefix: str = "") -> set[str]:
    """Names of released fields no model names, anywhere in `record` (dotted from its top)."""
    names = {f"{prefix}{name}" for name in (record.model_extra or {})}
    for field in type(record).model_fields:
        value = getattr(record, field)
        values = value if isinstance(value, tuple) else tuple(value.values()) if isinstance(value, dict) else (value,)
        for item in values:
            if isinstance(item, BaseModel):
                names |= unmodelled(item, f"{prefix}{field}.")
    return names
