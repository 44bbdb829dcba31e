"""Idempotency keys: derived by the store from a row's type and payload, never taken from a caller.

One key per stage and item: a run records each at most once, resume plans "planned minus
recorded" from them, and the fold takes the first event under each. The key of a row is
`KEYS[type](event)` applied to the event as validated from its stored payload, so a caller
cannot supply one or suppress it (an event subclass overriding a method changes nothing: the
writer refuses classes that are not the registered ones and derives the key itself), and
`verify` re-derives every row's key and compares it with the stored one.

A key function is frozen history like an upcaster: changing what a key says would make every
earlier row of that type read as tampered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchledger.ledger.events.audit import AuditContinued, AuditStarted, PlantFailed, PlantJudged
from benchledger.ledger.events.corpus import (
    ChunkExtracted, CorpusFingerprinted, MessagesIngested, RunResumed, ScopePurged, ScopeVerified,
)
from benchledger.ledger.events.memory_calls import MemoryModelCalled
from benchledger.ledger.events.pacing import EndpointPaced
from benchledger.ledger.events.forecast import RunForecast
from benchledger.ledger.events.question import (
    ContextRecalled, Failed, Judged, QuestionAnswered, ScorerContinued, ScorerStarted,
)
from benchledger.ledger.events.run import QuestionsPlanned, RunFinished, RunStarted

__all__ = ["KEYS", "derive_key"]


def _failed(event: Failed) -> str:
    item = event.question_id or event.scope_key or "-"
    return f"failed:{event.stage}:{event.scorer_id or '-'}:{item}:{event.attempt}"


KEYS: dict[str, Callable[[Any], str]] = {
    RunStarted.__name__: lambda e: "run:start",
    QuestionsPlanned.__name__: lambda e: "run:plan",
    RunFinished.__name__: lambda e: f"run:finish:{e.attempt}",
    RunResumed.__name__: lambda e: f"run:resume:{e.attempt}",
    CorpusFingerprinted.__name__: lambda e: "corpus:fingerprint",
    MessagesIngested.__name__: lambda e: f"ingest:{e.preparation}:{e.scope_key}:{e.batch}",
    ChunkExtracted.__name__: lambda e: f"build:{e.preparation}:{e.scope_key}:{e.batch}",
    ScopeVerified.__name__: lambda e: f"verify:{e.check}:{e.scope_key}",
    ScopePurged.__name__: lambda e: f"purge:{e.preparation}:{e.scope_key}",
    ContextRecalled.__name__: lambda e: f"recall:{e.question_id}",
    QuestionAnswered.__name__: lambda e: f"answer:{e.question_id}",
    ScorerStarted.__name__: lambda e: f"scorer:{e.scorer_id}",
    ScorerContinued.__name__: lambda e: f"scorer:{e.scorer_id}:continue:{e.attempt}",
    Judged.__name__: lambda e: f"judge:{e.scorer_id}:{e.question_id}",
    Failed.__name__: _failed,
    AuditStarted.__name__: lambda e: f"audit:{e.audit_id}",
    AuditContinued.__name__: lambda e: f"audit:{e.audit_id}:continue:{e.attempt}",
    PlantJudged.__name__: lambda e: f"audit:{e.audit_id}:{e.plant_id}",
    PlantFailed.__name__: lambda e: f"audit:{e.audit_id}:{e.plant_id}:failed:{e.attempt}",
    MemoryModelCalled.__name__: lambda e: f"memory-call:{e.session}:{e.call}",
    EndpointPaced.__name__: lambda e: f"pacing:{e.attempt}",
    RunForecast.__name__: lambda e: "run:forecast",
}
"""Event type -> its key function, over the event validated as that registered type."""


def derive_key(event: Any) -> str:
    """The idempotency key of an event of a registered type (by its `type` literal)."""
    return KEYS[event.type](event)
