"""A toy memory system for benchledger: documents ranked by how many query words they share.

It shows the whole plug-in surface in one screen. benchledger's `StoredMemory` gives it the
evaluation store, idempotent ingest, build and purge; the system itself only ranks. `recall` gets
the question, the asking user and the question time, never gold or evidence, and returns
candidates within k and the token budget (`pack_candidates` applies the budget rule).
"""

from __future__ import annotations

import re
from datetime import datetime

from benchledger.adapters.memory.documents import pack_candidates
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.memory.stored import StoredMemory

__all__ = ["ToyMemory"]

_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


class ToyMemory(StoredMemory):
    """Word overlap between the question and each stored document; ties keep the load order."""

    name = "toy-memory"
    version = "0.1.0"
    documents_table = "toy_documents"

    def recall(self, scope: str, query: str, *, asking_user: str | None, k: int,
               token_budget: int | None, question_time: datetime | None = None) -> list[Candidate]:
        with self._lock:
            history = self._cached_index(scope, lambda: [(doc, _words(doc.text))
                                                         for _, doc in self._documents.built(scope)])
        asked = _words(query)
        scored = [(float(len(asked & words)), doc) for doc, words in history if asked & words]
        scored.sort(key=lambda pair: -pair[0])  # stable: equal scores keep the load order
        return pack_candidates(scored, k=k, token_budget=token_budget)
