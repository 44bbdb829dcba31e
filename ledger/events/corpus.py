"""Events of the write path: fingerprint, ingest, build, verify, purge."""

from __future__ import annotations

from typing import Literal

from benchledger.ledger.events.base import Event

__all__ = [
    "CorpusFingerprinted", "MessagesIngested", "ChunkExtracted", "ScopeVerified",
    "ScopePurged", "RunResumed",
]


class CorpusFingerprinted(Event):
    """The exact selected corpus: its fingerprint and how many documents each scope must hold."""

    type: Literal["CorpusFingerprinted"] = "CorpusFingerprinted"
    fingerprint: str
    """SHA-256 over the adapter version and the selected documents."""
    adapter_version: str
    scopes: dict[str, str]
    """scope_key -> memory scope name (benchmark:<name>:<subset>:<fingerprint>[:key])."""
    expected_documents: dict[str, int]
    """scope_key -> documents selected."""
    documents_available: int
    """Documents in the release before any limit."""

    def idempotency_key(self) -> str:
        return "corpus:fingerprint"


class MessagesIngested(Event):
    """One batch of documents handed to the memory system."""

    type: Literal["MessagesIngested"] = "MessagesIngested"
    scope_key: str
    batch: int
    """Batch number within the scope, from 0."""
    first_doc_id: str
    last_doc_id: str
    count: int
    new: int
    """How many the memory system reported as not already stored."""
    preparation: int = 1
    """1 for the first preparation; resume re-prepares under a new number."""

    def idempotency_key(self) -> str:
        return f"ingest:{self.preparation}:{self.scope_key}:{self.batch}"


class ChunkExtracted(Event):
    """A batch of chunks the memory system extracted during build."""

    type: Literal["ChunkExtracted"] = "ChunkExtracted"
    scope_key: str
    batch: int
    chunk_ids: tuple[str, ...]
    preparation: int = 1

    def idempotency_key(self) -> str:
        return f"build:{self.preparation}:{self.scope_key}:{self.batch}"


class ScopeVerified(Event):
    """The memory system's own account of a scope, checked before any question is scored."""

    type: Literal["ScopeVerified"] = "ScopeVerified"
    scope_key: str
    scope: str
    documents: int
    pending_chunks: int
    expected_documents: int
    ok: bool
    check: int = 1
    """1 for the first check; resume checks again under a new number."""

    def idempotency_key(self) -> str:
        return f"verify:{self.check}:{self.scope_key}"


class ScopePurged(Event):
    """The evaluation scope was removed from the memory store."""

    type: Literal["ScopePurged"] = "ScopePurged"
    scope_key: str
    scope: str
    documents_removed: int
    kept_for_runs: tuple[str, ...] = ()
    """Other runs still using the scope: it was left in place for them (the last one purges it)."""
    preparation: int = 1
    """The preparation this purge ends (a resume that re-prepares purges again)."""

    def idempotency_key(self) -> str:
        return f"purge:{self.preparation}:{self.scope_key}"


class RunResumed(Event):
    """A run is continued from its events by `resume`."""

    type: Literal["RunResumed"] = "RunResumed"
    attempt: int
    """2 for the first resume."""
    fingerprint_on_disk: str
    reprepared: bool
    """True when the memory scope no longer held the corpus and was prepared again."""
    pending_questions: int

    def idempotency_key(self) -> str:
        return f"run:resume:{self.attempt}"
