"""The response cache hook: complete model responses kept by what shaped them.

`ResponseCache` is the protocol the chat client calls; the ledger implements it as
`Ledger.cache_get(key)` / `Ledger.cache_put(key, response, *, model)`, and `ledger_cache(ledger)`
adapts that object. `InMemoryResponseCache` serves tools and tests with no ledger at hand.

`cache_key` is SHA-256 over the canonical JSON (sorted keys, no spaces, UTF-8) of everything that
shapes the output: the base URL, the model, the messages and the request parameters
(temperature, max tokens, response_format, ...), never timeouts or retry settings, so a run
with a longer timeout still reuses what an earlier run paid for. A stored response is
`{"text", "model", "usage": {"prompt_tokens", "completion_tokens"}}`.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any, Protocol

__all__ = ["ResponseCache", "InMemoryResponseCache", "ledger_cache", "cache_key"]


class ResponseCache(Protocol):
    """Where complete model responses are kept, keyed by `cache_key`."""

    def get(self, key: str) -> dict | None: ...

    def put(self, key: str, response: dict, *, model: str) -> None: ...


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
    def __init__(self, ledger: Any) -> None:
        self._ledger = ledger

    def get(self, key: str) -> dict | None:
        return self._ledger.cache_get(key)

    def put(self, key: str, response: dict, *, model: str) -> None:
        self._ledger.cache_put(key, response, model=model)


def ledger_cache(ledger: Any) -> ResponseCache:
    """Adapt an object with `cache_get(key)` / `cache_put(key, response, *, model)` (the Ledger)."""
    return _LedgerCache(ledger)


def cache_key(*, base_url: str, model: str, messages: list[dict], params: dict) -> str:
    """SHA-256 of the canonical JSON of what shapes the output (not timeouts or retries)."""
    material = {"base_url": base_url.rstrip("/"), "model": model, "messages": messages, "params": params}
    canonical = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
