"""Events of the write path: fingerprint, ingest, build, verify, purge."""

from __future__ import annotations

from typing import Literal

from benchledger.ledger.events.base import Event
from benchledger.ledger.events.declaration import OPEN_RUN_ONLY, Housekeeping, Opens, declare
from benchledger.ledger.events.endpoints import Endpoint, MemoryIdentity

__all__ = [
    "CorpusFingerprinted", "MessagesIngested", "ChunkExtracted", "ScopeVerified",
    "ScopePurged", "RunResumed",
]


@declare(key=lambda e: "corpus:fingerprint", blobs=(), sealing=OPEN_RUN_ONLY, fold="corpus")
class CorpusFingerprinted(Event):
    """The exact selected corpus: its fingerprint and how many documents each scope must hold."""

    type: Literal["CorpusFingerprinted"] = "CorpusFingerprinted"
    """The event type."""
    fingerprint: str
    """SHA-256 over the adapter version and the selected documents."""
    adapter_version: str
    """The benchmark adapter's version, part of the fingerprint."""
    scopes: dict[str, str]
    """scope_key -> memory scope name (benchmark:<name>:<subset>:<fingerprint>[:key])."""
    expected_documents: dict[str, int]
    """scope_key -> documents selected."""
    documents_available: int
    """Documents in the release before any limit."""


@declare(key=lambda e: f"ingest:{e.preparation}:{e.scope_key}:{e.batch}", blobs=(), sealing=OPEN_RUN_ONLY,
         fold="ingested")
class MessagesIngested(Event):
    """One batch of documents handed to the memory system."""

    type: Literal["MessagesIngested"] = "MessagesIngested"
    """The event type."""
    scope_key: str
    """Which scope of the run (default, or a conversation, question or persona id)."""
    batch: int
    """Batch number within the scope, from 0."""
    first_doc_id: str
    """The first document of the batch."""
    last_doc_id: str
    """The last document of the batch."""
    count: int
    """Documents in the batch."""
    new: int
    """How many the memory system reported as not already stored."""
    preparation: int = 1
    """1 for the first preparation; resume re-prepares under a new number."""


@declare(key=lambda e: f"build:{e.preparation}:{e.scope_key}:{e.batch}", blobs=(), sealing=OPEN_RUN_ONLY,
         fold="extracted")
class ChunkExtracted(Event):
    """A batch of chunks the memory system extracted during build."""

    type: Literal["ChunkExtracted"] = "ChunkExtracted"
    """The event type."""
    scope_key: str
    """Which scope of the run."""
    batch: int
    """Build batch number within the scope, from 0."""
    chunk_ids: tuple[str, ...]
    """The chunks the memory system extracted in this batch."""
    preparation: int = 1
    """The preparation this build belongs to (resume re-prepares under a new number)."""


@declare(key=lambda e: f"verify:{e.check}:{e.scope_key}", blobs=(), sealing=OPEN_RUN_ONLY, fold="verified")
class ScopeVerified(Event):
    """The memory system's own account of a scope, checked before any question is scored."""

    type: Literal["ScopeVerified"] = "ScopeVerified"
    """The event type."""
    scope_key: str
    """Which scope of the run."""
    scope: str
    """The memory scope's name."""
    documents: int
    """Documents the memory system reports holding in the scope."""
    pending_chunks: int
    """Chunks the memory system reports still pending extraction."""
    expected_documents: int
    """Documents the run selected for the scope."""
    ok: bool
    """True when the scope holds every selected document and nothing is pending."""
    check: int = 1
    """1 for the first check; resume checks again under a new number."""


@declare(key=lambda e: f"purge:{e.preparation}:{e.scope_key}", blobs=(), sealing=(Housekeeping(),),
         fold="purged")
class ScopePurged(Event):
    """The evaluation scope was removed from the memory store."""

    type: Literal["ScopePurged"] = "ScopePurged"
    """The event type."""
    scope_key: str
    """Which scope of the run."""
    scope: str
    """The memory scope's name."""
    documents_removed: int
    """Documents the memory system removed (0 when kept for other runs)."""
    kept_for_runs: tuple[str, ...] = ()
    """Other runs still using the scope: it was left in place for them (the last one purges it)."""
    preparation: int = 1
    """The preparation this purge ends (a resume that re-prepares purges again)."""


@declare(key=lambda e: f"run:resume:{e.attempt}", blobs=(), sealing=(Opens("run"),), fold="resumed")
class RunResumed(Event):
    """A run is continued from its events by `resume`."""

    type: Literal["RunResumed"] = "RunResumed"
    """The event type."""
    attempt: int
    """2 for the first resume."""
    fingerprint_on_disk: str
    """The corpus fingerprint read from disk at resume (it must equal the recorded one)."""
    reprepared: bool
    """True when the memory scope no longer held the corpus and was prepared again."""
    pending_questions: int
    """Questions the run's own scorer had not judged when the resume began."""
    endpoint: Endpoint | None = None
    """Where this resume's model calls went (None: not recorded, on rows before it was)."""
    agent_model: str | None = None
    """The answer model this resume asked for (an offline model's labelled name when offline)."""
    judge_model: str | None = None
    """The judge model of the run's own scorer during this resume."""
    memory: MemoryIdentity | None = None
    """The memory system this resume recalled from (None: not recorded, on rows before it was)."""
    memory_changed: bool = False
    """True when the user allowed a memory system other than the run's (the run is then diagnostic)."""
