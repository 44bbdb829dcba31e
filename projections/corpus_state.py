"""corpus_state: documents imported vs expected, chunks still pending extraction, ready to score.

Ready means, for every scope of the run, the memory system's own latest account (ScopeVerified)
holds at least the selected documents with nothing pending, after the latest preparation.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from benchledger.projections.state import RunState

__all__ = ["CORPUS_STATE_VERSION", "ScopeStatus", "CorpusState", "corpus_state"]

CORPUS_STATE_VERSION = 1


class ScopeStatus(BaseModel):
    model_config = ConfigDict(frozen=True)

    scope: str
    expected: int
    ingested: int
    extracted: int
    stored: int | None
    """Documents the memory system reported at the latest check (None before any check)."""
    pending_chunks: int
    ready: bool
    purged: bool


class CorpusState(BaseModel):
    model_config = ConfigDict(frozen=True)

    fingerprint: str | None
    documents_expected: int
    documents_ingested: int
    chunks_extracted: int
    pending_chunks: int
    ready: bool
    scopes: dict[str, ScopeStatus]


def corpus_state(state: RunState) -> CorpusState:
    corpus = state.corpus
    scopes: dict[str, ScopeStatus] = {}
    expected_by_scope = corpus.expected_documents if corpus else {}
    for key, expected in expected_by_scope.items():
        ingested = state.ingested.get(key, 0)
        extracted = state.extracted.get(key, 0)
        check = state.verified.get(key)
        pending = check.pending_chunks if check else max(0, ingested - extracted)
        ready = bool(check and check.ok and check.documents >= expected and check.pending_chunks == 0)
        scopes[key] = ScopeStatus(
            scope=corpus.scopes.get(key, key) if corpus else key, expected=expected, ingested=ingested,
            extracted=extracted, stored=check.documents if check else None,
            pending_chunks=pending, ready=ready, purged=key in state.purged,
        )
    return CorpusState(
        fingerprint=corpus.fingerprint if corpus else None,
        documents_expected=sum(expected_by_scope.values()),
        documents_ingested=sum(s.ingested for s in scopes.values()),
        chunks_extracted=sum(s.extracted for s in scopes.values()),
        pending_chunks=sum(s.pending_chunks for s in scopes.values()),
        ready=bool(scopes) and all(s.ready for s in scopes.values()),
        scopes=scopes,
    )
