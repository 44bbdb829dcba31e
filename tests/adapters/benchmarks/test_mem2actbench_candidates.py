"""The candidate-set setting: the gold tool alone, or with random or hard negatives drawn by a recorded seed;
and the tools as the OpenAI tools interface names them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.mem2actbench.candidates import (
    json_schema, offered_tools, openai_tools, similarity, tool_names, tool_pool,
)
from benchledger.adapters.benchmarks.mem2actbench.loader import load_mem2actbench
from benchledger.adapters.benchmarks.mem2actbench.release import read_release
from benchledger.adapters.benchmarks.mem2actbench.schema import ToolSchema
from benchledger.adapters.benchmarks.mem2actbench.selection import Mem2ActSelection
from benchledger.adapters.benchmarks.registry import benchmark_named
from benchledger.adapters.benchmarks.mem2actbench.synth import synthesize_mem2actbench
from benchledger.errors import BadInput


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    root = tmp_path_factory.mktemp("m2a")
    synthesize_mem2actbench(root, tasks=30, seed=0)
    return read_release(root, "toolmembench_small").tasks, root


def test_one_candidate_is_the_gold_tool_named_as_the_gold_call_is(tasks):
    released, _ = tasks
    pool = tool_pool(released)
    for task in released:
        (only,) = offered_tools(task, pool, candidates=1, negatives="hard", seed=0)
        assert only.name == (task.tool_call.name if isinstance(task.tool_call.name, str) else task.target_tool_schema.name)


@pytest.mark.parametrize("negatives", ["random", "hard"])
@pytest.mark.parametrize("candidates", [2, 5])
def test_n_candidates_hold_the_gold_tool_and_distinct_negatives_drawn_by_the_seed(tasks, candidates, negatives):
    released, _ = tasks
    pool = tool_pool(released)
    positions = set()
    for task in released:
        drawn = offered_tools(task, pool, candidates=candidates, negatives=negatives, seed=0)
        names = [tool.name for tool in drawn]
        assert len(names) == candidates == len(set(names))
        assert offered_tools(task, pool, candidates=candidates, negatives=negatives, seed=0) == drawn
        (gold,) = offered_tools(task, pool, candidates=1, negatives=negatives, seed=0)
        positions.add(names.index(gold.name))
    assert len(positions) > 1  # the gold tool is not always shown first


def test_hard_negatives_are_the_most_similar_tools_and_random_ones_need_not_be(tasks):
    released, _ = tasks
    pool = tool_pool(released)
    task = next(t for t in released if t.target_tool_schema.name == "book_flight")
    gold = pool["book_flight"]
    hard = [t for t in offered_tools(task, pool, candidates=2, negatives="hard", seed=0) if t.name != "book_flight"]
    best = max(similarity(gold, t) for name, t in pool.items() if name != "book_flight")
    assert [similarity(gold, t) for t in hard] == [best] and hard[0].name == "book_train"
    seeds = {tuple(t.name for t in offered_tools(task, pool, candidates=5, negatives="random", seed=s)) for s in range(6)}
    assert len(seeds) > 1  # another seed draws other negatives


def test_the_candidate_setting_is_recorded_on_each_planned_task(tasks):
    _, root = tasks
    given = load_mem2actbench(root, Mem2ActSelection())
    five = load_mem2actbench(root, Mem2ActSelection(candidates=5, negatives="hard", candidate_seed=3))
    assert all(len(json.loads(q.extra["candidate_tools"])) == 1 for q in given.questions)
    assert all(len(json.loads(q.extra["candidate_tools"])) == 5 for q in five.questions)
    assert five.selection.model_dump()["candidate_seed"] == 3
    assert Mem2ActSelection.model_validate({"candidates": "2"}).candidates == 2
    with pytest.raises(BadInput, match="1, 2 or 5"):
        benchmark_named("mem2actbench").selection_of({"candidates": 3})


def test_function_names_are_made_safe_and_read_back_as_released():
    tools = (ToolSchema(name="4D Dream Dictionary"), ToolSchema(name="4D-Dream-Dictionary"), ToolSchema(name="x" * 80),
             ToolSchema(name="4D?Dream?Dictionary"))
    names = tool_names(tools)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name) for name in names)
    assert sorted(names.values()) == sorted(t.name for t in tools) and len(names) == 4
    assert names["4D_Dream_Dictionary"] == "4D Dream Dictionary" and names["4D_Dream_Dictionary_2"] == "4D?Dream?Dictionary"
    offered = openai_tools(tools)
    assert [t["function"]["name"] for t in offered] == list(names)


def test_bfcl_types_are_json_schema_types():
    converted = json_schema({"type": "dict", "properties": {"a": {"type": "float"}, "b": {"type": "tuple",
                             "items": {"type": "any"}}, "c": {"type": "dict", "properties": {"d": {"type": "integer"}}}},
                             "required": ["a"]})
    assert converted == {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "array", "items": {}},
                                                          "c": {"type": "object", "properties": {"d": {"type": "integer"}}}},
                         "required": ["a"]}
