"""The official GroupMemBench BM25 baseline: tokens, query, scores, ranking and item scores.

Source: CoalMem @ ad676f47, `baselines/bm25/eval_benchmark.py` (`tokenize`, `BM25Okapi`,
`MinimalBM25Retriever`) with the settings of `baselines/bm25/run_eval.sh` (content index,
question-only query, k = 10). Conformance quirks 28 and 29:

- Tokens are `[A-Za-z0-9_]+`, lower-cased; no stemming, no stop words. The query text is NOT
  HTML-unescaped ("&#39;" gives the token "39"), while indexed contents are.
- Okapi BM25 with k1 = 1.5, b = 0.75, idf = ln(1 + (N - df + 0.5) / (df + 0.5)); a document's
  length counts as 1 when it has no tokens, avgdl averages the true lengths. A term is added once
  per occurrence in the query, in query order (the float sums are the official ones, bit for bit).
- Ranking: score descending, ties to the lower load index, cut to k. When fewer than k messages
  match, the rest of the k are zero-score messages in load order. A query with no tokens (or
  k <= 0) returns nothing.
- Item score: bm25 / (the best bm25 in the top k, or 1.0 when that is 0) - 0.001 x rank0.
- Query fields: `question_only` (the run script's setting), `standard` (question + asker),
  `structured` (question + asker + the asker's role, the first role that author has in load
  order). The argparse defaults (structured index and query, k = 18) apply only without the script.

The index is inverted: only documents that hold a query token are scored, each token's term
added in the official loop order, so every score equals the official full scan's.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "K1", "B", "OFFICIAL_K", "QueryFields", "IndexFields", "QUERY_FIELDS", "tokenize", "build_query",
    "author_roles", "Ranked", "BM25Index",
]

K1 = 1.5
B = 0.75
OFFICIAL_K = 10
QueryFields = Literal["question_only", "standard", "structured"]
IndexFields = Literal["content", "structured"]
QUERY_FIELDS: tuple[str, ...] = ("question_only", "standard", "structured")
_TOKEN = re.compile(r"[A-Za-z0-9_]+")


def tokenize(text: str | None) -> list[str]:
    """ASCII word runs, lower-cased."""
    return [token.lower() for token in _TOKEN.findall(text or "")]


def build_query(question: str, asker: str | None, *, query_fields: QueryFields = "question_only",
                asker_role: str | None = None) -> str:
    """The retrieval query text for the chosen query fields."""
    if query_fields == "question_only":
        return question
    parts = [question]
    if asker:
        parts.append(asker)
        if query_fields == "structured" and asker_role:
            parts.append(asker_role)
    return " ".join(parts)


def author_roles(pairs: Iterable[tuple[str | None, str | None]]) -> dict[str, str]:
    """author -> the first non-empty role seen for them, over (author, role) in load order."""
    roles: dict[str, str] = {}
    for author, role in pairs:
        if author and role:
            roles.setdefault(str(author), str(role))
    return roles


@dataclass(frozen=True)
class Ranked:
    """One retrieved message: its load index, its raw BM25 score and the official item score."""

    index: int
    bm25: float
    score: float


@dataclass(frozen=True)
class BM25Index:
    """Okapi BM25 over token lists in load order."""

    size: int
    postings: dict[str, tuple[tuple[int, int], ...]]
    """token -> (load index, term frequency) for every document holding it."""
    length_norms: tuple[float, ...]
    """Per document: k1 * (1 - b + b * dl / avgdl), the tf-independent half of the denominator."""
    avgdl: float

    @classmethod
    def build(cls, documents: Sequence[Sequence[str]]) -> BM25Index:
        counts = [Counter(tokens) for tokens in documents]
        lengths = [len(tokens) for tokens in documents]
        avgdl = sum(lengths) / max(1, len(documents))
        norms = tuple(K1 * (1 - B + B * (dl or 1) / max(avgdl, 1e-9)) for dl in lengths)
        postings: dict[str, list[tuple[int, int]]] = {}
        for index, counter in enumerate(counts):
            for token, tf in counter.items():
                postings.setdefault(token, []).append((index, tf))
        return cls(len(documents), {t: tuple(p) for t, p in postings.items()}, norms, avgdl)

    def scores(self, query_tokens: Sequence[str]) -> dict[int, float]:
        """Score of every document sharing a token with the query (every other scores 0.0)."""
        totals: dict[int, float] = {}
        for token in query_tokens:
            postings = self.postings.get(token)
            if not postings:
                continue
            df = len(postings)
            idf = math.log(1 + (self.size - df + 0.5) / (df + 0.5))
            for index, tf in postings:
                term = idf * (tf * (K1 + 1) / (tf + self.length_norms[index]))
                totals[index] = totals.get(index, 0.0) + term
        return totals

    def top(self, query_tokens: Sequence[str], k: int) -> list[Ranked]:
        """The official top k: score descending, ties and zero-score padding in load order."""
        if not query_tokens or k <= 0:
            return []
        scored = self.scores(query_tokens)
        order = sorted(scored, key=lambda index: (-scored[index], index))[:k]
        if len(order) < k:
            padding = (index for index in range(self.size) if index not in scored)
            order += [index for index, _ in zip(padding, range(k - len(order)))]
        best = max((scored.get(index, 0.0) for index in order), default=1.0) or 1.0
        return [Ranked(index, scored.get(index, 0.0), scored.get(index, 0.0) / best - 0.001 * rank)
                for rank, index in enumerate(order)]
