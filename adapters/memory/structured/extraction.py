"""Chunk extraction for the structured memory: one `IndexedDoc` per document, stored as JSON.

Extraction is what `build` does to a pending document: analyse its text and the description of
any attached image (LoCoMo's `blip_caption`), note whether it dates something, and keep the
structure ranking needs (channel, position, author, reply, time, topic, decision mark). The
result is stored, so a new process rebuilds its in-memory index without analysing text again.
"""

from __future__ import annotations

import json
from datetime import datetime

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.structured.analysis import analyze
from benchledger.adapters.memory.structured.ranking import IndexedDoc
from benchledger.adapters.memory.structured.temporal import has_time_cue

__all__ = ["IMAGE_FIELDS", "extract", "to_json", "from_json"]

IMAGE_FIELDS = ("blip_caption",)
"""`Document.extra` keys that describe an attached image in words."""


def extract(doc: Document) -> IndexedDoc:
    image_text = " ".join(doc.extra[k] for k in IMAGE_FIELDS if doc.extra.get(k))
    return IndexedDoc(
        doc_id=doc.doc_id,
        channel=doc.channel or "",
        position=doc.position,
        author=doc.author,
        reply_to=doc.reply_to,
        timestamp=doc.timestamp,
        is_decision=doc.is_decision,
        has_time_cue=has_time_cue(doc.text),
        topic=doc.topic,
        text_terms=tuple(analyze(doc.text)),
        image_terms=tuple(analyze(image_text)),
        raw_words=tuple(analyze(doc.text, stemmed=False)),
    )


def to_json(indexed: IndexedDoc) -> str:
    row = {**indexed.__dict__}
    row["timestamp"] = indexed.timestamp.isoformat() if indexed.timestamp else None
    return json.dumps(row, separators=(",", ":"))


def from_json(text: str) -> IndexedDoc:
    row = json.loads(text)
    for key in ("text_terms", "image_terms", "raw_words"):
        row[key] = tuple(row[key])
    row["timestamp"] = datetime.fromisoformat(row["timestamp"]) if row["timestamp"] else None
    return IndexedDoc(**row)
