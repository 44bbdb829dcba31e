"""The conversation history Memora's model track puts in the answer prompt
(`PromptBuilder.build_conversation_context`).

A header, then one block per session (sessions as loaded, sorted by `session_id`):
`"\n## Session {session_id} - {date}\n"`, a line "User: …" or "Assistant: …" per turn (turns of
any other speaker are dropped), and an empty line; the parts are joined with "\n".

With a token budget (`max_tokens`, which the official code derives from the answer model's
context limit) sessions are taken newest first while they fit; the first that does not fit is cut
turn by turn when more than 100 tokens remain (there any speaker but the assistant is written as
"User") and marked truncated; older sessions are still tried. The kept blocks are put back in
session order and a note on how many were shown opens the history. Tokens are counted by
`count_tokens`: the default is the official fallback when tiktoken is absent, `len(text) // 4`,
which is what the conformance example used; pass a cl100k_base counter to match a run that had
tiktoken.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["HEADER", "ContextMetadata", "approximate_tokens", "build_conversation_context"]

HEADER = ("# Conversation History\nThe following contains all your previous conversations with "
          "this user, in chronological order:\n\n")
_SPEAKERS = {"user": "User", "ai_agent": "Assistant"}
_MIN_PARTIAL = 100


def approximate_tokens(text: str) -> int:
    """The official count without tiktoken: four characters a token."""
    return len(text) // 4


@dataclass
class ContextMetadata:
    total_conversations: int
    included_conversations: int = 0
    truncated_conversations: int = 0
    total_tokens: int = 0
    was_truncated: bool = False


def _session_heading(conversation: Mapping[str, Any]) -> str:
    return (f"\n## Session {conversation.get('session_id', 'unknown')} - "
            f"{conversation.get('date', 'unknown')}\n")


def _session_block(conversation: Mapping[str, Any]) -> str:
    lines = [_session_heading(conversation)]
    for turn in conversation.get("conversation", []):
        speaker = _SPEAKERS.get(turn.get("speaker", "unknown"))
        if speaker is not None:
            lines.append(f"{speaker}: {turn.get('message', '')}")
    lines.append("")
    return "\n".join(lines)


def _partial_block(conversation: Mapping[str, Any], room: int,
                   count_tokens: Callable[[str], int]) -> tuple[str, int]:
    text = _session_heading(conversation)
    tokens = count_tokens(text)
    for turn in conversation.get("conversation", []):
        speaker = "Assistant" if turn.get("speaker", "unknown") == "ai_agent" else "User"
        line = f"{speaker}: {turn.get('message', '')}\n"
        line_tokens = count_tokens(line)
        if tokens + line_tokens > room:
            break
        text += line
        tokens += line_tokens
    return text + "\n[Conversation truncated due to token limit...]", tokens


def _order(session_id: Any) -> Any:
    return session_id if isinstance(session_id, (int, float)) else 0


def build_conversation_context(conversations: Sequence[Mapping[str, Any]],
                               max_tokens: int | None = None,
                               count_tokens: Callable[[str], int] = approximate_tokens,
                               ) -> tuple[str, ContextMetadata]:
    """The history block and what was kept, for sessions in session order."""
    meta = ContextMetadata(total_conversations=len(conversations))
    used = count_tokens(HEADER)
    budget = max_tokens - used if max_tokens else None
    kept: list[tuple[Any, str]] = []
    for conversation in reversed(conversations):
        session_id = conversation.get("session_id", "unknown")
        block = _session_block(conversation)
        tokens = count_tokens(block)
        if budget is None or used + tokens <= budget:
            kept.append((session_id, block))
            used += tokens
            meta.included_conversations += 1
            continue
        room = budget - used
        # The official test `tokens > room` always holds here; only the 100-token floor decides.
        if room > _MIN_PARTIAL:
            partial, partial_tokens = _partial_block(conversation, room, count_tokens)
            # The official code then checks the tokens against those of the text before the
            # first "\n" (always "", 0 tokens), so a partial block with any tokens is kept.
            if partial_tokens > count_tokens(partial.split("\n")[0]):
                kept.append((session_id, partial))
                used += partial_tokens
                meta.included_conversations += 1
        meta.truncated_conversations += 1
        meta.was_truncated = True
    kept.sort(key=lambda item: _order(item[0]))
    parts = [HEADER, *(block for _, block in kept)]
    if meta.was_truncated:
        note = (f"[Note: Showing {meta.included_conversations} of {meta.total_conversations} "
                "conversations due to token limits. Most recent conversations are "
                "prioritized.]\n\n")
        parts.insert(1, note)
        used += count_tokens(note)
    meta.total_tokens = used
    return "\n".join(parts), meta
