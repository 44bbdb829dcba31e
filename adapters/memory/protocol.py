"""The memory-system protocol: the system under test.

A memory system stores documents in named scopes, builds them (extracts pending chunks), reports
its state, recalls ranked candidates for a query asked by a given user within k and a token budget,
and purges a scope. The harness never shows it gold answers or evidence labels: `recall` receives
only the question text, the asking user and the question time.

Real systems return what they extracted, not stored documents, so a `Candidate` is its text, the
ids of the ingested documents it came from (`sources`: none, one or several), a `kind` and a
score. Per kind (docs/memory-candidates.md):

- `document`: a stored document returned whole. It carries the `document` with every structural
  field, its one source is that document, its text is the document's. The recall check compares it
  with what was ingested (`verbatim`, structural fields).
- `fact`, `summary`, `entity`, `episode`: text the system derived. It carries no document; its
  sources are the documents it says it came from (checked to be ingested), and it may say when it
  held (`timestamp`). Evidence recall counts it toward the documents it names; one naming none
  counts toward none. It is never checked for being verbatim.

The token budget and packing apply to every kind alike, over `text`. A candidate in the shape of
protocol 1 (`rank`, `score`, `document`) still validates, as a `document` candidate, so recorded
candidates and servers of the first HTTP protocol keep working.

Every implementation opens an evaluation store (a file marked for evaluation, see
`adapters.memory.evalstore`) and must pass `benchledger.testing.memory_contract`.

Two optional attributes say how a system likes to be prepared (`orchestration.prepare`):
`concurrent_scopes` (True: the run may ingest and build several scopes at once, up to
`--concurrency`; absent or False: one at a time) and `build_batch` (documents per build batch it
prefers, when fewer than the run's batch size).

A system that can say beforehand which model calls a run would make may offer a classmethod
`planned_calls(options, scopes, *, questions, batch_size) -> list[PlannedCalls]` (mem0 does):
`run --dry-run` prints it beside the answer and judge forecast. It is optional and never asked to
guess: a system whose calls depend on what its model replies (Graphiti's per episode) offers none.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any, Literal, NamedTuple, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, model_validator

from benchledger.adapters.benchmarks.base import Document
from benchledger.settings import setting_default

__all__ = [
    "Candidate", "CandidateKind", "CANDIDATE_KINDS", "ScopeState", "MemorySystem", "estimate_tokens",
    "MemorySystemError", "BATCH_SIZE", "PlannedCalls",
]

BATCH_SIZE: int = setting_default("batch_size")
"""Documents per build batch when the caller names none: a run's default (`RunSettings.batch_size`)."""

CandidateKind = Literal["document", "fact", "summary", "entity", "episode"]
"""What a candidate is: a stored document, or text the memory system derived from documents."""
CANDIDATE_KINDS: tuple[CandidateKind, ...] = ("document", "fact", "summary", "entity", "episode")


class Candidate(BaseModel):
    """One recalled unit, ranked: its text, the ingested documents it came from, its kind."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rank: int
    """1-based rank in the recall."""
    score: float
    """The system's own score (higher ranks first)."""
    kind: CandidateKind = "document"
    """A stored `document`, or text the system derived (`fact`, `summary`, `entity`, `episode`)."""
    text: str
    """What the answer model is shown, and what the token budget counts."""
    sources: tuple[str, ...] = ()
    """doc_ids of the ingested documents it came from: exactly the document's for kind=document;
    none, one or several for derived text."""
    document: Document | None = None
    """kind=document only: the stored document with every structural field."""
    timestamp: datetime | None = None
    """Derived kinds only, optional: when the system says the text held (a fact's valid time)."""

    @model_validator(mode="before")
    @classmethod
    def _from_document(cls, data: Any) -> Any:
        """A document candidate may be given by its document alone (protocol 1's shape)."""
        if isinstance(data, dict) and data.get("document") is not None and "text" not in data:
            document = data["document"]
            if isinstance(document, dict):
                document = Document.model_validate(document)
            if isinstance(document, Document):
                data = {"kind": "document", **data, "document": document, "text": document.text,
                        "sources": data.get("sources", (document.doc_id,))}
        return data

    @model_validator(mode="after")
    def _kind_fits(self) -> Candidate:
        if self.kind == "document":
            if self.document is None:
                raise ValueError("a document candidate carries its document")
            if self.sources != (self.document.doc_id,):
                raise ValueError(f"a document candidate's sources are its own doc_id, not {list(self.sources)}")
            if self.text != self.document.text:
                raise ValueError("a document candidate's text is its document's text")
            if self.timestamp is not None:
                raise ValueError("a document candidate's time is its document's timestamp")
        elif self.document is not None:
            raise ValueError(f"a {self.kind} candidate carries no document (only kind=document does)")
        if len(set(self.sources)) != len(self.sources):
            raise ValueError("a candidate names each source once")
        return self

    @property
    def passage(self) -> Document:
        """What a prompt shows: the document itself, or the derived text as a passage naming its
        sources as its id (comma-separated) and carrying its time."""
        if self.document is not None:
            return self.document
        return Document(doc_id=",".join(self.sources), text=self.text, timestamp=self.timestamp)

    @classmethod
    def of_document(cls, rank: int, score: float, document: Document) -> Candidate:
        """A stored document returned whole."""
        return cls(rank=rank, score=score, kind="document", text=document.text,
                   sources=(document.doc_id,), document=document)


class ScopeState(BaseModel):
    """What a memory system holds for one scope."""

    model_config = ConfigDict(frozen=True)

    documents: int
    """Documents stored in the scope."""
    pending_chunks: int
    """Chunks ingested but not yet extracted by build."""


class PlannedCalls(NamedTuple):
    """Model calls a memory system says a run would make in one stage, to one model (a dry run's forecast)."""

    stage: Literal["ingest", "build", "recall"]
    endpoint: Literal["chat", "embeddings"]
    model: str
    """The model the system would ask for."""
    calls: int
    """The fewest calls it would make."""
    at_most: int | None
    """The most (equal to `calls` when the count is exact; None when it depends on what the model replies)."""


class MemorySystemError(Exception):
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

    def build(self, scope: str, batch_size: int = BATCH_SIZE) -> Iterator[list[str]]:
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
