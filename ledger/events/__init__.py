"""Every event type, and the discriminated union the mapper reads rows into, derived from their declarations.

An event type is one class with its `@declare(...)` (`ledger.events.declaration`) in a module of
this package; the package imports every module it holds, so a new module's types are found, not
listed. `EVENT_CLASSES`, `EVENT_TYPES`, the union `AnyEvent` and the key table `KEYS` are read off
`DECLARATIONS` in declaration order. The names below are re-exported as the package's public face;
a type added since can be imported from its own module.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING, Annotated, TypeAlias, Union

from pydantic import ConfigDict, Field, TypeAdapter

from benchledger.ledger.events.run import (
    Provenance, QuestionsPlanned, ReleaseFile, RunConfig, RunFinished, RunStarted,
)
from benchledger.ledger.events.corpus import (
    ChunkExtracted, CorpusFingerprinted, MessagesIngested, RunResumed, ScopePurged, ScopeVerified,
)
from benchledger.ledger.events.question import (
    STAGES, ContextRecalled, Stage, Failed, Judged, QuestionAnswered, RecalledItem, ScorerContinued, ScorerStarted,
)
from benchledger.ledger.events.audit import AuditContinued, AuditStarted, PlantFailed, PlantJudged
from benchledger.ledger.events.base import Event, Usage, cap_message
from benchledger.ledger.events.declaration import DECLARATIONS, Declaration
from benchledger.ledger.events.endpoints import ChainCertificate, Endpoint, MemoryIdentity, ServerCertificate, TlsEvidence
from benchledger.ledger.events.keys import KEYS, derive_key
from benchledger.ledger.events.memory_calls import MemoryModelCalled, MemoryStage
from benchledger.ledger.events.pacing import EndpointPaced
from benchledger.ledger.events.forecast import RunForecast, StageForecast

_NOT_WALKED = frozenset({"docs"})
"""Modules of this package that read the whole package (the reference renders it), so are not
imported by it."""

for _module in pkgutil.iter_modules(__path__):
    if _module.name not in _NOT_WALKED:
        importlib.import_module(f"{__name__}.{_module.name}")

EVENT_CLASSES: tuple[type[Event], ...] = tuple(declaration.cls for declaration in DECLARATIONS.values())
EVENT_TYPES: dict[str, type[Event]] = {name: declaration.cls for name, declaration in DECLARATIONS.items()}

if TYPE_CHECKING:
    AnyEvent: TypeAlias = Event
else:
    AnyEvent = Annotated[Union[EVENT_CLASSES], Field(discriminator="type")]
"""Any event, told apart by its `type`: the union the mapper reads rows into."""
# Caching only the keys of the JSON it reads (not every short value) makes a long read ~10% faster.
any_event_adapter: TypeAdapter[Event] = TypeAdapter(AnyEvent, config=ConfigDict(cache_strings="keys"))

__all__ = [
    "Event", "Usage", "cap_message", "STAGES", "Stage", "EVENT_CLASSES", "EVENT_TYPES", "AnyEvent",
    "any_event_adapter", "KEYS", "derive_key", "DECLARATIONS", "Declaration",
    "RunStarted", "RunConfig", "ReleaseFile", "Provenance", "QuestionsPlanned", "RunFinished",
    "CorpusFingerprinted", "MessagesIngested", "ChunkExtracted", "ScopeVerified", "ScopePurged",
    "RunResumed", "ContextRecalled", "RecalledItem", "QuestionAnswered", "ScorerStarted", "ScorerContinued",
    "Judged", "Failed", "Endpoint", "ServerCertificate", "ChainCertificate", "TlsEvidence", "MemoryIdentity",
    "AuditStarted", "AuditContinued", "PlantJudged", "PlantFailed",
    "MemoryModelCalled", "MemoryStage", "EndpointPaced", "RunForecast", "StageForecast",
]
