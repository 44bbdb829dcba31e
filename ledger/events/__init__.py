"""Every event type, and the discriminated union the mapper reads rows into."""

from __future__ import annotations

from typing import Annotated, Union, get_args

from pydantic import ConfigDict, Field, TypeAdapter

from benchledger.ledger.events.audit import AuditContinued, AuditStarted, PlantFailed, PlantJudged
from benchledger.ledger.events.base import Event, Usage, cap_message
from benchledger.ledger.events.corpus import (
    ChunkExtracted, CorpusFingerprinted, MessagesIngested, RunResumed, ScopePurged, ScopeVerified,
)
from benchledger.ledger.events.question import (
    STAGES, ContextRecalled, Stage, Failed, Judged, QuestionAnswered, RecalledItem, ScorerContinued, ScorerStarted,
)
from benchledger.ledger.events.endpoints import ChainCertificate, Endpoint, MemoryIdentity, ServerCertificate, TlsEvidence
from benchledger.ledger.events.keys import KEYS, derive_key
from benchledger.ledger.events.memory_calls import MemoryModelCalled, MemoryStage
from benchledger.ledger.events.pacing import EndpointPaced
from benchledger.ledger.events.forecast import RunForecast, StageForecast
from benchledger.ledger.events.run import (
    Provenance, QuestionsPlanned, ReleaseFile, RunConfig, RunFinished, RunStarted,
)

AnyEvent = Annotated[
    Union[
        RunStarted, QuestionsPlanned, CorpusFingerprinted, MessagesIngested, ChunkExtracted,
        ScopeVerified, ContextRecalled, QuestionAnswered, ScorerStarted, Judged, Failed,
        ScopePurged, RunResumed, ScorerContinued, RunFinished, AuditStarted, AuditContinued, PlantJudged,
        PlantFailed, MemoryModelCalled, EndpointPaced, RunForecast,
    ],
    Field(discriminator="type"),
]
"""Any event, told apart by its `type`: the union the mapper reads rows into."""
# Caching only the keys of the JSON it reads (not every short value) makes a long read ~10% faster.
any_event_adapter: TypeAdapter[AnyEvent] = TypeAdapter(AnyEvent, config=ConfigDict(cache_strings="keys"))

EVENT_CLASSES: tuple[type[Event], ...] = get_args(get_args(AnyEvent)[0])
EVENT_TYPES: dict[str, type[Event]] = {cls.model_fields["type"].default: cls for cls in EVENT_CLASSES}

__all__ = [
    "Event", "Usage", "cap_message", "STAGES", "Stage", "EVENT_CLASSES", "EVENT_TYPES", "AnyEvent",
    "any_event_adapter", "KEYS", "derive_key",
    "RunStarted", "RunConfig", "ReleaseFile", "Provenance", "QuestionsPlanned", "RunFinished",
    "CorpusFingerprinted", "MessagesIngested", "ChunkExtracted", "ScopeVerified", "ScopePurged",
    "RunResumed", "ContextRecalled", "RecalledItem", "QuestionAnswered", "ScorerStarted", "ScorerContinued",
    "Judged", "Failed", "Endpoint", "ServerCertificate", "ChainCertificate", "TlsEvidence", "MemoryIdentity",
    "AuditStarted", "AuditContinued", "PlantJudged", "PlantFailed",
    "MemoryModelCalled", "MemoryStage", "EndpointPaced", "RunForecast", "StageForecast",
]
