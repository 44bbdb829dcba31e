"""The pure rules of pacing one endpoint: how many calls may be in flight, and when the next may go.

Two independent limits decide whether a call may start; `EndpointScheduler`
(`adapters.models.scheduler`) only waits on them and counts.

- **Concurrency (AIMD with slow start)**: `ConcurrencyLimit` starts at `min(4, ceiling)` calls in
  flight (the old fixed default, so a run that meets no limit behaves as before) and, while calls
  succeed, grows by one per success until the first congestion signal (slow start: the limit
  doubles per round of calls), then by `1/limit` per success (one more call per round: additive
  increase). A 429 or a timeout halves it (multiplicative decrease, never below 1); signals from
  calls that started before the last cut are the same congestion seen late and do not cut again,
  so a burst of 429s from one overfull round halves the limit once, not to 1. `ceiling` is
  `--concurrency`.
- **Budget from the provider's headers**: `HeaderBudget` reads `x-ratelimit-limit-*`,
  `x-ratelimit-remaining-*` and `x-ratelimit-reset-*` (requests and tokens, OpenAI's names, which
  Azure, Groq, Together, vLLM's router and most gateways also send) from every reply, and models
  each as a token bucket: `remaining` when the call was sent (a provider counts a call when it
  admits it, so even a slow reply describes the budget of its sending), refilling at
  `(limit - remaining) / reset` (the reset is the time to a full bucket), minus what this client
  started since; an older reading never replaces a newer one. A call waits until the bucket holds one request and its estimated tokens; so the
  client stops before the provider would refuse, rather than learning from the 429. Without a
  limit header the bucket is taken as empty until the reset, once `remaining` is spent.
- **Retry-After** is a pause for the whole endpoint, not only for the call that got it: every
  call waits until it has passed (capped, so a hostile server cannot stall a run for ever).

Every function takes `now` (seconds on a monotonic clock) from the caller: the rules never read a
clock and never sleep, so their tests are plain arithmetic.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["ConcurrencyLimit", "HeaderBudget", "BucketReading", "parse_reset", "INITIAL_LIMIT", "REFILL_MARGIN", "RESERVE"]

INITIAL_LIMIT = 4
"""Calls in flight before anything is known about the endpoint (the old fixed default)."""
REFILL_MARGIN = 0.98
"""The share of a bucket's advertised refill the client counts on: headers are rounded (remaining
floored, resets to the millisecond), and each such error made the client a little too eager."""
RESERVE = 0.1
"""The share of a bucket kept in reserve: a call the client started just before the one whose reply
it reads may reach the provider just after it (threads, connection set-up), and is then counted in
neither. The reserve absorbs that skew; it costs only the burst, never the steady rate."""

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


def parse_reset(value: str | None) -> float | None:
    """Seconds in a reset header: OpenAI's `6m0s`, `1s`, `20ms`, or a bare number of seconds.

    Anything else (empty, negative, unreadable, infinite) is None: not said.
    """
    if value is None:
        return None
    text = value.strip().lower()
    try:
        seconds = float(text)
    except ValueError:
        parts = _DURATION.findall(text)
        if not parts or "".join(n + u for n, u in parts) != text:
            return None
        scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
        seconds = sum(float(number) * scale[unit] for number, unit in parts)
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _count(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


@dataclass
class ConcurrencyLimit:
    """How many calls may be in flight: AIMD with slow start, capped at `ceiling`."""

    ceiling: int
    limit: float = 0.0
    slow_start: bool = True
    started: int = 0
    """Calls admitted so far; a call's number orders it against the last cut."""
    cut_at: int = -1
    """The number the next admitted call had when the limit was last cut."""
    cuts: int = 0

    def __post_init__(self) -> None:
        if self.ceiling < 1:
            raise ValueError("ceiling must be at least 1")
        if not self.limit:
            self.limit = float(min(INITIAL_LIMIT, self.ceiling))

    @property
    def slots(self) -> int:
        """Calls that may be in flight now."""
        return max(1, min(self.ceiling, math.floor(self.limit)))

    def admit(self) -> int:
        """A call starts: its number, to hand back with its outcome."""
        self.started += 1
        return self.started - 1

    def succeeded(self) -> None:
        step = 1.0 if self.slow_start else 1.0 / max(self.limit, 1.0)
        self.limit = min(float(self.ceiling), self.limit + step)

    def congested(self, number: int) -> bool:
        """A 429 or a timeout for call `number`: halve the limit unless the call predates the last
        cut. True when it cut."""
        if number < self.cut_at:
            return False
        self.limit = max(1.0, math.floor(self.limit) / 2)
        self.slow_start = False
        self.cut_at = self.started
        self.cuts += 1
        return True


