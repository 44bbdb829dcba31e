"""`sqlite`, the default memory system: embedded SQLite FTS5, ranked by FTS5's own BM25.

Documents live in the shared `DocumentTable` (full `Document` JSON, pending flag). `build` moves
pending documents into a full-text index in batches, one transaction each. Every scope has its own
contentless FTS5 table, so BM25 statistics (document count, average length, document frequency)
come from that scope alone and another scope in the same file can never change a ranking; purging
a scope drops its table.

The query is the question text plus the asking user's id (the published GroupMemBench baseline
queries "question + asker"); each distinct word is a quoted phrase, so FTS5 syntax in a question
(quotes, NEAR, `-`, `*`, column filters) is never interpreted, and the phrases are OR-ed. The
tokenizer keeps `_` inside tokens so ids like `User_3` stay one token. Equal scores go to the
earlier position, then the earlier arrival.

Why recall does not ask FTS5 to rank: an OR of common words matches nearly every row and FTS5
scores each one (~50 ms at 30,000 messages). The FTS5 table stays the persisted index, and the
first recall of a scope reads its postings once through `fts5vocab` (so documents are tokenized
by FTS5 itself) into `_ScopeIndex`, which keeps per term the documents and each one's BM25 term
score computed exactly as FTS5's `bm25()` does (k1 = 1.2, b = 0.75, idf floored at 1e-6, the same
floating-point operations). Recall then accumulates only the query's postings, rarest first, and
stops admitting new documents once no unseen one can reach the k-th score (MaxScore); the final
scores are summed in query order, so they are bit-for-bit FTS5's. A query holding non-ASCII text
is ranked by FTS5 itself, because only FTS5 knows how unicode61 folds it. The cache is dropped on
this connection's own builds and purges, and when `PRAGMA data_version` shows another
connection wrote.
"""

from __future__ import annotations

import heapq
import math
import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.documents import DocumentTable, pack_candidates
from benchledger.adapters.memory.evalstore import purge_scope
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.memory.stored import StoredMemory

__all__ = ["SqliteMemory", "fts_query", "query_terms", "K1", "B"]

K1 = 1.2
B = 0.75
"""FTS5's bm25() defaults."""
_IDF_FLOOR = 1e-6
_PRUNE_MARGIN = 1e-9
"""Relative slack on pruning bounds, far above float summation error: never prunes a tie."""
_WORD = re.compile(r"\w+")
_DOCUMENTS = "fts_documents"
_SCOPES = "fts_scopes"
_TOKENIZER = "unicode61 remove_diacritics 2 tokenchars '_'"
_KEPT_DOCUMENTS = 20_000
"""Typed documents a scope's index keeps at most (recall touches k per question, not the corpus)."""


def query_terms(text: str) -> list[str]:
    """Every distinct word of `text`, lowercased, in order of first appearance."""
    return list(dict.fromkeys(word.lower() for word in _WORD.findall(text)))


def fts_query(text: str) -> str:
    """An FTS5 MATCH expression OR-ing every distinct word of `text` as a quoted string."""
    return " OR ".join(f'"{word}"' for word in query_terms(text))


@dataclass(frozen=True)
class _Postings:
    docs: list[int]
    """Canonical indexes of the documents holding the term, ascending."""
    scores: list[float]
    """Per document, idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)), as FTS5 computes it."""
    bound: float
    """The largest of `scores`."""

    def score_of(self, doc: int) -> float:
        at = bisect_left(self.docs, doc)
        return self.scores[at] if at < len(self.docs) and self.docs[at] == doc else 0.0


