"""`sqlite`, the default memory system: embedded SQLite FTS5 ranked by BM25.

Documents live in the shared `DocumentTable` (full `Document` JSON, pending flag). `build` moves
pending documents into a full-text index in batches, one transaction each. Every scope has its own
contentless FTS5 table, so BM25 statistics (document count, average length, document frequency)
come from that scope alone and another scope in the same file can never change a ranking; purging
a scope drops its table.

The query is the question text plus the asking user's id (the published GroupMemBench baseline
queries "question + asker"); each word is quoted, so FTS5 syntax in a question (quotes, NEAR,
`-`, `*`, column filters) is never interpreted, and the words are OR-ed. The tokenizer keeps `_`
inside tokens so ids like `User_3` stay one token. Equal scores go to the earlier position.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path

from adapters.benchmarks.base import Document
from adapters.memory.documents import DocumentTable, pack_candidates
from adapters.memory.evalstore import open_eval_store, purge_scope, transaction
from adapters.memory.protocol import Candidate, ScopeState

__all__ = ["SqliteMemory", "fts_query"]

_WORD = re.compile(r"\w+")
_DOCUMENTS = "fts_documents"
_SCOPES = "fts_scopes"
_TOKENIZER = "unicode61 remove_diacritics 2 tokenchars '_'"


def fts_query(text: str) -> str:
    """An FTS5 MATCH expression OR-ing every distinct word of `text` as a quoted string."""
    words = dict.fromkeys(word.lower() for word in _WORD.findall(text))
    return " OR ".join(f'"{word}"' for word in words)


class SqliteMemory:
    """Embedded SQLite FTS5 BM25 memory; one file, one FTS5 table per scope."""

    name = "sqlite"
    version = "1.0.0"

    def __init__(self, store_path: Path) -> None:
        self.store_path = Path(store_path)
        self._lock = threading.RLock()
        self._conn = open_eval_store(self.store_path)
        self._documents = DocumentTable(self._conn, _DOCUMENTS)
        with transaction(self._conn):
            self._conn.execute(
                f"CREATE TABLE IF NOT EXISTS {_SCOPES} (id INTEGER PRIMARY KEY, scope TEXT UNIQUE NOT NULL)"
            )

    def _index_table(self, scope: str, *, create: bool) -> str | None:
        row = self._conn.execute(f"SELECT id FROM {_SCOPES} WHERE scope = ?", (scope,)).fetchone()
        if row is None:
            if not create:
                return None
            row = (self._conn.execute(f"INSERT INTO {_SCOPES} (scope) VALUES (?)", (scope,)).lastrowid,)
        table = f"fts_index_{row[0]}"
        if create:
            self._conn.execute(
                f'CREATE VIRTUAL TABLE IF NOT EXISTS "{table}" USING fts5('
                f"text, content='', tokenize=\"{_TOKENIZER}\")"
            )
        return table

    def ingest(self, scope: str, documents: Sequence[Document]) -> int:
        with self._lock:
            return self._documents.insert(scope, documents)

    def build(self, scope: str, batch_size: int = 1000) -> Iterator[list[str]]:
        while True:
            with self._lock, transaction(self._conn):
                batch = self._documents.pending(scope, batch_size)
                if not batch:
                    return
                table = self._index_table(scope, create=True)
                self._conn.executemany(
                    f'INSERT INTO "{table}" (rowid, text) VALUES (?, ?)',
                    [(row_id, text) for row_id, _, text in batch],
                )
                self._documents.mark_built(row_id for row_id, _, _ in batch)
            yield [doc_id for _, doc_id, _ in batch]

    def state(self, scope: str) -> ScopeState:
        with self._lock:
            documents, pending = self._documents.counts(scope)
        return ScopeState(documents=documents, pending_chunks=pending)

    def recall(self, scope: str, query: str, *, asking_user: str | None, k: int,
               token_budget: int | None, question_time: datetime | None = None) -> list[Candidate]:
        match = fts_query(f"{query} {asking_user or ''}")
        if k <= 0 or not match:
            return []
        with self._lock:
            table = self._index_table(scope, create=False)
            if table is None:
                return []
            rows = self._conn.execute(
                f'SELECT d.body, -m.score FROM (SELECT rowid AS rid, bm25("{table}") AS score '
                f'FROM "{table}" WHERE "{table}" MATCH ?) AS m '
                f"JOIN {_DOCUMENTS} AS d ON d.id = m.rid "
                "ORDER BY m.score, d.position, d.id LIMIT ?",
                (match, k),
            ).fetchall()
        ranked = ((score, Document.model_validate_json(body)) for body, score in rows)
        return pack_candidates(ranked, k=k, token_budget=token_budget)

    def purge(self, scope: str) -> int:
        with self._lock:
            table = self._index_table(scope, create=False)
            return purge_scope(self._conn, scope, tables=[_DOCUMENTS, _SCOPES],
                               drop=[table] if table else [])

    def close(self) -> None:
        with self._lock:
            self._conn.close()
