"""Why an action went wrong, from the recorded recall and answer only: one hand-made case per label."""

from __future__ import annotations

import json

import pytest

from benchledger.adapters.benchmarks.mem2actbench.attribution import attribute
from benchledger.adapters.models.tool_calls import Action

SCHEMA = {"name": "get_weather", "parameters": {"type": "dict", "properties": {
    "city": {"type": "string"}, "units": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
    "days": {"type": "integer", "default": 3}}}}
GOLD = {"name": "get_weather", "arguments": {"city": "Porto", "units": "fahrenheit", "days": 3}}
GROUNDING = {"city": {"type": "explicit", "source_text": "my city is Porto", "evidence": ["s:4"]},
             "units": {"type": "inferred", "source_text": "I grew up in Texas", "evidence": ["s:9"]},
             "days": {"type": "default", "source_text": None, "evidence": []}}
EXTRA = {"gold_call": json.dumps(GOLD), "tool_schema": json.dumps(SCHEMA), "grounding": json.dumps(GROUNDING)}


def act(name="get_weather", **arguments) -> Action:
    return Action({"name": name, "arguments": arguments}, "", "tools")


@pytest.mark.parametrize("action, recalled, label, causes", [
    (act(city="Porto", units="fahrenheit"), set(), "correct", {}),
    (Action(None, "the reply makes no tool call", "tools", missing=True), {"s:4", "s:9"}, "no_call", {}),
    (act("get_forecast", city="Porto", units="fahrenheit"), {"s:4", "s:9"}, "tool_selection_error", {}),
    (act(city="Lisbon", units="fahrenheit"), {"s:9"}, "retrieval_miss", {"city": "retrieval_miss"}),
    (act(city="Porto"), {"s:4", "s:9"}, "hallucinated_default", {"units": "hallucinated_default"}),
    (act(city="Porto", units="celsius"), {"s:4", "s:9"}, "hallucinated_default", {"units": "hallucinated_default"}),
    (act(city="Lisbon", units="fahrenheit"), {"s:4"}, "retrieved_but_unused", {"city": "retrieved_but_unused"}),
    (act(city="Porto", units="fahrenheit", days=5), {"s:4", "s:9"}, "other", {"days": "other"}),
    (act(city="Porto", units="fahrenheit", wind=True), {"s:4", "s:9"}, "extra_arguments", {}),
    # the gravest cause names the task: a miss outranks a default given from what was recalled
    (act(city="Lisbon"), {"s:9"}, "retrieval_miss", {"city": "retrieval_miss", "units": "hallucinated_default"}),
])
def test_each_label_on_a_case_made_by_hand(action, recalled, label, causes):
    got, score, per_argument = attribute(action, EXTRA, recalled)
    assert (got, per_argument) == (label, causes)
    assert score.exact is (label == "correct")


def test_an_argument_nothing_in_the_split_says_is_memory_missing_not_a_miss():
    grounding = {**GROUNDING, "city": {"type": "explicit", "source_text": "my city is Porto", "evidence": []}}
    label, _, causes = attribute(act(city="Lisbon", units="fahrenheit"), {**EXTRA, "grounding": json.dumps(grounding)},
                                 {"s:4", "s:9"})
    assert (label, causes) == ("memory_missing", {"city": "memory_missing"})
