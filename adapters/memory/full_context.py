"""`full-context`: the floor every comparison table needs, the whole history packed to the budget.

The benchmarks' own full-context settings give the answer model the conversation itself rather
than what a memory found. This system does the same within the protocol: recall ignores the query
and returns the scope's newest documents that fit k and the token budget, in canonical order, so
the newest comes last (rank 1 is the oldest one kept). Give it a k at least the scope's size (for
example `--k 100000`) and let `--token-budget` decide how much history fits; with the default k of
10 it is "the last ten messages".

Every candidate has the same score, so the ranking is the history's order and nothing else.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.protocol import Candidate, estimate_tokens
from benchledger.adapters.memory.stored import StoredMemory

__all__ = ["FullContextMemory", "newest_window"]


def newest_window(documents: list[Document], *, k: int, token_budget: int | None) -> list[Document]:
    """The longest run of newest documents within k and the budget, oldest first."""
    window: list[Document] = []
    used = 0
    for document in reversed(documents):
        if len(window) >= k:
            break
        if token_budget is not None:
            cost = estimate_tokens(document.text)
            if used + cost > token_budget:
                break
            used += cost
        window.append(document)
    window.reverse()
    return window


class FullContextMemory(StoredMemory):
    """The scope's history, newest last, packed to k and the budget; the query is not read."""

    name = "full-context"
    version = "1.0.0"
    documents_table = "full_context_documents"
    ranks_by_query: ClassVar[bool] = False
    comparison_role: ClassVar[str] = "floor"
    """`compare` draws it as the floor: what a model does with the newest history and no retrieval."""
    """Recall is the same whatever is asked (the contract checks that instead of a ranking)."""

    def recall(self, scope: str, query: str, *, asking_user: str | None, k: int,
               token_budget: int | None, question_time: datetime | None = None) -> list[Candidate]:
        with self._lock:
            history = self._cached_index(scope, lambda: [doc for _, doc in self._documents.built(scope)])
        return [Candidate.of_document(rank, 1.0, doc)
                for rank, doc in enumerate(newest_window(history, k=k, token_budget=token_budget), start=1)]