@dataclass(frozen=True)
class _ScopeIndex:
    table: str
    """The scope's FTS5 table."""
    row_ids: list[int]
    """Document row ids in canonical order (position, then arrival)."""
    postings: dict[str, _Postings]
    documents: dict[int, Document] = field(default_factory=dict)
    """Documents recalled so far, typed once: a row's body never changes while the index is kept
    (it is dropped on this connection's builds and purges, and when another connection writes)."""

    @classmethod
    def load(cls, conn, table: str, row_ids: list[int]) -> _ScopeIndex:
        """Read the FTS5 table's postings (as FTS5 tokenized the documents) and score them."""
        index_of = {row_id: i for i, row_id in enumerate(row_ids)}
        conn.execute(f'CREATE VIRTUAL TABLE IF NOT EXISTS temp."{table}_vocab" '
                     f'USING fts5vocab(main, "{table}", instance)')
        try:
            rows = conn.execute(f'SELECT term, doc, count(*) FROM temp."{table}_vocab" '
                                "GROUP BY term, doc").fetchall()
        finally:
            conn.execute(f'DROP TABLE IF EXISTS temp."{table}_vocab"')
        lengths = [0] * len(row_ids)
        for _, row_id, tf in rows:
            lengths[index_of[row_id]] += tf
        n_rows = len(row_ids)
        avgdl = sum(lengths) / n_rows if n_rows else 1.0
        norms = [K1 * (1 - B + B * length / avgdl) for length in lengths]
        by_term: dict[str, list[tuple[int, int]]] = {}
        for term, row_id, tf in rows:
            by_term.setdefault(term, []).append((index_of[row_id], tf))
        postings = {}
        for term, hits in by_term.items():
            hits.sort()
            idf = max(math.log((n_rows - len(hits) + 0.5) / (len(hits) + 0.5)), 0.0) or _IDF_FLOOR
            scores = [idf * ((tf * (K1 + 1.0)) / (tf + norms[doc])) for doc, tf in hits]
            postings[term] = _Postings([doc for doc, _ in hits], scores, max(scores))
        return cls(table, row_ids, postings)

    def fetched(self, documents: DocumentTable, row_ids: list[int]) -> dict[int, Document]:
        """The documents of these rows, read and typed only the first time each is asked for."""
        known = self.documents
        if missing := [row_id for row_id in row_ids if row_id not in known]:
            found = documents.fetch(missing)
            if len(known) < _KEPT_DOCUMENTS:
                known.update(found)
            else:
                return {row_id: known.get(row_id) or found[row_id] for row_id in row_ids}
        return {row_id: known[row_id] for row_id in row_ids}

    def top(self, terms: Sequence[str], k: int) -> list[tuple[float, int]]:
        """The top k (score, row id) of the OR of `terms`: score descending, ties to the earlier doc."""
        lists = [self.postings[t] for t in terms if t in self.postings]
        if not lists or k <= 0:
            return []
        order = sorted(lists, key=lambda p: -p.bound)
        unseen_bound = [sum(p.bound for p in order[i:]) for i in range(len(order) + 1)]
        partial: dict[int, float] = {}
        step = 0
        for step, postings in enumerate(order):
            if len(partial) < k:
                get = partial.get
                for doc, score in zip(postings.docs, postings.scores):
                    partial[doc] = get(doc, 0.0) + score
                continue
            kth = _kth(partial, k)
            if kth > unseen_bound[step] * (1 + _PRUNE_MARGIN):
                break  # a document not seen yet cannot reach the k-th score any more
            # A document this list is the first to name can reach the k-th score only with this
            # list's score and every later list's bound: the others are never admitted (nor, by
            # the same bound, by a later list), so `partial` stays the few that still can.
            need = kth * (1 - _PRUNE_MARGIN) - unseen_bound[step + 1]
            for doc, score in zip(postings.docs, postings.scores):
                if doc in partial:
                    partial[doc] += score
                elif score >= need:
                    partial[doc] = score
        else:
            step = len(order)
        for position in range(step, len(order)):
            threshold = _kth(partial, k) * (1 - _PRUNE_MARGIN)
            rest = unseen_bound[position]
            partial = {d: s for d, s in partial.items() if s + rest >= threshold}
            postings = order[position]
            if len(postings.docs) < 16 * len(partial):  # walking the list beats a search per doc
                for doc, score in zip(postings.docs, postings.scores):
                    if doc in partial:
                        partial[doc] += score
            else:
                for doc in partial:
                    partial[doc] += postings.score_of(doc)
        threshold = _kth(partial, k) * (1 - _PRUNE_MARGIN)
        finalists = [doc for doc, s in partial.items() if s >= threshold]
        exact = [(self._exact(doc, lists), doc) for doc in finalists]  # FTS5's order of addition
        best = heapq.nsmallest(k, exact, key=lambda pair: (-pair[0], pair[1]))
        return [(score, self.row_ids[doc]) for score, doc in best]

    @staticmethod
    def _exact(doc: int, lists: Sequence[_Postings]) -> float:
        total = 0.0
        for postings in lists:
            total += postings.score_of(doc)
        return total


