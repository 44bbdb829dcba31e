"""`StructuredMemory`: the structure-aware memory system (`name="structured"`).

Documents live in the evaluation store (`adapters.memory.evalstore`) in a `DocumentTable` of their
own. `build` extracts each pending document into an `IndexedDoc` row (analysed fields plus
structure, see `extraction`) stored beside it, in the same transaction that clears its pending
flag. `recall` ranks with a `ScopeIndex` built from those rows (see `ranking`); the index is cached
per scope and dropped when this connection writes or when `PRAGMA data_version` shows another
connection did. Everything is computed from the corpus: no network, no model weights.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from benchledger.adapters.memory.documents import pack_candidates
from benchledger.adapters.memory.evalstore import purge_scope
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.memory.stored import StoredMemory
from benchledger.adapters.memory.structured.extraction import extract, from_json, to_json
from benchledger.adapters.memory.structured.ranking import RankingOptions, ScopeIndex

__all__ = ["StructuredMemory"]

_DOCUMENTS = "structured_documents"
_CHUNKS = "structured_chunks"


class StructuredMemory(StoredMemory):
    """BM25F with stemming and feedback, rescored by speakers, neighbours, time and decisions."""

    name = "structured"
    version = "1.0.0"
    documents_table = _DOCUMENTS

    def __init__(self, store_path: Path | str, *, options: RankingOptions | None = None) -> None:
        self.options = options or RankingOptions()
        super().__init__(store_path)

    def _setup(self) -> None:
        self._conn.execute(
            f'CREATE TABLE IF NOT EXISTS "{_CHUNKS}" ('
            " id INTEGER PRIMARY KEY,"  # the document's row id
            " scope TEXT NOT NULL,"
            " extracted TEXT NOT NULL)")
        self._conn.execute(f'CREATE INDEX IF NOT EXISTS "{_CHUNKS}_scope" ON "{_CHUNKS}" (scope)')

    def _extract(self, scope: str, batch: list[tuple[int, str, str]]) -> None:
        bodies = self._documents.fetch([row_id for row_id, _, _ in batch])
        self._conn.executemany(
            f'INSERT OR REPLACE INTO "{_CHUNKS}" (id, scope, extracted) VALUES (?, ?, ?)',
            [(row_id, scope, to_json(extract(bodies[row_id]))) for row_id, _, _ in batch])

    def _purge(self, scope: str) -> int:
        return purge_scope(self._conn, scope, tables=[_DOCUMENTS, _CHUNKS])

    def recall(self, scope: str, query: str, *, asking_user: str | None, k: int,
               token_budget: int | None, question_time: datetime | None = None) -> list[Candidate]:
        if k <= 0:
            return []
        with self._lock:
            index, row_ids = self._cached_index(scope, lambda: self._load_index(scope))
            ranked = index.rank(query, asking_user)[:k]
            documents = self._documents.fetch([row_ids[slot] for slot, _ in ranked])
        return pack_candidates(((score, documents[row_ids[slot]]) for slot, score in ranked),
                               k=k, token_budget=token_budget)

    def _load_index(self, scope: str) -> tuple[ScopeIndex, list[int]]:
        """The scope's index and, per index slot, the document's row id."""
        rows = self._conn.execute(
            f'SELECT c.id, c.extracted FROM "{_CHUNKS}" c JOIN "{_DOCUMENTS}" d ON d.id = c.id'
            " WHERE c.scope = ? AND d.pending = 0", (scope,)).fetchall()
        row_of = {}
        docs = []
        for row_id, extracted in rows:
            doc = from_json(extracted)
            row_of[doc.doc_id] = row_id
            docs.append(doc)
        index = ScopeIndex(docs, self.options)
        return index, [row_of[doc.doc_id] for doc in index.docs]
