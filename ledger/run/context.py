"""The packed context shown to the answer model, in the released GroupMemBench passage shape.

Each recalled document becomes `[i] [user=<author> / speaker_role=<role> / channel=<channel> /
phase_name=<phase> / topic=<topic> / timestamp=<ts> / reply_to=<id> / msg_node=<id>]` followed by
its content, empty fields omitted. The same text is stored as a blob on ContextRecalled, so what
the model saw can always be shown again.
"""

from __future__ import annotations

from collections.abc import Sequence

from adapters.benchmarks.base import Document
from adapters.memory.protocol import Candidate

__all__ = ["format_passage", "render_context"]


def format_passage(doc: Document) -> str:
    tags = [f"user={doc.author or '?'}"]
    fields = (
        ("speaker_role", doc.role), ("channel", doc.channel), ("phase_name", doc.phase),
        ("topic", doc.topic), ("timestamp", doc.timestamp.isoformat() if doc.timestamp else None),
        ("reply_to", doc.reply_to), ("msg_node", doc.doc_id),
    )
    tags += [f"{label}={value}" for label, value in fields if value not in (None, "")]
    return f"[{' / '.join(tags)}]\n{doc.text.strip()}".strip()


def render_context(candidates: Sequence[Candidate]) -> str:
    return "\n\n".join(f"[{i}] {format_passage(c.document)}" for i, c in enumerate(candidates, start=1))
