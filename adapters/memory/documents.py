"""Helpers every in-the-box memory system shares: the documents table and budget packing.

`DocumentTable` keeps one row per (scope, doc_id) in an evaluation store: the canonical position,
the text, the full `Document` as JSON (so every structural field comes back unchanged) and a
`pending` flag that `build` clears. Each system names its own table, so two systems pointed at
the same file never see each other's rows. One document is one chunk, and its chunk id is the
doc_id.

`pack_ranked` keeps the protocol's rule over candidates of any kind: at most k, in rank order,
stopping at the first whose text would push the estimated tokens past the budget, ranks renumbered
1..n. `pack_candidates` does it for ranked stored documents.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.evalstore import transaction
from benchledger.adapters.memory.protocol import Candidate, estimate_tokens

__all__ = ["DocumentTable", "StoredDocument", "pack_candidates", "pack_ranked"]

StoredDocument = tuple[int, Document]
"""(row id, document): the row id is stable for the life of the scope."""


class DocumentTable:
    """The documents of one memory system, by scope, with their pending flags."""

    def __init__(self, conn: sqlite3.Connection, table: str) -> None:
        self.conn, self.table = conn, table
        with transaction(conn):
            conn.execute(
                f'CREATE TABLE IF NOT EXISTS "{table}" ('
                " id INTEGER PRIMARY KEY,"
                " scope TEXT NOT NULL,"
                " doc_id TEXT NOT NULL,"
                " position INTEGER NOT NULL,"
                " text TEXT NOT NULL,"
                " body TEXT NOT NULL,"
                " pending INTEGER NOT NULL DEFAULT 1,"
                " UNIQUE (scope, doc_id))"
            )
            conn.execute(
                f'CREATE INDEX IF NOT EXISTS "{table}_pending" ON "{table}" (scope, pending, position)'
            )

    def insert(self, scope: str, documents: Sequence[Document]) -> int:
        """Store documents not yet in the scope, marked pending. Returns how many were new."""
        rows = [
            (scope, doc.doc_id, doc.position, doc.text, doc.model_dump_json())
            for doc in documents
        ]
        with transaction(self.conn):
            before = self.conn.total_changes
            self.conn.executemany(
                f'INSERT OR IGNORE INTO "{self.table}" (scope, doc_id, position, text, body) '
                "VALUES (?, ?, ?, ?, ?)",
                rows,
            )
            return self.conn.total_changes - before

    def pending(self, scope: str, limit: int) -> list[tuple[int, str, str]]:
        """Up to `limit` pending (row id, doc_id, text), in canonical order."""
        return self.conn.execute(
            f'SELECT id, doc_id, text FROM "{self.table}" WHERE scope = ? AND pending = 1 '
            "ORDER BY position, id LIMIT ?",
            (scope, limit),
        ).fetchall()

    def mark_built(self, row_ids: Iterable[int]) -> None:
        """Clear the pending flag; call inside the caller's transaction."""
        self.conn.executemany(
            f'UPDATE "{self.table}" SET pending = 0 WHERE id = ?', [(i,) for i in row_ids]
        )

    def counts(self, scope: str) -> tuple[int, int]:
        """(documents, pending) in the scope."""
        total, pending = self.conn.execute(
            f'SELECT count(*), coalesce(sum(pending), 0) FROM "{self.table}" WHERE scope = ?',
            (scope,),
        ).fetchone()
        return total, pending

    def built(self, scope: str) -> list[StoredDocument]:
        """Every built document of the scope, in canonical order (position, then arrival)."""
        rows = self.conn.execute(
            f'SELECT id, body FROM "{self.table}" WHERE scope = ? AND pending = 0 '
            "ORDER BY position, id",
            (scope,),
        )
        return [(row_id, Document.model_validate_json(body)) for row_id, body in rows]

    def fetch(self, row_ids: Sequence[int]) -> dict[int, Document]:
        """Documents by row id."""
        if not row_ids:
            return {}
        marks = ",".join("?" * len(row_ids))
        rows = self.conn.execute(
            f'SELECT id, body FROM "{self.table}" WHERE id IN ({marks})', list(row_ids)
        )
        return {row_id: Document.model_validate_json(body) for row_id, body in rows}


def pack_ranked(ranked: Iterable[Candidate], *, k: int, token_budget: int | None) -> list[Candidate]:
    """At most k candidates in the given order, stopping before the first that would exceed the
    budget; ranks become 1..n."""
    candidates: list[Candidate] = []
    used = 0
    for candidate in ranked:
        if len(candidates) >= k:
            break
        if token_budget is not None:
            cost = estimate_tokens(candidate.text)
            if used + cost > token_budget:
                break
            used += cost
        rank = len(candidates) + 1
        candidates.append(candidate if candidate.rank == rank else candidate.model_copy(update={"rank": rank}))
    return candidates


def pack_candidates(ranked: Iterable[tuple[float, Document]], *, k: int,
                    token_budget: int | None) -> list[Candidate]:
    """Ranked (score, stored document) pairs as document candidates, packed by `pack_ranked`."""
    # Each made with the rank it keeps (packing only ever stops early), and only once it is reached.
    return pack_ranked((Candidate.of_document(rank, score, document)
                        for rank, (score, document) in enumerate(ranked, 1)), k=k, token_budget=token_budget)
