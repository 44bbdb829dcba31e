"""`StructuredMemory`: the structure-aware memory system (`name="structured"`).

Documents live in the evaluation store (`adapters.memory.evalstore`) in a `DocumentTable` of their
own. `build` extracts each pending document into an `IndexedDoc` row (analysed fields plus
structure, see `extraction`) stored beside it, in the same transaction that clears its pending
flag. `recall` ranks with a `ScopeIndex` built from those rows (see `ranking`); the index is cached
per scope and dropped when this connection writes or when `PRAGMA data_version` shows another
connection did. Everything is computed from the corpus: no network, no model weights.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path

from adapters.benchmarks.base import Document
from adapters.memory.documents import DocumentTable, pack_candidates
from adapters.memory.evalstore import open_eval_store, purge_scope, transaction
from adapters.memory.protocol import Candidate, ScopeState
from adapters.memory.structured.extraction import extract, from_json, to_json
from adapters.memory.structured.ranking import RankingOptions, ScopeIndex

__all__ = ["StructuredMemory"]

_DOCUMENTS = "structured_documents"
_CHUNKS = "structured_chunks"


class StructuredMemory:
    """BM25F with stemming and feedback, rescored by speakers, neighbours, time and decisions."""

    name = "structured"
    version = "1.0.0"

    def __init__(self, store_path: Path | str, *, options: RankingOptions | None = None) -> None:
        self.store_path = Path(store_path)
        self.options = options or RankingOptions()
        self._lock = threading.RLock()
        self._conn = open_eval_store(self.store_path)
        self._documents = DocumentTable(self._conn, _DOCUMENTS)
        with transaction(self._conn):
            self._conn.execute(
                f'CREATE TABLE IF NOT EXISTS "{_CHUNKS}" ('
                " id INTEGER PRIMARY KEY,"  # the document's row id
                " scope TEXT NOT NULL,"
                " extracted TEXT NOT NULL)")
            self._conn.execute(f'CREATE INDEX IF NOT EXISTS "{_CHUNKS}_scope" ON "{_CHUNKS}" (scope)')
        self._indexes: dict[str, tuple[ScopeIndex, list[int]]] = {}
        self._seen_version = self._data_version()

    def ingest(self, scope: str, documents: Sequence[Document]) -> int:
        with self._lock:
            return self._documents.insert(scope, documents)

    def build(self, scope: str, batch_size: int = 1000) -> Iterator[list[str]]:
        while True:
            with self._lock, transaction(self._conn):
                batch = self._documents.pending(scope, batch_size)
                if not batch:
                    return
                bodies = self._documents.fetch([row_id for row_id, _, _ in batch])
                self._conn.executemany(
                    f'INSERT OR REPLACE INTO "{_CHUNKS}" (id, scope, extracted) VALUES (?, ?, ?)',
                    [(row_id, scope, to_json(extract(bodies[row_id]))) for row_id, _, _ in batch])
                self._documents.mark_built(row_id for row_id, _, _ in batch)
                self._indexes.pop(scope, None)
            yield [doc_id for _, doc_id, _ in batch]

    def state(self, scope: str) -> ScopeState:
        with self._lock:
            documents, pending = self._documents.counts(scope)
        return ScopeState(documents=documents, pending_chunks=pending)

    def recall(self, scope: str, query: str, *, asking_user: str | None, k: int,
               token_budget: int | None, question_time: datetime | None = None) -> list[Candidate]:
        if k <= 0:
            return []
        with self._lock:
            index, row_ids = self._index(scope)
            ranked = index.rank(query, asking_user)[:k]
            documents = self._documents.fetch([row_ids[slot] for slot, _ in ranked])
        return pack_candidates(((score, documents[row_ids[slot]]) for slot, score in ranked),
                               k=k, token_budget=token_budget)

    def purge(self, scope: str) -> int:
        with self._lock:
            self._indexes.pop(scope, None)
            return purge_scope(self._conn, scope, tables=[_DOCUMENTS, _CHUNKS])

    def close(self) -> None:
        with self._lock:
            self._indexes.clear()
            self._conn.close()

    def _data_version(self) -> int:
        return self._conn.execute("PRAGMA data_version").fetchone()[0]

    def _index(self, scope: str) -> tuple[ScopeIndex, list[int]]:
        """The scope's index and, per index slot, the document's row id."""
        version = self._data_version()
        if version != self._seen_version:  # another connection committed
            self._indexes.clear()
            self._seen_version = version
        if scope not in self._indexes:
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
            self._indexes[scope] = (index, [row_of[doc.doc_id] for doc in index.docs])
        return self._indexes[scope]
