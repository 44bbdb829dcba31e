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

from pydantic import BaseModel, ConfigDict, Field

from benchledger.values import Criterion

__all__ = ["Document", "Criterion", "Question", "Prompts", "Dataset", "fingerprint_documents"]


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


class Question(_Frozen):
    """One scored item. Gold, evidence and criteria never reach a memory system."""

    question_id: str
    """Id unique within the dataset (GroupMemBench ids are prefixed by kind already)."""
    kind: str
    """The benchmark's question category (GroupMemBench kind, LoCoMo mapped category)."""
    text: str
    asking_user: str | None = None
    """The user who asks; recall and answering happen as this user."""
    gold: str
    """The released gold answer, as a string."""
    abstention: bool = False
    """True when the correct behaviour is to say the information is not there."""
    scope_key: str = "default"
    """Which scope of the dataset holds this question's memory."""
    evidence: tuple[str, ...] = ()
    """doc_ids (or session ids) the release labels as evidence."""
    question_time: datetime | None = None
    """When the question is asked, if the release says."""
    criteria: tuple[Criterion, ...] = ()
    """Memora evaluation questions; empty elsewhere."""


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
    selection: dict[str, object] = Field(default_factory=dict)
    """How the slice was selected: limits, kinds, and whether the release was complete."""

    @property
    def fingerprint(self) -> str:
        return fingerprint_documents(self.adapter_version, self.scopes)

    @property
    def document_count(self) -> int:
        return sum(len(docs) for docs in self.scopes.values())


def fingerprint_documents(adapter_version: str, scopes: dict[str, tuple[Document, ...]]) -> str:
    """SHA-256 over the adapter version and the exact selected documents, in order."""
    digest = hashlib.sha256()
    digest.update(json.dumps({"adapter_version": adapter_version}).encode())
    for scope_key in sorted(scopes):
        digest.update(b"\x1escope\x1f" + scope_key.encode())
        for doc in scopes[scope_key]:
            digest.update(b"\x1e" + doc.model_dump_json().encode())
    return digest.hexdigest()
