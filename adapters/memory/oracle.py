"""`oracle`: the ceiling, only the gold evidence, for benchmarks that label it. Always diagnostic.

Evidence labels never reach a memory system, except here: this is the one labelled exception.
The run hands the oracle the labels (`EvidenceLabels`, built from the dataset by the
orchestration because the class says `reads_evidence_labels`), and recall returns exactly the
documents the release marks as the question's evidence (at document level, its dia_ids or message
ids; at session level, every document of the evidence sessions), in canonical order, packed to k
and the budget like any other system. A question without labels recalls nothing. A run whose
memory is the oracle is never publishable: its report says "the oracle reads the evidence labels".

The labels are looked up by the scope and the question text the run sends (the only things recall
sees); two questions with the same text in one scope get the union of their evidence.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from benchledger.adapters.memory.documents import pack_candidates
from benchledger.adapters.memory.protocol import Candidate
from benchledger.adapters.memory.stored import StoredMemory
from benchledger.projections.publishable import ORACLE_MEMORY

__all__ = ["OracleMemory", "EvidenceLabels"]


class EvidenceLabels(BaseModel):
    """Per scope, per question text, the evidence ids the release labels."""

    model_config = ConfigDict(frozen=True)

    level: Literal["document", "session"] = "document"
    """Whether the ids are documents or sessions (a document's channel)."""
    by_scope: dict[str, dict[str, tuple[str, ...]]] = {}
    """scope -> question text -> evidence ids."""

    @classmethod
    def of(cls, level: Literal["document", "session"] | None,
           questions: Iterable[tuple[str, str, Iterable[str]]]) -> EvidenceLabels:
        """From (scope, question text, evidence ids) triples."""
        by_scope: dict[str, dict[str, dict[str, None]]] = {}
        for scope, text, evidence in questions:
            by_scope.setdefault(scope, {}).setdefault(text, {}).update(dict.fromkeys(evidence))
        return cls(level=level or "document",
                   by_scope={s: {t: tuple(ids) for t, ids in texts.items()} for s, texts in by_scope.items()})


class OracleMemory(StoredMemory):
    """Recalls only what the release labels as each question's evidence."""

    name = ORACLE_MEMORY
    comparison_role: ClassVar[str] = "ceiling"
    """`compare` draws it as the ceiling: recall handed the gold evidence."""
    version = "1.0.0"
    documents_table = "oracle_documents"
    reads_evidence_labels: ClassVar[bool] = True
    """The run passes `labels=`: the orchestration's one exception to "labels never reach a memory"."""

    def __init__(self, store_path: Path | str, *, labels: EvidenceLabels | None = None) -> None:
        super().__init__(store_path)
        self.labels = labels if labels is not None else EvidenceLabels()

    def recall(self, scope: str, query: str, *, asking_user: str | None, k: int,
               token_budget: int | None, question_time: datetime | None = None) -> list[Candidate]:
        wanted = set(self.labels.by_scope.get(scope, {}).get(query, ()))
        if not wanted:
            return []
        with self._lock:
            history = self._cached_index(scope, lambda: [doc for _, doc in self._documents.built(scope)])
        by_session = self.labels.level == "session"
        evidence = [doc for doc in history if ((doc.channel or "") if by_session else doc.doc_id) in wanted]
        return pack_candidates(((1.0, doc) for doc in evidence), k=k, token_budget=token_budget)
