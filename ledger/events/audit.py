"""Audit segments: what a run's judge says about answers whose verdict is known, and about corrected gold.

An audit is read beside a run's score, never inside it. `benchledger audit judge` plants answers
with a known verdict (a specific but wrong answer, a vague one, a refusal, the gold restated...)
and asks the run's own scorer about each exactly as it asks about a real answer; `rejudge
--gold-overlay` asks it about the recorded answers against corrected gold. Each opens its own
segment (`AuditStarted`, naming the scorer it asks, where its calls go and what it planted) and
its verdicts are `PlantJudged` rows under that audit's id. The score's fold
(`projections.state`) keeps these events apart: a planted answer is never an answer of the run
and a verdict against an overlay's gold never a verdict of a scorer.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from benchledger.ledger.events.base import Event, Usage
from benchledger.ledger.events.declaration import Joins, LegacyKey, Opens, declare
from benchledger.ledger.events.endpoints import Endpoint
from benchledger.ledger.events.keys import part

__all__ = ["AuditStarted", "AuditContinued", "PlantJudged", "PlantFailed", "AUDIT_EVENT_TYPES"]


@declare(key=lambda e: f"audit:{part(e.audit_id)}", blobs=(), sealing=(Opens("audit", owner="audit_id"),), fold="audited",
         legacy=(LegacyKey(1, lambda e: f"audit:{e.audit_id}"),))
class AuditStarted(Event):
    """An audit segment begins: which scorer it asks, where its calls go, and what it asks about."""

    schema_version: ClassVar[int] = 2
    """2: the key quotes its ids and names the plant (issue 32 item 5); the payload is as in 1."""

    type: Literal["AuditStarted"] = "AuditStarted"
    """The event type."""
    audit_id: str
    """The audit's id within the run (a1, a2, ...)."""
    audit: Literal["judge", "gold-overlay"]
    """judge: planted answers with known verdicts; gold-overlay: the recorded answers against corrected gold."""
    scorer_id: str
    """The run's scorer whose judge is asked, exactly as it asks (same prompt, model, protocol, method)."""
    judge_model: str
    """That scorer's judge (a rule's name when it asks no model)."""
    protocol: str
    """That scorer's protocol."""
    method: str = ""
    """That scorer's method ('' for a plain judge model)."""
    offline: bool = False
    """True when the judge is a deterministic offline model."""
    model_free: bool = False
    """True when the judge asks no model at all (a rule such as LoCoMo's token F1)."""
    endpoint: Endpoint | None = None
    """Where the audit's judge calls went (None when the judge asks no model)."""
    source: str
    """What was planted: "derived" (from each question's gold and recalled context), or the file given."""
    source_sha256: str = ""
    """SHA-256 of the planted-answers or overlay file ('' for derived plants)."""
    source_label: str = ""
    """What the file is: the pinned file's name (the LoCoMo audit's v1 answers, its errors.json), or a label
    saying it is of unknown origin; '' for derived plants."""
    source_pinned: bool = False
    """True when the file's SHA-256 is a pinned one (it is the audit's own file, byte for byte)."""
    reference_rate: float | None = None
    """The share of the planted answers the file's own recorded judges accepted, over the plants asked
    (the LoCoMo audit's scored files: gpt-4o-mini, three runs); None when the file records no verdicts."""
    reference_judgments: int = 0
    """How many recorded verdicts `reference_rate` is over."""
    plant_kind: str = ""
    """The kind a file's plants were given (--plant-kind), '' when derived or named by the file's pin."""
    plants_version: int = 0
    """Version of the plant derivation (or of the overlay reading) that produced the items."""
    planned: int
    """Items the audit asks about."""
    skipped: dict[str, int] = Field(default_factory=dict)
    """Items the source held that the audit could not ask about, by reason (not in the run, no fact to change...)."""
    replaced: tuple[str, ...] = ()
    """gold-overlay: question ids whose gold the overlay replaces (each gets a PlantJudged)."""
    excluded: dict[str, list[str]] = Field(default_factory=dict)
    """gold-overlay: question ids the overlay leaves out of the corrected score, by reason
    (premise_error, not_determinable, contested)."""


