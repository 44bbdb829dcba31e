"""`StoredMemory`: the lifecycle every built-in memory system shares over one evaluation store.

Documents go into a `DocumentTable` (idempotent by scope and doc_id, pending until built);
`build` drains pending rows in batches, calling the system's `_extract` hook inside the same
transaction that clears their pending flag; `state` counts; `purge` removes the scope's rows (and
whatever else `_purge` names) after the evaluation-store guard. Each system keeps an in-memory
ranking index per scope, dropped when this connection writes and when `PRAGMA data_version` shows
another connection did (`_cached_index`). A system implements only `_extract`, `recall`, and, if
it keeps more tables, `_setup` and `_purge`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import ClassVar, TypeVar

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.documents import DocumentTable
from benchledger.adapters.memory.evalstore import open_eval_store, purge_scope, transaction
from benchledger.adapters.memory.protocol import BATCH_SIZE, ScopeState

__all__ = ["StoredMemory"]

Index = TypeVar("Index")


class StoredMemory:
    name: ClassVar[str]
    version: ClassVar[str]
    documents_table: ClassVar[str]

    def __init__(self, store_path: Path | str) -> None:
        self.store_path = Path(store_path)
        self._lock = threading.RLock()
        self._conn = open_eval_store(self.store_path)
        self._documents = DocumentTable(self._conn, self.documents_table)
        with transaction(self._conn):
            self._setup()
        self._indexes: dict[str, object] = {}
        self._seen_version = self._data_version()

    # -- hooks -----------------------------------------------------------------------------

    def _setup(self) -> None:
        """Create the system's own tables (inside a transaction)."""

    def _extract(self, scope: str, batch: list[tuple[int, str, str]]) -> None:
        """Extract a batch of pending (row_id, doc_id, text) rows (inside the build transaction)."""

    def _purge(self, scope: str) -> int:
        return purge_scope(self._conn, scope, tables=[self.documents_table])

    # -- shared ----------------------------------------------------------------------------

    def _data_version(self) -> int:
        return self._conn.execute("PRAGMA data_version").fetchone()[0]

    def _cached_index(self, scope: str, load: Callable[[], Index]) -> Index:
        """The scope's ranking index, loaded once and dropped when the store changes. Hold the lock."""
        version = self._data_version()
        if version != self._seen_version:  # another connection committed
            self._indexes.clear()
            self._seen_version = version
        if scope not in self._indexes:
            self._indexes[scope] = load()
        return self._indexes[scope]  # type: ignore[return-value]

    def ingest(self, scope: str, documents: Sequence[Document]) -> int:
        with self._lock:
            return self._documents.insert(scope, documents)

    def build(self, scope: str, batch_size: int = BATCH_SIZE) -> Iterator[list[str]]:
        while True:
            with self._lock, transaction(self._conn):
                batch = self._documents.pending(scope, batch_size)
                if not batch:
                    return
                self._extract(scope, batch)
                self._documents.mark_built(row_id for row_id, _, _ in batch)
                self._indexes.pop(scope, None)
            yield [doc_id for _, doc_id, _ in batch]

    def state(self, scope: str) -> ScopeState:
        with self._lock:
            documents, pending = self._documents.counts(scope)
        return ScopeState(documents=documents, pending_chunks=pending)

    def purge(self, scope: str) -> int:
        with self._lock:
            self._indexes.pop(scope, None)
            return self._purge(scope)

    def close(self) -> None:
        with self._lock:
            self._indexes.clear()
            self._conn.close()
