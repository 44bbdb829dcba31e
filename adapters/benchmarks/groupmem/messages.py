"""GroupMemBench messages as the official code loads, indexes and shows them.

Source: CoalMem @ ad676f47, `baselines/common.py` (`load_conversation_messages`,
`message_index_text`, `format_retrieved_message`) and `baselines/bm25/eval_benchmark.py`
(`structured_index_text`). Conformance quirks 27 and 28:

- Order: every message of every channel list, sorted by Python string order on (channel,
  timestamp, msg_node) as released. Channels are grouped, upper case sorts before "_" and before
  lower case, "Msg_184" < "Msg_28", a missing timestamp ("") sorts first, and a timestamp written
  with a space sorts before one written with "T" on the same day. Entries that are not lists, and
  list items that are not objects, are skipped.
- Indexed text: `html.unescape(content).strip()` (content index), or that joined by spaces with
  channel, phase_name, topic, author and role (structured index).
- Passage: `[user=<author or ?> / speaker_role=… / channel=… / phase_name=… / topic=… /
  timestamp=… / reply_to=… / msg_node=…]` + newline + the unescaped, stripped content, the whole
  stripped; a tag whose value is None or "" is left out; the timestamp is the released string.

`OfficialMessage` is one loaded message; `load_messages` takes the parsed corpus JSON, so these
functions read no file themselves.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "OfficialMessage", "load_messages", "order_key", "content_text", "structured_text",
    "format_passage", "passage_of",
]


@dataclass(frozen=True)
class OfficialMessage:
    """One released message with the channel it was listed under."""

    channel: str
    fields: Mapping[str, Any]
    """The message object exactly as released."""

    def get(self, key: str, default: Any = None) -> Any:
        return self.fields.get(key, default)


def order_key(channel: str, timestamp: str, msg_node: str) -> tuple[str, str, str]:
    """The official sort key: plain string order on (channel, timestamp, msg_node)."""
    return (channel, timestamp, msg_node)


def load_messages(corpus: Mapping[str, Any]) -> list[OfficialMessage]:
    """The official message list of a parsed corpus (channel -> messages), in the official order."""
    messages = [
        OfficialMessage(channel, message)
        for channel, listed in corpus.items() if isinstance(listed, list)
        for message in listed if isinstance(message, dict)
    ]
    messages.sort(key=lambda m: order_key(m.channel, m.get("timestamp", ""), m.get("msg_node", "")))
    return messages


def content_text(content: Any) -> str:
    """What the content index holds for a message's content: unescaped and stripped."""
    return html.unescape(content).strip() if isinstance(content, str) else ""


def structured_text(message: OfficialMessage) -> str:
    """What the structured index holds: content, channel, phase_name, topic, author, role."""
    return " ".join([
        content_text(message.get("content")), str(message.channel or ""),
        str(message.get("phase_name") or ""), str(message.get("topic") or ""),
        str(message.get("author") or ""), str(message.get("role") or ""),
    ])


def format_passage(*, author: Any, role: Any, channel: Any, phase_name: Any, topic: Any,
                   timestamp: Any, reply_to: Any, msg_node: Any, body: str) -> str:
    """One retrieved message as the official agent prompt shows it; `body` is the content already
    HTML-unescaped once (as a `Document.text` is), so it is only stripped here."""
    tags = [f"user={author or '?'}"]
    labelled = (("speaker_role", role), ("channel", channel), ("phase_name", phase_name),
                ("topic", topic), ("timestamp", timestamp), ("reply_to", reply_to),
                ("msg_node", msg_node))
    tags += [f"{label}={value}" for label, value in labelled if value not in (None, "")]
    return f"[{' / '.join(tags)}]\n{body.strip()}".strip()


def passage_of(message: OfficialMessage) -> str:
    """`format_passage` of a loaded message."""
    return format_passage(
        author=message.get("author"), role=message.get("role"), channel=message.channel,
        phase_name=message.get("phase_name"), topic=message.get("topic"),
        timestamp=message.get("timestamp"), reply_to=message.get("reply_to"),
        msg_node=message.get("msg_node"), body=content_text(message.get("content")))
