"""`StructuredMemory`: the structure-aware memory system (`name="structured"`).

Documents are stored verbatim in an evaluation store; `build` extracts each pending document into
an `IndexedDoc` row (analysed fields plus structure, see `extraction`); `recall` ranks with a
`ScopeIndex` built from those rows (see `ranking`). The index is cached per scope and rebuilt when
the scope's extracted rows change, which a cheap count checks on every recall, so another process
writing to the same store is noticed. Everything is computed from the corpus: no network, no
model weights.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path

from adapters.benchmarks.base import Document
from adapters.memory.protocol import Candidate, ScopeState, estimate_tokens
from adapters.memory.structured.extraction import extract, from_json, to_json
from adapters.memory.structured.ranking import RankingOptions, ScopeIndex
from ledger.errors import NotAnEvaluationStore

__all__ = ["StructuredMemory"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS structured_documents (
    scope TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    document TEXT NOT NULL,
    extracted TEXT,
    PRIMARY KEY (scope, doc_id)
);
CREATE INDEX IF NOT EXISTS structured_pending ON structured_documents (scope, extracted)
    WHERE extracted IS NULL;
"""


class StructuredMemory:
    """BM25F with stemming and feedback, rescored by speakers, neighbours, time and decisions."""

    name = "structured"
    version = "1.0.0"

    def __init__(self, path: str | Path | None = None, *, options: RankingOptions | None = None) -> None:
        self.options = options or RankingOptions()
        self.path = Path(path) if path else Path("benchledger-memory.db")
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._db.executescript(_SCHEMA)
        self._indexes: dict[str, tuple[tuple[int, int], ScopeIndex]] = {}

    def ingest(self, scope: str, documents: Sequence[Document]) -> int:
        rows = [(scope, d.doc_id, d.position, d.model_dump_json()) for d in documents]
        with self._db:
            before = self._db.total_changes
            self._db.executemany(
                "INSERT OR IGNORE INTO structured_documents (scope, doc_id, position, document)"
                " VALUES (?, ?, ?, ?)", rows)
            return self._db.total_changes - before

    def build(self, scope: str, batch_size: int = 1000) -> Iterator[list[str]]:
        while True:
            pending = self._db.execute(
                "SELECT doc_id, document FROM structured_documents"
                " WHERE scope = ? AND extracted IS NULL ORDER BY position, doc_id LIMIT ?",
                (scope, batch_size)).fetchall()
            if not pending:
                return
            extracted = [(to_json(extract(Document.model_validate_json(body))), scope, doc_id)
                         for doc_id, body in pending]
            with self._db:
                self._db.executemany(
                    "UPDATE structured_documents SET extracted = ? WHERE scope = ? AND doc_id = ?",
                    extracted)
            yield [doc_id for doc_id, _ in pending]

    def state(self, scope: str) -> ScopeState:
        documents, pending = self._db.execute(
            "SELECT count(*), count(*) - count(extracted) FROM structured_documents WHERE scope = ?",
            (scope,)).fetchone()
        return ScopeState(documents=documents, pending_chunks=pending)

    def recall(self, scope: str, query: str, *, asking_user: str | None, k: int,
               token_budget: int | None, question_time: datetime | None = None) -> list[Candidate]:
        index = self._index(scope)
        candidates: list[Candidate] = []
        used = 0
        for slot, score in index.rank(query, asking_user)[:k]:
            document = self._document(scope, index.docs[slot].doc_id)
            cost = estimate_tokens(document.text)
            if token_budget is not None and used + cost > token_budget:
                break
            used += cost
            candidates.append(Candidate(rank=len(candidates) + 1, score=score, document=document))
        return candidates

    def purge(self, scope: str) -> int:
        with self._db:
            removed = self._db.execute(
                "DELETE FROM structured_documents WHERE scope = ?", (scope,)).rowcount
        self._indexes.pop(scope, None)
        return removed

    def close(self) -> None:
        self._indexes.clear()
        self._db.close()

    def _document(self, scope: str, doc_id: str) -> Document:
        (body,) = self._db.execute(
            "SELECT document FROM structured_documents WHERE scope = ? AND doc_id = ?",
            (scope, doc_id)).fetchone()
        return Document.model_validate_json(body)

    def _index(self, scope: str) -> ScopeIndex:
        generation = self._db.execute(
            "SELECT count(extracted), coalesce(max(rowid), 0) FROM structured_documents"
            " WHERE scope = ?", (scope,)).fetchone()
        cached = self._indexes.get(scope)
        if cached and cached[0] == generation:
            return cached[1]
        rows = self._db.execute(
            "SELECT extracted FROM structured_documents WHERE scope = ? AND extracted IS NOT NULL",
            (scope,)).fetchall()
        index = ScopeIndex([from_json(row) for (row,) in rows], self.options)
        self._indexes[scope] = (tuple(generation), index)
        return index
