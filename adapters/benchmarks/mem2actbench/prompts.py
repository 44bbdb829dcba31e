"""The prompt a Mem2ActBench agent is asked with: benchledger's own, as the paper describes the task.

The paper's prompts are not published, so this one is benchledger's, pinned by its SHA-256 on every
run (`RunStarted.prompt_hashes`): a system message saying the agent acts by calling one tool and
that the memory is what it recalls of the user's earlier sessions; a user message with the memory,
the request and, under the `json` interface, the candidate tools as JSON and the call's shape:

    Memory:
    [1] (user) ...
    [2] (assistant) ...

    Request:
    <the task's query>

    Available tools:
    [<the tools as the release describes them>]

    Call exactly one of the available tools. ...

The memory is the recalled candidates, documents in the order they were said (their position in
the session) and derived text after them in rank order, each `[n] (<role>) <text>`; "(nothing
recalled)" when there is none. Temperature 0, as the paper.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from benchledger.adapters.memory.protocol import Candidate

__all__ = ["SYSTEM", "JSON_INSTRUCTION", "TOOLS_INSTRUCTION", "PROMPT_HASHES", "memory_passages", "user_prompt",
           "parse_prompt", "TEMPERATURE"]

TEMPERATURE = 0
SYSTEM = ("You are an assistant that acts by calling tools. The memory below is what you recall of your earlier "
          "sessions with this user. Use it to fill in whatever the request leaves unsaid, and act: call exactly "
          "one tool.")
JSON_INSTRUCTION = ('Call exactly one of the available tools. Reply with one JSON object and nothing else: '
                    '{"name": "<tool name>", "arguments": {<argument>: <value>, ...}}')
TOOLS_INSTRUCTION = "Call exactly one of the available tools."
PROMPT_HASHES = {name: hashlib.sha256(text.encode("utf-8")).hexdigest() for name, text in (
    ("mem2act_system", SYSTEM), ("mem2act_json_instruction", JSON_INSTRUCTION),
    ("mem2act_tools_instruction", TOOLS_INSTRUCTION))}
_EMPTY = "(nothing recalled)"


def memory_passages(context: Sequence[Candidate]) -> list[str]:
    """The recalled candidates as the prompt shows them, in the order described above."""
    said = sorted((c for c in context if c.document is not None), key=lambda c: (c.document.position, c.rank))  # type: ignore[union-attr]
    derived = sorted((c for c in context if c.document is None), key=lambda c: c.rank)
    return [f"({c.document.author if c.document and c.document.author else c.kind}) {c.text}" for c in [*said, *derived]]


def user_prompt(passages: Sequence[str], request: str, tools_json: list[dict] | None) -> str:
    memory = "\n".join(f"[{n}] {p}" for n, p in enumerate(passages, 1)) or _EMPTY
    parts = [f"Memory:\n{memory}", f"Request:\n{request}"]
    if tools_json is not None:
        parts.append("Available tools:\n" + json.dumps(tools_json, ensure_ascii=False))
        parts.append(JSON_INSTRUCTION)
    else:
        parts.append(TOOLS_INSTRUCTION)
    return "\n\n".join(parts)


def parse_prompt(prompt: str) -> tuple[list[str], str, list[dict] | None] | None:
    """(passages, request, tools listed or None) of a prompt `user_prompt` made; None for any other text.

    The loopback endpoint reads it to answer as the offline agent would."""
    if not prompt.startswith("Memory:\n") or "\n\nRequest:\n" not in prompt:
        return None
    memory, _, rest = prompt[len("Memory:\n"):].partition("\n\nRequest:\n")
    tools: list[dict] | None = None
    if rest.endswith("\n\n" + JSON_INSTRUCTION) and "\n\nAvailable tools:\n" in rest:
        request, _, listed = rest[:-len(JSON_INSTRUCTION) - 2].partition("\n\nAvailable tools:\n")
        try:
            tools = json.loads(listed)
        except json.JSONDecodeError:
            return None
    elif rest.endswith("\n\n" + TOOLS_INSTRUCTION):
        request = rest[:-len(TOOLS_INSTRUCTION) - 2]
    else:
        return None
    passages = [] if memory == _EMPTY else [line.split("] ", 1)[1] if "] " in line else line
                                             for line in memory.split("\n")]
    return passages, request, tools if isinstance(tools, list) or tools is None else None
