"""An answer that is an action: one tool call, asked for through the tools interface or as JSON, read strictly.

Two ways to ask, recorded per answer as its `interface` (the offline agent's is `offline`):

- `tools`: the OpenAI-compatible tools interface, the call forced (`tool_choice` names the one tool
  offered, or is "required" among several). The chat client records such a reply as its message
  (`tool_reply_text`): `{"content": ..., "tool_calls": [{"name", "arguments"}]}` with the arguments
  exactly the string the endpoint sent. It must hold exactly one call whose arguments are a JSON
  object; none is a missing call, several or arguments that are not an object an unparseable one.
- `json`: the reply text is the call, `{"name": "...", "arguments": {...}}`, as the paper's agents
  answer: one JSON object with exactly those two keys (a non-empty string and an object), alone in
  the reply or alone in one fenced code block. Anything else is unparseable: no prose is searched
  for a call, no trailing comma forgiven.

An unparseable or missing call is the agent's wrong action, never an operational failure: the
answer is recorded, and scores 0. What is recorded as the answer (`QuestionAnswered.answer`) is the
action record, canonical JSON: `{"call": {"name", "arguments"} | null, "error": "", "interface"}`
plus `missing` (no call at all, rather than an unreadable one) (`action_record`, read back by
`read_action`).
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal, NamedTuple

from benchledger.errors import BadInput
from benchledger.json_input import load_json

__all__ = ["Interface", "MAX_CALL_BYTES", "Action", "CallRefused", "parse_json_call", "parse_tool_reply", "tool_reply_text",
           "action_record", "read_action", "TOOL_REPLY_KEYS"]

Interface = Literal["tools", "json", "offline"]
MAX_CALL_BYTES = 64 * 1024
"""The longest reply read as a call: a tool call is a few hundred bytes; past this it is refused as no
call (the raw reply is kept as a blob), so an endpoint cannot grow the answer the ledger's event holds."""
TOOL_REPLY_KEYS = ("content", "tool_calls")
_FENCE = re.compile(r"\A```[A-Za-z0-9_-]*\n(.*?)\n?```\Z", re.DOTALL)


class Action(NamedTuple):
    """What an answer did: a call, or why there is none, and how it was asked."""

    call: dict[str, Any] | None
    """{"name", "arguments"}; None when the reply held no valid call."""
    error: str
    """Why there is no valid call ("" when there is one)."""
    interface: Interface
    missing: bool = False
    """True when the reply made no call at all (no tool call, an empty JSON reply), not an unreadable one."""


class CallRefused(ValueError):
    """The reply holds no call the rules accept (the reason is the message)."""

    def __init__(self, reason: str, *, missing: bool = False) -> None:
        super().__init__(reason)
        self.missing = missing


def _object(text: str, what: str) -> Any:
    try:
        return load_json(text, source=what, limit=MAX_CALL_BYTES)
    except BadInput as err:  # too large, too deep, or not JSON: the agent's answer, read as no call
        raise CallRefused(f"{what} is not a JSON value the rules read: {err.detail}") from None


def parse_json_call(text: str) -> dict[str, Any]:
    """The call a `json` reply makes (see the module docstring); CallRefused saying why not."""
    body = text.strip()
    if fenced := _FENCE.match(body):
        body = fenced.group(1).strip()
    if not body:
        raise CallRefused("the reply holds no call", missing=True)
    value = _object(body, "the reply")
    if not isinstance(value, dict):
        raise CallRefused("the reply is JSON but not an object {name, arguments}")
    if set(value) != {"name", "arguments"}:
        raise CallRefused(f"the call's keys are {sorted(value)}, not exactly name and arguments")
    if not isinstance(value["name"], str) or not value["name"].strip():
        raise CallRefused("the call's name is not a non-empty string")
    if not isinstance(value["arguments"], dict):
        raise CallRefused("the call's arguments are not an object")
    return {"name": value["name"], "arguments": value["arguments"]}


def tool_reply_text(content: str | None, calls: list[tuple[str, str]]) -> str:
    """A tools-interface reply as the chat client records it: its content and (name, arguments) calls."""
    return json.dumps({"content": content, "tool_calls": [{"name": n, "arguments": a} for n, a in calls]},
                      ensure_ascii=False, sort_keys=True)


def parse_tool_reply(text: str, names: dict[str, str] | None = None) -> dict[str, Any]:
    """The one call a recorded tools-interface reply makes; `names` maps the function names offered
    back to the tools' released names. CallRefused when there is not exactly one valid call."""
    reply = _object(text, "the recorded reply")
    if not isinstance(reply, dict) or set(reply) != set(TOOL_REPLY_KEYS) or not isinstance(reply["tool_calls"], list):
        raise CallRefused("the recorded reply is not a tools-interface message")
    calls = reply["tool_calls"]
    if not calls:
        raise CallRefused("the reply makes no tool call" + (" (it answered in text)" if reply["content"] else ""),
                          missing=True)
    if len(calls) > 1:
        raise CallRefused(f"the reply makes {len(calls)} tool calls, not one")
    (call,) = calls
    name, raw = call.get("name"), call.get("arguments")
    if not isinstance(name, str) or not name:
        raise CallRefused("the tool call names no function")
    arguments = _object(raw, "the call's arguments") if isinstance(raw, str) else raw
    if not isinstance(arguments, dict):
        raise CallRefused("the call's arguments are not a JSON object")
    return {"name": (names or {}).get(name, name), "arguments": arguments}


def action_record(action: Action) -> str:
    """What is recorded as the answer (canonical JSON)."""
    return json.dumps({"call": action.call, "error": action.error, "interface": action.interface,
                       "missing": action.missing},
                      ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def read_action(answer: str) -> Action:
    """A recorded action record; one that is not (an answer from another protocol) has no call."""
    try:
        value = json.loads(answer)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict) or "call" not in value:
        return Action(None, "the recorded answer is not an action record", "json")
    call = value.get("call")
    valid = isinstance(call, dict) and isinstance(call.get("name"), str) and isinstance(call.get("arguments"), dict)
    shown = value.get("interface")
    interface: Interface = shown if shown in ("tools", "json", "offline") else "json"
    return Action(call if valid else None, str(value.get("error", "")) if valid or call is None
                  else "the recorded call is malformed", interface, missing=value.get("missing") is True)
