"""The response cache hook: complete model responses kept by what shaped them, served per run.

`ResponseCache` is the protocol the chat client calls: `get(key)` for a response kept earlier,
`put(key, response, *, model)` for a fresh one. `InMemoryResponseCache` serves tools and tests
that have no ledger at hand.

On a ledger (`ledger_cache(ledger)`) both go through the scope of the model call, which the
orchestration opens around each answer or judge call (`model_calls(serve_from=...)`):

- `get` serves only a response that one of the scope's runs recorded (the run itself, its
  earlier segments included, and a run it named with `--cache-from`); outside a scope nothing
  is served, so no run is ever handed another's responses unasked;
- `put` only collects the response into the scope (`ModelCalls.responses`); the orchestration
  records it with the event that used it, `Ledger.writer.append(..., cache=[CacheEntry(...)])`, the one
  way a response is written (see `ledger.cache`). Outside a scope a response is not kept.

A scope is a context variable, so it follows the call into the thread that makes it (the asker
enters it inside the pool's worker); a model that fanned its calls out to threads of its own
would be served nothing and keep nothing, never the wrong thing.

`cache_key` is SHA-256 over the canonical JSON (sorted keys, no spaces, UTF-8) of everything that
shapes the output: the base URL, the model, the messages and the request parameters
(temperature, max tokens, response_format, ...), never timeouts or retry settings, so a run
with a longer timeout still reuses what an earlier attempt paid for. A stored response is
`{"text", "model", "usage": {"prompt_tokens", "completion_tokens"}}`.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Protocol

from benchledger.ledger.recorder import Recorder, ResponseCacheStore

__all__ = ["ResponseCache", "InMemoryResponseCache", "ledger_cache", "cache_key", "ModelCalls",
           "RecordedResponse", "model_calls"]


class ResponseCache(Protocol):
    """Where complete model responses are kept, keyed by `cache_key`."""

    def get(self, key: str) -> dict | None: ...

    def put(self, key: str, response: dict, *, model: str) -> None: ...


@dataclass(frozen=True, slots=True)
class RecordedResponse:
    """A response a model call got from its endpoint, for the event that uses it to record."""

    request_digest: str
    response: dict
    model: str


@dataclass
class ModelCalls:
    """The scope of one answer or judge call: which runs may serve it, and what it was answered."""

    serve_from: tuple[str, ...]
    """Run ids whose recorded responses may be served (the run's own first)."""
    responses: list[RecordedResponse] = field(default_factory=list)
    """Responses the endpoint gave inside the scope, in order."""


_scope: ContextVar[ModelCalls | None] = ContextVar("benchledger_model_calls", default=None)


@contextmanager
def model_calls(serve_from: Collection[str]) -> Iterator[ModelCalls]:
    """Make the model calls of the block in a scope served from `serve_from` (see the module doc)."""
    calls = ModelCalls(serve_from=tuple(serve_from))
    token = _scope.set(calls)
    try:
        yield calls
    finally:
        _scope.reset(token)


class InMemoryResponseCache:
    """A thread-safe dict cache, for tools and tests that have no ledger at hand."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[dict, str]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> dict | None:
        with self._lock:
            entry = self._entries.get(key)
        return dict(entry[0]) if entry else None

    def put(self, key: str, response: dict, *, model: str) -> None:
        with self._lock:
            self._entries[key] = (dict(response), model)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


class _LedgerCache:
    def __init__(self, store: ResponseCacheStore) -> None:
        self._store = store

    def get(self, key: str) -> dict | None:
        scope = _scope.get()
        if scope is None or not scope.serve_from:
            return None
        return self._store.cache_get(key, runs=scope.serve_from)

    def put(self, key: str, response: dict, *, model: str) -> None:
        scope = _scope.get()
        if scope is not None:
            scope.responses.append(RecordedResponse(key, dict(response), model))


def ledger_cache(ledger: Recorder) -> ResponseCache:
    """The cache of a ledger (its `cache` side, a `ResponseCacheStore`: it reads, never appends),
    served and filled per model-call scope (see the module doc)."""
    return _LedgerCache(ledger.cache)


def cache_key(*, base_url: str, model: str, messages: list[dict], params: dict) -> str:
    """SHA-256 of the canonical JSON of what shapes the output (not timeouts or retries)."""
    material = {"base_url": base_url.rstrip("/"), "model": model, "messages": messages, "params": params}
    canonical = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
