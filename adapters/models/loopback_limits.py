"""The loopback server's rate limit: a provider's token buckets in requests and tokens, scaled down.

`RateLimit(requests=, tokens=, per=)` holds two buckets, each full at its size and refilling at
`size / per` a second (a provider's "per minute" with `per=60`; benchmarks and tests shrink `per`
so a limited run takes seconds). A request is admitted when both buckets hold what it costs: one
request, and its prompt's estimated tokens plus its `max_tokens` (`estimate_tokens`, as a provider
charges the completion limit up front). An admitted request is charged at once; a refused one is
charged nothing and told, as OpenAI tells it, with HTTP 429, `Retry-After` (seconds until it would
fit, rounded up to the millisecond in `retry-after-ms`) and the same headers every reply carries:

    x-ratelimit-limit-requests / -tokens        the buckets' sizes
    x-ratelimit-remaining-requests / -tokens    what is left after this request
    x-ratelimit-reset-requests / -tokens        time until the bucket is full again ("1.5s", "120ms")

Thread-safe; the clock is injected, so tests can drive it without sleeping.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["RateLimit", "Admission", "format_reset"]


def format_reset(seconds: float) -> str:
    """A reset in OpenAI's style: "20ms" under a second, else seconds ("1.5s", "6m0s" past a minute)."""
    if seconds < 1:
        return f"{max(0, math.ceil(seconds * 1000))}ms"
    if seconds < 60:
        return f"{seconds:.3g}s"
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)}m{rest:.0f}s"


@dataclass(frozen=True)
class Admission:
    """The limiter's answer to one request."""

    admitted: bool
    headers: dict[str, str]
    retry_after: float = 0.0
    """Seconds until the request would fit (0 when admitted)."""


class RateLimit:
    """Token buckets in requests and tokens per `per` seconds (see the module docstring)."""

    def __init__(self, *, requests: float, tokens: float, per: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if min(requests, tokens, per) <= 0:
            raise ValueError("requests, tokens and per must be positive")
        self.size = {"requests": float(requests), "tokens": float(tokens)}
        self.per = per
        self._clock = clock
        self._level = dict(self.size)
        self._at = clock()
        self._lock = threading.Lock()
        self.admitted = 0
        self.refused = 0
        self.admitted_tokens = 0.0
        self.first_at: float | None = None
        self.last_at: float | None = None
        """The clock at the first and the latest admission (a benchmark's span of use)."""

    def _refill(self, now: float) -> None:
        elapsed = max(0.0, now - self._at)
        self._at = now
        for name, size in self.size.items():
            self._level[name] = min(size, self._level[name] + size / self.per * elapsed)

    def take(self, tokens: float) -> Admission:
        """Admit and charge a request of `tokens` tokens, or refuse it with when it would fit."""
        cost = {"requests": 1.0, "tokens": min(float(tokens), self.size["tokens"])}
        with self._lock:
            now = self._clock()
            self._refill(now)
            short = {name: cost[name] - self._level[name] for name in cost}
            admitted = all(value <= 0 for value in short.values())
            if admitted:
                for name in cost:
                    self._level[name] -= cost[name]
                self.admitted += 1
                self.admitted_tokens += cost["tokens"]
                self.first_at = now if self.first_at is None else self.first_at
                self.last_at = now
                retry_after = 0.0
            else:
                self.refused += 1
                retry_after = max(value / (self.size[name] / self.per) for name, value in short.items())
            return Admission(admitted, self._headers(retry_after), retry_after)

    def _headers(self, retry_after: float) -> dict[str, str]:
        headers: dict[str, str] = {}
        for name, size in self.size.items():
            level = max(0.0, self._level[name])
            headers[f"x-ratelimit-limit-{name}"] = f"{size:g}"
            headers[f"x-ratelimit-remaining-{name}"] = str(math.floor(level))
            headers[f"x-ratelimit-reset-{name}"] = format_reset((size - level) / (size / self.per))
        if retry_after > 0:
            headers["retry-after-ms"] = str(math.ceil(retry_after * 1000))
            headers["Retry-After"] = str(math.ceil(retry_after))
        return headers
