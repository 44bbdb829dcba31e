"""`StoredMemory`: the lifecycle every built-in memory system shares over one evaluation store.

Documents go into a `DocumentTable` (idempotent by scope and doc_id, pending until built);
`build` drains pending rows in batches, calling the system's `_extract` hook inside the same
transaction that clears their pending flag; `state` counts; `purge` removes the scope's rows (and
whatever else `_purge` names) after the evaluation-store guard. Each system keeps an in-memory
ranking index per scope, dropped when this connection writes and when `PRAGMA data_version` shows
another connection did (`_cached_index`). A system implements only `_extract`, `recall`, and, if
it keeps more tables, `_setup` and `_purge`.

A system whose extraction is slow (it calls its own model, as mem0 and Graphiti do) does that part
in `_extract_unlocked` instead: it is given the batch's documents outside the store's lock, so
other scopes ingest, build and recall meanwhile, and what it returns is recorded by
`_record_extracted` inside the transaction that clears the pending flags. One scope builds one
batch at a time (a lock per scope), so its documents keep their order. Such a system says
`concurrent_scopes = True`: the run then prepares several scopes at once (`orchestration.prepare`).
A system may also say how many documents it prefers per build batch (`build_batch`) and keep a
batch from ending inside one of its extraction groups (`_whole_groups`).
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
    concurrent_scopes: ClassVar[bool] = False
    """Whether several scopes may be prepared at once: only where extraction runs outside the lock."""
    build_batch: int | None = None
    """Documents per build batch this system prefers (None: the run's batch size)."""

    def __init__(self, store_path: Path | str) -> None:
        self.store_path = Path(store_path)
        self._lock = threading.RLock()
        self._conn = open_eval_store(self.store_path)
        self._documents = DocumentTable(self._conn, self.documents_table)
        with transaction(self._conn):
            self._setup()
        self._indexes: dict[str, object] = {}
        self._seen_version = self._data_version()
        self._scope_locks: dict[str, threading.Lock] = {}

    # -- hooks -----------------------------------------------------------------------------

    def _setup(self) -> None:
        """Create the system's own tables (inside a transaction)."""

    def _extract(self, scope: str, batch: list[tuple[int, str, str]]) -> None:
        """Extract a batch of pending (row_id, doc_id, text) rows (inside the build transaction)."""

    def _extract_unlocked(self, scope: str, documents: list[Document]) -> object:
        """The slow part of extracting a batch (the system's model calls, its own per-scope store),
        outside the store's lock; what it returns goes to `_record_extracted`. Overriding it is what
        moves a system's extraction out of the lock."""
        raise NotImplementedError

    def _record_extracted(self, scope: str, batch: list[tuple[int, str, str]], outcome: object) -> None:
        """Record what `_extract_unlocked` returned (inside the build transaction)."""

    def _whole_groups(self, documents: list[Document]) -> int:
        """How many of a full batch's leading documents to build now, so the batch does not end inside
        one extraction group (the rest are built with the next batch). All, unless a system groups."""
        return len(documents)

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
        unlocked = type(self)._extract_unlocked is not StoredMemory._extract_unlocked
        while True:
            if unlocked:
                batch = self._build_unlocked(scope, batch_size)
            else:
                with self._lock, transaction(self._conn):
                    batch = self._documents.pending(scope, batch_size)
                    if batch:
                        self._extract(scope, batch)
                        self._documents.mark_built(row_id for row_id, _, _ in batch)
                        self._indexes.pop(scope, None)
            if not batch:
                return
            yield [doc_id for _, doc_id, _ in batch]

    def _build_unlocked(self, scope: str, batch_size: int) -> list[tuple[int, str, str]]:
        """One batch of a system that extracts outside the lock: read under the lock, extract without
        it, record and clear the pending flags under it. The scope's lock keeps a second build of the
        same scope from taking the same pending rows meanwhile."""
        with self._lock:
            scope_lock = self._scope_locks.setdefault(scope, threading.Lock())
        with scope_lock:
            with self._lock:
                batch = self._documents.pending(scope, batch_size)
                fetched = self._documents.fetch([row_id for row_id, _, _ in batch]) if batch else {}
            documents = [fetched[row_id] for row_id, _, _ in batch]
            if len(batch) == batch_size:
                keep = self._whole_groups(documents) or len(batch)  # a group longer than a batch is split
                batch, documents = batch[:keep], documents[:keep]
            if not batch:
                return batch
            outcome = self._extract_unlocked(scope, documents)
            with self._lock, transaction(self._conn):
                self._record_extracted(scope, batch, outcome)
                self._documents.mark_built(row_id for row_id, _, _ in batch)
                self._indexes.pop(scope, None)
        return batch

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
