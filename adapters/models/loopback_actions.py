"""What the loopback endpoint answers an action benchmark's agent: the offline agent's tool call.

A request whose user prompt is an action prompt (`Memory:` ... `Request:` ..., see
`adapters.benchmarks.mem2actbench.prompts`; the role is `agent`) is answered with the call
`adapters.models.offline_actions.offline_call` makes over the prompt's memory: as one `tool_calls`
entry when the request offers `tools` (the function names as offered), else as the JSON call
`{"name", "arguments"}` in the content, the paper's way. The faults that change a reply's content
(`reply`, `empty`, `bad_json`) apply to the JSON call; a `reply` fault on a tools request answers
in text with no tool call; `no_tools` refuses any request offering tools with HTTP 400, as an
endpoint without the tools interface does.
"""

from __future__ import annotations

import json
from typing import Any

from benchledger.adapters.benchmarks.mem2actbench.prompts import parse_prompt
from benchledger.adapters.models.offline_actions import offline_call

__all__ = ["is_action_prompt", "action_reply"]


def is_action_prompt(prompt: str) -> bool:
    return parse_prompt(prompt) is not None


def action_reply(body: dict[str, Any], prompt: str) -> tuple[dict[str, Any] | None, str] | None:
    """(the tool call entry, or None, and the content text) answering an action prompt; None for any other."""
    parsed = parse_prompt(prompt)
    if parsed is None:
        return None
    passages, request, listed = parsed
    offered = [t["function"] for t in body.get("tools") or [] if isinstance(t, dict) and isinstance(t.get("function"), dict)]
    if offered:
        call = offline_call(request, passages, offered)
        if call is None:
            return None, ""
        return {"id": "call_action_0", "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])}}, ""
    call = offline_call(request, passages, listed or [])
    return None, json.dumps(call) if call is not None else "I cannot act on that."