def _kth(scores: dict[int, float], k: int) -> float:
    """The k-th largest value (0.0 when there are fewer than k)."""
    if len(scores) < k:
        return 0.0
    return heapq.nlargest(k, scores.values())[-1]


class SqliteMemory(StoredMemory):
    """Embedded SQLite FTS5 BM25 memory; one file, one FTS5 table per scope."""

    name = "sqlite"
    version = "1.1.0"
    documents_table = _DOCUMENTS

    def _setup(self) -> None:
        self._conn.execute(
            f"CREATE TABLE IF NOT EXISTS {_SCOPES} (id INTEGER PRIMARY KEY, scope TEXT UNIQUE NOT NULL)")

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

    def _scope_index(self, scope: str) -> _ScopeIndex | None:
        """The scope's ranking index (None when the scope has no table yet); hold the lock."""
        def load() -> _ScopeIndex | None:
            table = self._index_table(scope, create=False)
            if table is None:
                return None
            row_ids = [row_id for (row_id,) in self._conn.execute(
                f'SELECT id FROM "{_DOCUMENTS}" WHERE scope = ? AND pending = 0 ORDER BY position, id',
                (scope,))]
            return _ScopeIndex.load(self._conn, table, row_ids)
        return self._cached_index(scope, load)

    def _extract(self, scope: str, batch: list[tuple[int, str, str]]) -> None:
        table = self._index_table(scope, create=True)
        self._conn.executemany(f'INSERT INTO "{table}" (rowid, text) VALUES (?, ?)',
                               [(row_id, text) for row_id, _, text in batch])

    def recall(self, scope: str, query: str, *, asking_user: str | None, k: int,
               token_budget: int | None, question_time: datetime | None = None) -> list[Candidate]:
        text = f"{query} {asking_user or ''}"
        terms = query_terms(text)
        if k <= 0 or not terms:
            return []
        with self._lock:
            index = self._scope_index(scope)
            if index is None:
                return []
            if text.isascii():
                ranked = index.top(terms, k)
            else:
                ranked = self._ranked_by_fts5(index.table, fts_query(text), k)
            bodies = index.fetched(self._documents, [row_id for _, row_id in ranked])
        return pack_candidates(((score, bodies[row_id]) for score, row_id in ranked),
                               k=k, token_budget=token_budget)

    def _ranked_by_fts5(self, table: str, match: str, k: int) -> list[tuple[float, int]]:
        rows = self._conn.execute(
            f'SELECT -m.score, d.id FROM (SELECT rowid AS rid, bm25("{table}") AS score '
            f'FROM "{table}" WHERE "{table}" MATCH ?) AS m '
            f"JOIN {_DOCUMENTS} AS d ON d.id = m.rid "
            "ORDER BY m.score, d.position, d.id LIMIT ?",
            (match, k),
        ).fetchall()
        return [(score, row_id) for score, row_id in rows]

    def _purge(self, scope: str) -> int:
        table = self._index_table(scope, create=False)
        return purge_scope(self._conn, scope, tables=[_DOCUMENTS, _SCOPES], drop=[table] if table else [])
