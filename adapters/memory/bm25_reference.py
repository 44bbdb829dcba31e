"""`bm25-reference`: the published GroupMemBench BM25 baseline, reproduced exactly.

What the released harness does, and so what this does:
- index the message content only, tokens `[A-Za-z0-9_]+` lowercased;
- Okapi BM25 with k1 = 1.5, b = 0.75, idf = ln(1 + (N - df + 0.5) / (df + 0.5)); a document's
  length counts as 1 when it has no tokens, while avgdl averages the true lengths of every
  document in the scope;
- the query is the question text followed by the asking user's id; scores are summed over the
  query tokens in order, a repeated token counting again;
- rank by score descending, ties to the earlier message (lower position), and take the top k.
  Like the harness, documents that share no token with the query still fill the k places, in
  position order, after every scoring one.

Documents are persisted in the evaluation store; the index is rebuilt in memory per scope when
first asked, and again when the store changes (`PRAGMA data_version` notices other connections).
The inverted index scores only documents that hold a query token, adding each token's term in the
same order as the harness loop, so the scores are bit-for-bit those of the full scan.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.documents import pack_candidates
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.memory.stored import StoredMemory

__all__ = ["BM25ReferenceMemory", "BM25Index", "tokenize", "reference_query", "K1", "B"]

K1 = 1.5
B = 0.75
_TOKEN = re.compile(r"[A-Za-z0-9_]+")
_DOCUMENTS = "bm25ref_documents"


def tokenize(text: str) -> list[str]:
    """The harness tokenizer: ASCII word runs, lowercased."""
    return [token.lower() for token in _TOKEN.findall(text or "")]


def reference_query(question: str, asking_user: str | None) -> str:
    """The harness's retrieval query: the question, then the asker's id when there is one."""
    return f"{question} {asking_user}" if asking_user else question


@dataclass(frozen=True)
class BM25Index:
    """An in-memory Okapi BM25 index over documents in canonical order."""

    documents: tuple[Document, ...]
    postings: dict[str, tuple[tuple[int, int], ...]]
    """token -> (document index, term frequency) for every document holding it."""
    length_norms: tuple[float, ...]
    """Per document: k1 * (1 - b + b * dl / avgdl), the tf-independent half of the denominator."""

    @classmethod
    def build(cls, documents: Sequence[Document]) -> BM25Index:
        counts = [Counter(tokenize(doc.text)) for doc in documents]
        lengths = [sum(c.values()) for c in counts]
        avgdl = sum(lengths) / max(1, len(documents))
        norms = tuple(K1 * (1 - B + B * (dl or 1) / max(avgdl, 1e-9)) for dl in lengths)
        postings: dict[str, list[tuple[int, int]]] = {}
        for index, counter in enumerate(counts):
            for token, tf in counter.items():
                postings.setdefault(token, []).append((index, tf))
        return cls(tuple(documents), {t: tuple(p) for t, p in postings.items()}, norms)

    def scores(self, query_tokens: Sequence[str]) -> dict[int, float]:
        """Score of every document sharing a token with the query (others score 0)."""
        n = len(self.documents)
        totals: dict[int, float] = {}
        for token in query_tokens:
            postings = self.postings.get(token)
            if not postings:
                continue
            df = len(postings)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            for index, tf in postings:
                term = idf * (tf * (K1 + 1) / (tf + self.length_norms[index]))
                totals[index] = totals.get(index, 0.0) + term
        return totals

    def top(self, query_tokens: Sequence[str], k: int) -> list[tuple[float, Document]]:
        """The top k (score, document), score descending, ties and zero scores by position."""
        if not query_tokens or k <= 0:
            return []
        scored = self.scores(query_tokens)
        order = sorted(scored, key=lambda index: (-scored[index], index))[:k]
        if len(order) < k:
            fill = (i for i in range(len(self.documents)) if i not in scored)
            order += [index for index, _ in zip(fill, range(k - len(order)))]
        return [(scored.get(index, 0.0), self.documents[index]) for index in order]


class BM25ReferenceMemory(StoredMemory):
    """The published content-only BM25 baseline over an evaluation store."""

    name = "bm25-reference"
    version = "1.0.0"
    documents_table = _DOCUMENTS

    def recall(self, scope: str, query: str, *, asking_user: str | None, k: int,
               token_budget: int | None, question_time: datetime | None = None) -> list[Candidate]:
        with self._lock:
            index = self._cached_index(
                scope, lambda: BM25Index.build([doc for _, doc in self._documents.built(scope)]))
        ranked = index.top(tokenize(reference_query(query, asking_user)), k)
        return pack_candidates(ranked, k=k, token_budget=token_budget)
