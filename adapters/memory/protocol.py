"""The memory-system protocol: the system under test.

A memory system stores documents in named scopes, builds them (extracts pending chunks), reports
its state, recalls ranked candidates for a query asked by a given user within k and a token budget,
and purges a scope. The harness never shows it gold answers or evidence labels: `recall` receives
only the question text, the asking user and the question time.

Every implementation opens an evaluation store (a file marked for evaluation, see
`adapters.memory.evalstore`) and must pass `tests/memory_contract.py`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from benchledger.adapters.benchmarks.base import Document

__all__ = ["Candidate", "ScopeState", "MemorySystem", "estimate_tokens", "MemoryError_"]


class Candidate(BaseModel):
    """One recalled unit, ranked, with its structure."""

    model_config = ConfigDict(frozen=True)

    rank: int
    """1-based rank in the recall."""
    score: float
    document: Document
    """The stored document with every structural field."""


class ScopeState(BaseModel):
    """What a memory system holds for one scope."""

    model_config = ConfigDict(frozen=True)

    documents: int
    """Documents stored in the scope."""
    pending_chunks: int
    """Chunks ingested but not yet extracted by build."""


class MemoryError_(Exception):
    """An operational failure inside a memory system (never a wrong answer)."""


def estimate_tokens(text: str) -> int:
    """Deterministic token estimate (about four characters a token) used for budgets.

    Kept dependency-free so budgets are identical on every machine; it is an estimate, and the
    report says budgets are in estimated tokens.
    """
    return max(1, (len(text) + 3) // 4)


@runtime_checkable
class MemorySystem(Protocol):
    """The protocol every memory system implements."""

    @property
    def name(self) -> str:
        """The system's name as reports show it (a class attribute or, for a remote one, per instance)."""

    @property
    def version(self) -> str:
        """The system's version as reports show it."""

    def ingest(self, scope: str, documents: Sequence[Document]) -> int:
        """Store documents in a scope; idempotent by doc_id. Returns how many were new."""

    def build(self, scope: str, batch_size: int = 1000) -> Iterator[list[str]]:
        """Extract pending chunks, yielding the ids extracted per batch, until none are pending."""

    def state(self, scope: str) -> ScopeState:
        """Documents stored and chunks pending in the scope."""

    def recall(
        self,
        scope: str,
        query: str,
        *,
        asking_user: str | None,
        k: int,
        token_budget: int | None,
        question_time: datetime | None = None,
    ) -> list[Candidate]:
        """Up to k ranked candidates whose packed text fits the token budget."""

    def purge(self, scope: str) -> int:
        """Remove the scope; returns documents removed. Refuses a store not marked for evaluation."""

    def close(self) -> None:
        """Release files and connections."""
