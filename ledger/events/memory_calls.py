"""The memory system's own model calls: one event per call its recording proxy forwarded.

An in-process memory system (mem0) reaches its model only through a proxy benchledger runs on
loopback (`adapters.memory.recording_proxy`); every call it forwards becomes a `MemoryModelCalled`
in the run, so what ingest, build and recall cost per system (calls, tokens, seconds) and which
models the memory really used are facts of the ledger, not what its configuration declared. The
request and response bodies are not kept, only their SHA-256 (they hold the corpus, and the key
never reaches them: the proxy adds it on the way out).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from benchledger.ledger.events.base import Event, Usage
from benchledger.ledger.events.declaration import OPEN_RUN_ONLY, declare

__all__ = ["MemoryModelCalled", "MemoryStage"]

MemoryStage = Literal["ingest", "build", "recall"]
"""The run's stage the call was made in."""


@declare(key=lambda e: f"memory-call:{e.session}:{e.call}", blobs=(), sealing=OPEN_RUN_ONLY, fold="memory_call")
class MemoryModelCalled(Event):
    """One model call the memory system made through benchledger's recording proxy."""

    type: Literal["MemoryModelCalled"] = "MemoryModelCalled"
    """The event type."""
    session: str
    """The proxy's id: one per opened memory system (a run's start, each resume)."""
    call: int
    """1-based order of the call within its proxy session."""
    stage: MemoryStage
    """The stage of the run the call was made in."""
    scope_key: str | None = None
    """The scope being ingested or built, when the stage is ingest or build."""
    question_id: str | None = None
    """The question being recalled for, when the stage is recall."""
    endpoint: Literal["chat", "embeddings", "other"]
    """Which API the memory called (`/chat/completions`, `/embeddings`, anything else)."""
    model_asked: str
    """The model the request named."""
    model_reported: str | None = None
    """The model the endpoint's reply named (None when it named none or the call failed)."""
    usage: Usage = Field(default_factory=Usage)
    """Tokens as the endpoint reported them (an embedding's prompt tokens; completion 0)."""
    latency_ms: float
    """How long the upstream call took, in milliseconds."""
    status: int
    """The upstream HTTP status (0: no reply: a connection failure or a timeout)."""
    upstream: str
    """Where the call went, without credentials ("loopback" for benchledger's offline endpoint)."""
    request_digest: str
    """SHA-256 of the request body the memory sent."""
    response_digest: str = ""
    """SHA-256 of the reply body ('' when there was none)."""
