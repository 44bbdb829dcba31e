"""The candidate tools a task offers the agent, and those tools in the OpenAI tools interface's terms.

The pool is every distinct tool of the split (each task's `target_tool_schema`, the first schema of
each name in file order; a task whose released `tool_call.name` is not a string is named by its
schema). With one candidate the agent gets the gold tool only (the paper's main setting). With N,
it gets the gold tool and N-1 negatives of other names, drawn per task with
`random.Random(f"{seed}:{qa_id}")`:

- `random`: N-1 tools sampled from the pool sorted by name;
- `hard`: the N-1 tools most like the gold one, by the Jaccard similarity of their word sets (the
  name, the description and the parameter names, lower-cased, split at anything not a letter or
  digit), ties broken by the same generator.

The offered tools are then shuffled by that generator, so the gold one is not always first. Both
the seed and the result are recorded (the seed in the selection, the offered tools on each task).

The OpenAI tools interface names a function `^[A-Za-z0-9_-]{1,64}$`; a released name with other
characters ("4D Dream Dictionary") is offered as a safe name (each other character an underscore,
cut to 64, a `_2`... suffix where two collide) and a call of that name is read back as the released
one (`tool_names`). Parameter types are BFCL's: `dict` is JSON Schema's `object`, `float` is
`number`, `tuple` is `array`, and `any` has no type (`json_schema`).
"""

from __future__ import annotations

import random
import re
from typing import Any

from benchledger.adapters.benchmarks.mem2actbench.release import gold_tool_name
from benchledger.adapters.benchmarks.mem2actbench.schema import Task, ToolSchema

__all__ = ["tool_pool", "offered_tools", "words", "similarity", "openai_tools", "tool_names", "json_schema"]

_WORD = re.compile(r"[^\W_]+")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_TYPES = {"dict": "object", "float": "number", "tuple": "array", "int": "integer", "str": "string",
          "bool": "boolean", "list": "array"}


def words(tool: ToolSchema) -> frozenset[str]:
    text = " ".join((tool.name, tool.description, *tool.parameters.properties))
    return frozenset(word.casefold() for word in _WORD.findall(text))


def similarity(a: ToolSchema, b: ToolSchema) -> float:
    """Jaccard similarity of the two tools' word sets (0 when both are empty)."""
    left, right = words(a), words(b)
    union = left | right
    return len(left & right) / len(union) if union else 0.0


def _named(task: Task) -> ToolSchema:
    schema = task.target_tool_schema
    name = gold_tool_name(task)
    return schema if schema.name == name else schema.model_copy(update={"name": name})


def tool_pool(tasks: tuple[Task, ...]) -> dict[str, ToolSchema]:
    """name -> the first schema of that name, over every task of the split, in file order."""
    pool: dict[str, ToolSchema] = {}
    for task in tasks:
        pool.setdefault(_named(task).name, _named(task))
    return pool


def offered_tools(task: Task, pool: dict[str, ToolSchema], *, candidates: int, negatives: str,
                  seed: int) -> tuple[ToolSchema, ...]:
    """The tools offered for `task`, in the order the agent sees them (see the module docstring)."""
    gold = _named(task)
    if candidates <= 1:
        return (gold,)
    rng = random.Random(f"{seed}:{task.qa_id}")
    others = [pool[name] for name in sorted(pool) if name != gold.name]
    count = min(candidates - 1, len(others))
    if negatives == "random":
        chosen = rng.sample(others, count)
    else:
        keyed = [(similarity(gold, tool), rng.random(), tool) for tool in others]
        keyed.sort(key=lambda item: (-item[0], item[1]))
        chosen = [tool for _, _, tool in keyed[:count]]
    offered = [gold, *chosen]
    rng.shuffle(offered)
    return tuple(offered)


def json_schema(node: Any) -> Any:
    """A BFCL parameter schema in JSON Schema's words (see the module docstring)."""
    if isinstance(node, list):
        return [json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, str):
            if value == "any":
                continue
            converted[key] = _TYPES.get(value, value)
        elif key == "properties" and isinstance(value, dict):
            converted[key] = {name: json_schema(prop) for name, prop in value.items()}
        else:
            converted[key] = json_schema(value)
    return converted


def tool_names(tools: tuple[ToolSchema, ...]) -> dict[str, str]:
    """safe function name -> the released tool name, for every offered tool."""
    names: dict[str, str] = {}
    for tool in tools:
        safe = _UNSAFE.sub("_", tool.name)[:64] or "tool"
        candidate, n = safe, 1
        while candidate in names:
            n += 1
            candidate = f"{safe[:60]}_{n}"
        names[candidate] = tool.name
    return names


def openai_tools(tools: tuple[ToolSchema, ...]) -> list[dict[str, Any]]:
    """The offered tools as the `tools` parameter of a chat completion, in order."""
    safe = {released: name for name, released in tool_names(tools).items()}
    return [{"type": "function", "function": {
        "name": safe[tool.name], "description": tool.description,
        "parameters": json_schema(tool.parameters.model_dump(mode="json", exclude_none=True))}}
        for tool in tools]
