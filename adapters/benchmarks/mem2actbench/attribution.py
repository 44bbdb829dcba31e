"""Why an action went wrong, from the ledger alone: the recorded recall, the recorded answer, the planned task.

Per task, one label, the first that applies:

- `correct`: the action is exact (nothing went wrong);
- `no_call`: the reply held no valid call (missing, or not parseable);
- `tool_selection_error`: a call of another tool than the gold one;
- otherwise, over the gold arguments the call got wrong (`scoring.score_action`), the gravest of
  their causes, in this order:
  - `memory_missing`: the release holds no turn for it (its conversation is missing from the split:
    a defect of the release, not of the memory);
  - `retrieval_miss`: the turns that ground it were not recalled (not one of them);
  - `hallucinated_default`: they were recalled, the memory grounds another value (explicitly or by
    inference), and the call gave the schema's default instead (or left it out, so the default applies);
  - `retrieved_but_unused`: they were recalled, and the call gave some other value;
  - `other`: a default-grounded argument given another value;
- `extra_arguments`: every gold argument right, but the call added ones the gold call does not name.

The turns that ground an argument are those the loader found holding its `grounding_info.source_text`
(or every evidence turn of the task); a turn counts as recalled when a recalled candidate names it
(a document, or a derived candidate listing it among its sources). The paper's fifth type, Lossless
Retention Failure (a memory that kept the fact but lost its detail), needs the recalled text read
against the fact, which this fold does not do.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from benchledger.adapters.benchmarks.mem2actbench.scoring import ActionScore, normalise, score_action
from benchledger.adapters.models.tool_calls import Action

__all__ = ["LABELS", "attribute", "argument_causes"]

LABELS = ("correct", "no_call", "tool_selection_error", "memory_missing", "retrieval_miss", "hallucinated_default",
          "retrieved_but_unused", "other", "extra_arguments")
_GRAVITY = ("memory_missing", "retrieval_miss", "hallucinated_default", "retrieved_but_unused", "other")


def _cause(name: str, grounded: dict[str, Any], given: dict[str, Any], properties: dict[str, Any],
           recalled: Collection[str]) -> str:
    kind = grounded.get("type", "explicit")
    if kind == "default":
        return "other"
    needed = grounded.get("evidence") or []
    if not needed:
        return "memory_missing"
    if not any(doc in recalled for doc in needed):
        return "retrieval_miss"
    found = properties.get(name)
    spec: dict[str, Any] = found if isinstance(found, dict) else {}
    if "default" in spec and normalise(given.get(name, spec["default"]), spec) == normalise(spec["default"], spec):
        return "hallucinated_default"
    return "retrieved_but_unused"


def argument_causes(score: ActionScore, action: Action, extra: dict[str, str], recalled: Collection[str]) -> dict[str, str]:
    """gold parameter the call got wrong -> its cause (see the module docstring)."""
    if action.call is None or not score.tool_selected:
        return {}
    grounding = json.loads(extra.get("grounding", "{}"))
    properties = (json.loads(extra["tool_schema"]).get("parameters") or {}).get("properties") or {}
    given = dict(action.call.get("arguments") or {})
    return {name: _cause(name, grounding.get(name, {}), given, properties, recalled) for name in score.wrong}


def attribute(action: Action, extra: dict[str, str], recalled: Collection[str]) -> tuple[str, ActionScore, dict[str, str]]:
    """(the task's label, its scores, the cause of each wrong argument) for a recorded action."""
    gold = json.loads(extra["gold_call"])
    score = score_action(action.call, gold, json.loads(extra["tool_schema"]))
    if score.exact:
        return "correct", score, {}
    if not score.called:
        return "no_call", score, {}
    if not score.tool_selected:
        return "tool_selection_error", score, {}
    causes = argument_causes(score, action, extra, recalled)
    if not causes:
        return "extra_arguments", score, {}
    return min(causes.values(), key=_GRAVITY.index), score, causes