@declare(key=lambda e: f"audit:{part(e.audit_id)}:continue:{e.attempt}", blobs=(),
         sealing=(Opens("audit", owner="audit_id"),), fold="audited",
         legacy=(LegacyKey(1, lambda e: f"audit:{e.audit_id}:continue:{e.attempt}"),))
class AuditContinued(Event):
    """An interrupted audit is finished (`audit judge --continue`), possibly at another endpoint."""

    schema_version: ClassVar[int] = 2
    """2: the key quotes its ids and names the plant (issue 32 item 5); the payload is as in 1."""

    type: Literal["AuditContinued"] = "AuditContinued"
    """The event type."""
    audit_id: str
    """The audit being finished."""
    attempt: int
    """The attempt number its new calls (and failures) carry (the audit's first is 1)."""
    endpoint: Endpoint | None = None
    """Where its judge calls now go (None when the judge asks no model)."""


@declare(key=lambda e: f"audit:{part(e.audit_id)}:plant:{part(e.plant_id)}", blobs=(),
         sealing=(Joins("audit", owner="audit_id"),), fold="audited",
         legacy=(LegacyKey(1, lambda e: f"audit:{e.audit_id}:{e.plant_id}"),))
class PlantJudged(Event):
    """The audited judge's verdict on one planted answer (or one recorded answer against corrected gold)."""

    schema_version: ClassVar[int] = 2
    """2: the key quotes its ids and names the plant (issue 32 item 5); the payload is as in 1."""

    type: Literal["PlantJudged"] = "PlantJudged"
    """The event type."""
    audit_id: str
    """The audit it belongs to."""
    plant_id: str
    """The item's id within the audit ("<plant kind>:<question id>")."""
    question_id: str
    """The run's question it was asked about."""
    plant_kind: str
    """What was planted (specific_wrong_other, specific_wrong_altered, vague_topical, refusal,
    answer_on_abstention, gold_restated, a file's label; gold_overlay for corrected gold)."""
    answer: str
    """The answer the judge was shown (capped at 2,000 characters)."""
    gold: str
    """The gold the judge was shown (the released gold, or the overlay's replacement)."""
    expected: Literal["correct", "incorrect", "unknown"]
    """The verdict the plant is known to deserve (unknown for a recorded answer against corrected gold)."""
    verdict: Literal["correct", "incorrect", "unclear"]
    """What the judge said."""
    score: float | None = None
    """The scorer's number where its rule gives one (LoCoMo's token F1)."""
    reason: str = ""
    """The judge's reason, capped at 2,000 characters."""
    model: str
    """The model that judged, as the endpoint reported it."""
    raw_hash: str = ""
    """Blob hash of the judge's full output ('' for a judge with no output)."""
    usage: Usage = Field(default_factory=Usage)
    """Tokens the call used, as the endpoint reported them."""
    cache_hit: bool = False
    """True when the response came from the ledger's response cache."""
    latency_ms: float = 0.0
    """How long the call took, in milliseconds (0 on a cache hit)."""


@declare(key=lambda e: f"audit:{part(e.audit_id)}:plant:{part(e.plant_id)}:failed:{e.attempt}", blobs=(),
         sealing=(Joins("audit", owner="audit_id"),), fold="audited",
         legacy=(LegacyKey(1, lambda e: f"audit:{e.audit_id}:{e.plant_id}:failed:{e.attempt}"),))
class PlantFailed(Event):
    """An operational failure asking the audited judge about one item: never a verdict."""

    schema_version: ClassVar[int] = 2
    """2: the key quotes its ids and names the plant (issue 32 item 5); the payload is as in 1."""

    type: Literal["PlantFailed"] = "PlantFailed"
    """The event type."""
    audit_id: str
    """The audit it belongs to."""
    plant_id: str
    """The item's id within the audit."""
    question_id: str
    """The run's question it was asked about."""
    plant_kind: str
    """What was planted."""
    error_class: str
    """The error's class name."""
    message: str
    """Capped at 500 characters, secrets redacted."""
    attempt: int = 1
    """The audit attempt that failed (1, then each `--continue`)."""


AUDIT_EVENT_TYPES: tuple[type[Event], ...] = (AuditStarted, AuditContinued, PlantJudged, PlantFailed)
"""Every audit event class (the score's fold keeps them apart)."""
