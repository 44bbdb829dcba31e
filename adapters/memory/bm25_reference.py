"""`bm25-reference`: the published GroupMemBench BM25 baseline, reproduced exactly.

The ranking is the official one (`adapters.benchmarks.groupmem.bm25`, proven against the
official outputs by `benchledger conformance`): the content index (`Document.text`, the content
HTML-unescaped once), tokens `[A-Za-z0-9_]+` lower-cased, Okapi BM25 with k1 = 1.5, b = 0.75,
ties to the earlier position, zero-score documents filling the k places in position order, no
result for a query without tokens. Documents are ranked in canonical position order, which the
GroupMemBench adapter makes the official load order.

The query follows the official run script: the question only (`query_fields="question_only"`,
the default). `query_fields="standard"` adds the asking user's id and `"structured"` also their
role (the first role their documents carry), as the official script's other settings do. A
candidate's score is the official item score (bm25 / best bm25 - 0.001 x rank0).

Documents are persisted in the evaluation store; the index is rebuilt in memory per scope when
first asked, and again when the store changes (`PRAGMA data_version` notices other connections).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.benchmarks.groupmem.bm25 import (
    QUERY_FIELDS, BM25Index, author_roles, build_query, tokenize,
)
from benchledger.adapters.memory.documents import pack_candidates
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.memory.stored import StoredMemory
from benchledger.errors import BadInput

__all__ = ["BM25ReferenceMemory", "ScopeIndex"]

_DOCUMENTS = "bm25ref_documents"


@dataclass(frozen=True)
class ScopeIndex:
    """A scope's documents in position order, their BM25 index and each author's first role."""

    documents: tuple[Document, ...]
    index: BM25Index
    roles: dict[str, str]

    @classmethod
    def build(cls, documents: list[Document]) -> ScopeIndex:
        return cls(tuple(documents), BM25Index.build([tokenize(doc.text) for doc in documents]),
                   author_roles((doc.author, doc.role) for doc in documents))


class BM25ReferenceMemory(StoredMemory):
    """The published content-only BM25 baseline over an evaluation store."""

    name = "bm25-reference"
    version = "2.0.0"
    documents_table = _DOCUMENTS

    def __init__(self, store_path: Path | str, *, query_fields: str = "question_only") -> None:
        if query_fields not in QUERY_FIELDS:
            raise BadInput(f"query_fields must be one of {', '.join(QUERY_FIELDS)}, got {query_fields!r}",
                           field="query_fields")
        super().__init__(store_path)
        self.query_fields = query_fields

    def recall(self, scope: str, query: str, *, asking_user: str | None, k: int,
               token_budget: int | None, question_time: datetime | None = None) -> list[Candidate]:
        with self._lock:
            scoped = self._cached_index(
                scope, lambda: ScopeIndex.build([doc for _, doc in self._documents.built(scope)]))
        text = build_query(query, asking_user, query_fields=self.query_fields,  # type: ignore[arg-type]
                           asker_role=scoped.roles.get(asking_user or ""))
        ranked = scoped.index.top(tokenize(text), k)
        return pack_candidates(((item.score, scoped.documents[item.index]) for item in ranked),
                               k=k, token_budget=token_budget)
