"""The benchmark-neutral shapes every benchmark adapter produces.

A benchmark adapter reads a released corpus unchanged and validates it into these frozen models
before anything is stored or sent anywhere. `Document` is one unit a memory system ingests (a
GroupMemBench message, a LoCoMo turn, a LongMemEval session turn); `Question` is one scored item
with its gold answer and evidence labels, which never reach a memory system; `Dataset` is the
selected slice of a release, grouped into scopes, with a fingerprint over exactly what was
selected.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny

from benchledger.settings import Selection
from benchledger.values import Criterion, Question

__all__ = [
    "Document", "Criterion", "Question", "Prompts", "Dataset", "ReleaseFacts", "EvidenceRepair",
    "fingerprint_documents",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Document(_Frozen):
    """One ingestible unit with all the structure the release gives it."""

    doc_id: str
    """Stable id from the release (GroupMemBench msg_node, LoCoMo dia_id, ...)."""
    text: str
    """The content, HTML-unescaped, otherwise exactly as released."""
    author: str | None = None
    """Who wrote it (GroupMemBench author User_n, LoCoMo speaker, LongMemEval role)."""
    role: str | None = None
    """The author's role in the group (GroupMemBench role), or the chat role."""
    channel: str | None = None
    """Channel or session the unit belongs to."""
    reply_to: str | None = None
    """doc_id this unit replies to, when the release says."""
    timestamp: datetime | None = None
    """Source time of the unit (message time, or its session's date-time)."""
    phase: str | None = None
    """GroupMemBench phase_name."""
    topic: str | None = None
    """GroupMemBench topic."""
    is_decision: bool = False
    """GroupMemBench is_decision_point."""
    position: int = 0
    """Order of the unit within its scope after the adapter's canonical sort."""
    extra: dict[str, str] = Field(default_factory=dict)
    """Other released fields kept verbatim as strings (e.g. LoCoMo blip_caption)."""


class Prompts(_Frozen):
    """System prompts for the reference protocol, with their SHA-256."""

    agent_system: str
    judge_system: str

    @property
    def hashes(self) -> dict[str, str]:
        return {
            "agent_system": hashlib.sha256(self.agent_system.encode()).hexdigest(),
            "judge_system": hashlib.sha256(self.judge_system.encode()).hexdigest(),
        }


class EvidenceRepair(_Frozen):
    """An evidence label the adapter could not keep exactly as released: repaired or dropped."""

    question_id: str
    released: str
    """The label as released."""
    kept: str | None = None
    """What the adapter kept instead (a repaired label); None when the label was dropped."""
    dropped: str | None = None
    """The part of the label that was dropped; None when it was repaired."""
    reason: str = ""


class ReleaseFacts(_Frozen):
    """What a release held before any selection: the denominators of completeness."""

    documents_available: int
    """Documents (messages, turns) in the selected scopes' release before any message limit."""
    questions_available: int
    """Questions of the selected kinds before any question limit."""
    kinds_available: tuple[str, ...] = ()
    """Every kind the release holds."""
    evidence_level: Literal["document", "session"] | None = None
    """What the evidence labels name: documents (turns, messages) or sessions; None: no labels."""
    dangling_replies: int = 0
    """Replies naming a message the release does not hold (kept as released)."""
    evidence_repairs: tuple[EvidenceRepair, ...] = ()
    """Evidence labels that name nothing in the release, dropped with the reason."""
    extra_fields: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    """Released fields the adapter does not model, by record type (kept verbatim on documents)."""


class Dataset(_Frozen):
    """The selected slice of a release, ready to run."""

    benchmark: str
    """Benchmark name as shown in reports ("GroupMemBench", "LoCoMo", ...)."""
    subset: str
    """Domain, file stem or split that was selected."""
    adapter_version: str
    source: str
    """Path the release was read from, for provenance."""
    scopes: dict[str, tuple[Document, ...]]
    """scope_key -> documents in canonical order."""
    questions: tuple[Question, ...]
    prompts: Prompts | None = None
    annotations: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    """Dataset labels kept for reports that never reach a memory system: label -> doc_ids
    (GroupMemBench "is_noise")."""
    selection: SerializeAsAny[Selection] = Field(default_factory=Selection)
    """How the slice was selected (the benchmark's own selection model)."""
    release: ReleaseFacts
    """What the release held before any selection, and what its adapter noticed reading it."""

    @property
    def fingerprint(self) -> str:
        return fingerprint_documents(self.adapter_version, self.scopes)

    @property
    def document_count(self) -> int:
        return sum(len(docs) for docs in self.scopes.values())


class _FingerprintedDocument(_Frozen):
    """The bytes of a document as the fingerprint covers them, frozen so a corpus keeps its fingerprint.

    This is the layout `Document` had when fingerprints were first recorded (with the `is_noise`
    field GroupMemBench documents no longer carry, always false now): changing the `Document`
    model must not change the fingerprint of an unchanged corpus, or every recorded run would look
    changed to resume. A new Document field must be added here too (construction fails until it is),
    and only an adapter version bump may change what an existing corpus hashes to.
    """

    doc_id: str
    text: str
    author: str | None
    role: str | None
    channel: str | None
    reply_to: str | None
    timestamp: datetime | None
    phase: str | None
    topic: str | None
    is_decision: bool
    is_noise: bool = False
    position: int
    extra: dict[str, str]


def fingerprint_documents(adapter_version: str, scopes: dict[str, tuple[Document, ...]]) -> str:
    """SHA-256 over the adapter version and the exact selected documents, in order."""
    digest = hashlib.sha256()
    digest.update(json.dumps({"adapter_version": adapter_version}).encode())
    for scope_key in sorted(scopes):
        digest.update(b"\x1escope\x1f" + scope_key.encode())
        for doc in scopes[scope_key]:
            framed = _FingerprintedDocument.model_validate(doc.model_dump())
            digest.update(b"\x1e" + framed.model_dump_json().encode())
    return digest.hexdigest()
