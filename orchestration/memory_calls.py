"""The memory system's own model calls onto the run's ledger.

A memory system that calls a model in process (mem0) exposes its recording proxy as `model_calls`
(`adapters.memory.recording_proxy.RecordingProxy`). The run tells the proxy which stage it is in
(`in_stage`) around ingest, build and each recall, and drains what it recorded into
`MemoryModelCalled` events appended with that stage's own events (`drained_events`). A system
without one (the baselines, a remote one over HTTP, whose calls benchledger cannot see) records none.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import ContextManager

from benchledger.adapters.memory.protocol import MemorySystem
from benchledger.adapters.memory.recording_proxy import RecordingProxy, Stage
from benchledger.adapters.models.openai_chat import DEFAULT_BASE_URL
from benchledger.adapters.models.scheduler import EndpointScheduler
from benchledger.ledger.events import MemoryModelCalled, Usage
from benchledger.redaction import strip_url_credentials

__all__ = ["model_calls_of", "in_stage", "drained_events", "share_scheduler"]


def model_calls_of(memory: MemorySystem) -> RecordingProxy | None:
    calls = getattr(memory, "model_calls", None)
    return calls if isinstance(calls, RecordingProxy) else None


def share_scheduler(memory: MemorySystem, scheduler: EndpointScheduler | None, base_url: str | None) -> bool:
    """Pace the memory's own calls with the run's scheduler when they go to the run's endpoint.

    True when they now share it. A memory calling another endpoint keeps its own pace (unpaced)."""
    calls = model_calls_of(memory)
    if calls is None or scheduler is None:
        return False
    def same(url: str) -> str:
        return strip_url_credentials(url).rstrip("/")

    if same(calls.upstream) != same(base_url or DEFAULT_BASE_URL):
        return False
    calls.scheduler = scheduler
    return True


def in_stage(calls: RecordingProxy | None, stage: Stage, *, scope: str | None = None, scope_key: str | None = None,
             question_id: str | None = None) -> ContextManager[None]:
    """Attribute the memory's calls inside to this stage; `scope` is the memory scope's name, whose
    route (`RecordingProxy.route`) keeps the calls of concurrent scopes apart."""
    if calls is None:
        return nullcontext()
    return calls.stage(stage, scope=scope, scope_key=scope_key, question_id=question_id)


def drained_events(calls: RecordingProxy | None, scope_key: str | None = None) -> list[MemoryModelCalled]:
    """The proxy's calls since the last drain, as events (only those of `scope_key`, when named)."""
    if calls is None:
        return []
    return [MemoryModelCalled(
        session=calls.session, call=c.call, stage=c.stage, scope_key=c.scope_key, question_id=c.question_id,
        endpoint=c.endpoint, model_asked=c.model_asked, model_reported=c.model_reported,
        usage=Usage(prompt_tokens=c.prompt_tokens, completion_tokens=c.completion_tokens),
        latency_ms=c.latency_ms, status=c.status, upstream=calls.shown_upstream,
        request_digest=c.request_digest, response_digest=c.response_digest) for c in calls.drain(scope_key)]
