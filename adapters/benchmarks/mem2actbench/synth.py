"""A deterministic synthetic Mem2ActBench release in the published layout, for tests, docs and offline demos.

It writes both folders, `toolmembench_small/` and `Mem2ActBench/`, each with `qa_dataset.jsonl`,
`toolmem_conversation.jsonl` and `benchmark_statistics.json`, read by the loader with every rule
it applies to the real one. Every schema feature is present:

- all four levels, cycling L1 L1 L2 L1 L4 L2 L1 L3 L1 L4 (about the paper's mix, every level at 10
  tasks): L1 states each argument once; L2 lets one be inferred; L3 states the arguments in two
  original conversations; L4 states one argument twice, the later value the gold one
  (`has_temporal_conflict`);
- explicit, inferred and default grounding (a parameter with a schema default is grounded as
  that default unless the task states it);
- tool calls inside sessions: an assistant turn with `tool_calls` (content null) and the tool's
  reply (role `tool`, its `name`);
- a session merges several original conversations, each turn carrying its `source_id`;
- the known defects of the pinned commit: one task names its gold tool with the number 4 (the
  "4D Dream Dictionary"); with 8 tasks or more, one task's sessions are missing from the small
  split (only `Mem2ActBench/` holds them) and one L3 task's second conversation is, so source ids
  are missing; `Mem2ActBench/` also holds sessions of small talk no task needs.

The same seed writes the same bytes. Conversation ids start with `syn_`, people and places are made up.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from benchledger.adapters.benchmarks.mem2actbench.release import SESSIONS_FILE, STATISTICS_FILE, TASKS_FILE
from benchledger.adapters.benchmarks.mem2actbench.synth_world import (
    ASSISTANT_REPLIES, NON_STRING_TOOL, SMALL_TALK, TOOLS, Param, Tool,
)

__all__ = ["SynthSummary", "synthesize_mem2actbench", "LEVEL_CYCLE", "MIN_TASKS"]

LEVEL_CYCLE = ("L1", "L1", "L2", "L1", "L4", "L2", "L1", "L3", "L1", "L4")
MIN_TASKS = 4
"""Enough for every level (and the non-string tool name)."""
_LEVEL_NAMES = {"L1": "direct copy", "L2": "inferred", "L3": "multi-source aggregation", "L4": "conflict resolution"}


class SynthSummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    out_dir: str
    tasks: int
    levels: dict[str, int]
    sessions: dict[str, int]
    """split folder -> sessions it holds."""
    defects: list[str]


def _tool_for(level: str, index: int, rng: random.Random) -> Tool:
    if index == 3:
        return next(t for t in TOOLS if t.name == NON_STRING_TOOL)
    usable = [t for t in TOOLS if t.name != NON_STRING_TOOL and (
        level != "L2" or any(p.inferred for p in t.params)) and (
        level != "L3" or sum(p.default is None for p in t.params) >= 2)]
    return usable[(index * 7 + rng.randrange(len(usable))) % len(usable)]


def _statement(param: Param, value: Any) -> str:
    return f"my {param.attribute} is {value}."


def _opening(sentence: str) -> str:
    return sentence[0].upper() + sentence[1:]


def _facts(tool: Tool, level: str, rng: random.Random) -> tuple[dict, dict, list[tuple[int, Param, Any, str]]]:
    """(arguments, grounding, facts as (conversation, param, value, sentence) in the order said)."""
    arguments: dict[str, Any] = {}
    grounding: dict[str, dict] = {}
    facts: list[tuple[int, Param, Any, str]] = []
    inferred = next((p for p in tool.params if p.inferred), None) if level == "L2" else None
    conflict = next((p for p in tool.params if p.default is None), tool.params[0]) if level == "L4" else None
    stated = 0
    for param in tool.params:
        if param is inferred:
            value, sentence = param.inferred[0]
            arguments[param.name] = value
            grounding[param.name] = {"type": "inferred", "source_text": sentence}
            facts.append((0, param, value, sentence))
            continue
        if param.default is not None and rng.random() < 0.6:
            arguments[param.name] = param.default
            grounding[param.name] = {"type": "default", "source_text": None}
            continue
        value = rng.choice(param.values)
        conversation = stated % 2 if level == "L3" else 0
        stated += 1
        if param is conflict:
            old = rng.choice([v for v in param.values if v != value])
            facts.append((0, param, old, _opening(_statement(param, old))))
            sentence = f"I moved on from {old}; these days {_statement(param, value)}"
            facts.append((1, param, value, sentence))
        else:
            sentence = _opening(_statement(param, value))
            facts.append((conversation, param, value, sentence))
        arguments[param.name] = value
        grounding[param.name] = {"type": "explicit", "source_text": sentence}
    return arguments, grounding, facts


def _conversation(cid: str, sentences: list[str], rng: random.Random, *, tool_call: Tool | None = None,
                  user_turns: int = 4) -> list[dict]:
    """User and assistant turns of one original conversation, the sentences said at random user turns."""
    turns: list[dict] = []
    user_turns = max(user_turns, len(sentences) + 2)
    spots = sorted(rng.sample(range(user_turns), len(sentences)))
    said = dict(zip(spots, sentences))
    for n in range(user_turns):
        talk = rng.choice(SMALL_TALK)
        content = f"{talk} {_opening(said[n])}" if n in said else talk
        turns.append({"role": "user", "content": content, "source_id": cid, "tool_calls": None, "name": None})
        if tool_call is not None and n == 1:
            param = tool_call.params[0]
            arguments = {param.name: rng.choice(param.values)} if param.values else {}
            turns.append({"role": "assistant", "content": None, "source_id": cid, "name": None,
                          "tool_calls": [{"function": {"name": tool_call.name, "arguments": arguments}}]})
            turns.append({"role": "tool", "content": json.dumps({"status": "ok"}), "source_id": cid,
                          "tool_calls": None, "name": tool_call.name})
        turns.append({"role": "assistant", "content": rng.choice(ASSISTANT_REPLIES), "source_id": cid,
                      "tool_calls": None, "name": None})
    return turns


def _session(sid: str, blocks: list[tuple[str, list[dict]]]) -> dict:
    turns = [turn for _, block in blocks for turn in block]
    return {"session_id": sid, "original_conversation_ids": [cid for cid, _ in blocks],
            "turn_count": sum(t["role"] == "user" for t in turns),
            "token_count": sum(len((t["content"] or "").split()) for t in turns),
            "has_tool_calls": any(t["tool_calls"] for t in turns), "turns": turns}


def _task(index: int, seed: int) -> tuple[dict, list[dict], list[dict], list[str]]:
    """(the task, its sessions in the small split, sessions only the full split holds, defects made)."""
    level = LEVEL_CYCLE[index % len(LEVEL_CYCLE)]
    rng = random.Random(f"{seed}:task:{index}")
    tool = _tool_for(level, index, rng)
    arguments, grounding, facts = _facts(tool, level, rng)
    qa_id = f"qa_{index + 1:03d}"
    cids = [f"syn_toolace_{seed}_{index:03d}{part}" for part in "ab"]
    filler = f"syn_oasst_{seed}_{index:03d}"
    used = sorted({conversation for conversation, *_ in facts}) or [0]
    source_ids = [cids[c] for c in used]
    said = {c: [sentence for conv, _, _, sentence in facts if conv == c] for c in used}
    facts_blocks = [(cids[c], _conversation(cids[c], said[c], rng)) for c in used]
    blocks = [(filler, _conversation(filler, [], rng, tool_call=rng.choice(TOOLS), user_turns=rng.randint(4, 7))),
              (f"{filler}b", _conversation(f"{filler}b", [], rng, user_turns=rng.randint(3, 6)))]
    for block in facts_blocks:  # the fact conversations keep their order (a conflict's later value is said later)
        blocks.insert(rng.randint(blocks.index(facts_blocks[0]) + 1 if block is not facts_blocks[0] else 0,
                                  len(blocks)), block)
    small, full_only, defects = [_session(f"syn_session_{seed}_{index:03d}", blocks)], [], []
    if index == 5:  # every session of this task is missing from the small split
        small, full_only = [], small
        defects.append(f"{qa_id}: its sessions are only in Mem2ActBench/")
    elif level == "L3" and len(used) > 1 and index == 7:  # its second conversation is missing
        lost = cids[used[-1]]
        small = [_session(f"syn_session_{seed}_{index:03d}", [b for b in blocks if b[0] != lost])]
        full_only = [_session(f"syn_session_{seed}_{index:03d}b", [b for b in blocks if b[0] == lost])]
        defects.append(f"{qa_id}: source {cids[used[-1]]} is only in Mem2ActBench/")
    explicit = sum(g["type"] == "explicit" for g in grounding.values())
    inferred = sum(g["type"] == "inferred" for g in grounding.values())
    task = {
        "qa_id": qa_id, "query": rng.choice(tool.requests), "source_conversation_ids": source_ids,
        "evolution_chain": [{"attribute": param.attribute, "fact": f"{param.attribute}: {value}",
                             "source_id": cids[conv], "source_text": sentence}
                            for conv, param, value, sentence in facts],
        "tool_call": {"name": 4 if tool.name == NON_STRING_TOOL else tool.name, "arguments": arguments,
                      "grounding_info": grounding},
        "target_tool_schema": tool.schema(),
        "complexity_metadata": {
            "level": level, "level_name": _LEVEL_NAMES[level], "reasoning": f"synthetic {_LEVEL_NAMES[level]} task",
            "source_count": len(used), "explicit_count": explicit, "inferred_count": inferred,
            "effective_param_count": explicit + inferred, "has_temporal_conflict": level == "L4"},
    }
    if tool.name == NON_STRING_TOOL:
        defects.append(f"{qa_id}: tool_call.name is the number 4")
    return task, small, full_only, defects


def _write_split(folder: Path, tasks: list[dict], sessions: list[dict]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / TASKS_FILE).open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(task, ensure_ascii=False) + "\n" for task in tasks)
    with (folder / SESSIONS_FILE).open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(session, ensure_ascii=False) + "\n" for session in sessions)
    (folder / STATISTICS_FILE).write_text(json.dumps({"total_sessions": len(sessions), "total_qa": len(tasks)}),
                                          encoding="utf-8")


def synthesize_mem2actbench(out_dir: Path, *, tasks: int = 40, seed: int = 0) -> SynthSummary:
    """Write a synthetic release of `tasks` tasks under `out_dir` (both split folders)."""
    out = Path(out_dir)
    written, small, full, defects = [], [], [], []
    for index in range(max(tasks, MIN_TASKS)):
        task, in_small, full_only, made = _task(index, seed)
        written.append(task)
        small += in_small
        full += in_small + full_only
        defects += made
    rng = random.Random(f"{seed}:distractors")
    for n in range(max(2, len(written) // 4)):
        cid = f"syn_oasst_{seed}_extra{n:03d}"
        full.append(_session(f"syn_session_{seed}_extra{n:03d}", [(cid, _conversation(cid, [], rng))]))
    _write_split(out / "toolmembench_small", written, small)
    _write_split(out / "Mem2ActBench", written, full)
    levels = {level: sum(t["complexity_metadata"]["level"] == level for t in written) for level in _LEVEL_NAMES}
    return SynthSummary(out_dir=str(out), tasks=len(written), levels=levels,
                        sessions={"toolmembench_small": len(small), "Mem2ActBench": len(full)}, defects=defects)