@dataclass
class BucketReading:
    """One dimension (requests or tokens) of the provider's budget, as one reply's headers said."""

    remaining: float
    at: float
    """`now` when the reply was read."""
    reset: float | None
    """Seconds until the bucket is full again (None: not said)."""
    limit: float | None
    """The bucket's size (None: not said)."""
    spent: float = 0.0
    """What this client started since the call whose reply gave the reading."""
    last_rate: float | None = None
    """The refill the previous reading showed, for a reading that cannot show one (a full bucket)."""

    @property
    def rate(self) -> float | None:
        """Refill per second the client counts on (None: the headers do not say)."""
        if self.limit is not None and self.reset and self.limit > self.remaining:
            return REFILL_MARGIN * (self.limit - self.remaining) / self.reset
        return self.last_rate if self.limit is not None else None

    def available(self, now: float) -> float:
        refilled = 0.0
        if (rate := self.rate) is not None:
            refilled = rate * max(0.0, now - self.at)
        elif self.limit is None and self.reset is not None and now >= self.at + self.reset:
            return math.inf  # the bucket's own reset has passed: full, as far as we know
        ceiling = self.limit if self.limit is not None else math.inf
        return min(ceiling, self.remaining + refilled) - self.spent

    def wait_for(self, need: float, now: float) -> float:
        """Seconds until `need` is available (0: now; inf: never, as far as the headers say)."""
        short = need - self.available(now)
        if short <= 0:
            return 0.0
        if (rate := self.rate) is not None:
            return short / rate
        if self.reset is not None:
            return max(0.0, self.at + self.reset - now)
        return math.inf


@dataclass
class HeaderBudget:
    """The provider's request and token budgets as its rate-limit headers describe them."""

    buckets: dict[str, BucketReading] = field(default_factory=dict)
    """"requests" and/or "tokens", whichever the last reply said."""
    paused_until: float = 0.0
    """No call starts before this (a Retry-After)."""

    def observe(self, headers: Mapping[str, str], sent: float, *, requests_since: float, tokens_since: float) -> None:
        """Read the headers of the reply to a call sent at `sent`, after which this client started
        `requests_since` calls of `tokens_since` tokens.

        A provider counts a call when it admits it, so the reply describes the budget as it stood
        when the call was sent (a slow reply describes the past): the reading is dated then and
        charged with every call started since. A reading older than the one held is ignored.
        """
        for dimension, spent in (("requests", requests_since), ("tokens", tokens_since)):
            remaining = _count(headers.get(f"x-ratelimit-remaining-{dimension}"))
            if remaining is None:
                continue
            held = self.buckets.get(dimension)
            if held is not None and held.at > sent:
                continue
            self.buckets[dimension] = BucketReading(
                remaining=remaining, at=sent, reset=parse_reset(headers.get(f"x-ratelimit-reset-{dimension}")),
                limit=_count(headers.get(f"x-ratelimit-limit-{dimension}")), spent=spent,
                last_rate=held.rate if held is not None else None)

    def pause(self, seconds: float, now: float) -> None:
        """A Retry-After: nothing starts for `seconds`."""
        self.paused_until = max(self.paused_until, now + seconds)

    def wait_for(self, tokens: float, now: float) -> float:
        """Seconds before a call of `tokens` estimated tokens may start (0: now)."""
        wait = max(0.0, self.paused_until - now)
        for dimension, need in (("requests", 1.0), ("tokens", tokens)):
            if (bucket := self.buckets.get(dimension)) is not None:
                if bucket.limit is not None:
                    # a call larger than the bucket can only wait for a full one
                    need = min(need + RESERVE * bucket.limit, bucket.limit)
                wait = max(wait, bucket.wait_for(need, now))
        return wait

    def spend(self, tokens: float) -> None:
        """A call started: take it from the buckets until the next reply says otherwise."""
        for dimension, amount in (("requests", 1.0), ("tokens", tokens)):
            if (bucket := self.buckets.get(dimension)) is not None:
                bucket.spent += amount
