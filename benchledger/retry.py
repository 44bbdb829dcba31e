"""One retry policy for every call that crosses the network: model endpoints and memory servers.

A call is tried up to `max_attempts` times in all. Only an error that is `Transient` earns another
attempt (each client decides what is: 429, 408, 5xx, timeouts, resets); anything else is raised
at once. Between attempts the wait is exponential backoff with full jitter,
`uniform(0, min(backoff_max, backoff_base * 2 ** (n - 1)))`, so threads that failed together do
not come back together. A server's `Retry-After` is a floor: the wait is
`min(retry_after, max_retry_after)` plus that jittered backoff. When the attempts run out, the last
transient error is raised as it was; the caller knows there were `max_attempts`.

The loop is tenacity's; this module states the policy once so that both clients share it, and
counts the attempts a call took so that a result can record them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Generic, NamedTuple, TypeVar

from tenacity import (
    RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, wait_exception,
    wait_random_exponential,
)

from benchledger.clock import now
from benchledger.settings import ModelCalls

__all__ = ["Transient", "RetryPolicy", "Attempted", "retry_after_seconds"]

T = TypeVar("T")

_MODEL_CALLS = ModelCalls()


class Transient(Exception):
    """Mixed into an error that is worth another attempt."""

    retry_after: float | None = None
    """Seconds the server asked the client to wait (its Retry-After), when it said."""


class Attempted(NamedTuple, Generic[T]):
    """What a call returned and how many attempts it took (1 when the first one succeeded)."""

    value: T
    attempts: int


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a call is retried; the same knobs for every client."""

    max_attempts: int = _MODEL_CALLS.max_attempts
    """Attempts in all, the first included (unset: a model call's, from `ModelCalls`)."""
    backoff_base: float = _MODEL_CALLS.backoff_base
    """Seconds: the upper bound of the first jittered wait, doubled at each further attempt (unset: a
    model call's)."""
    backoff_max: float = 30.0
    """Seconds: the cap on the jittered backoff."""
    max_retry_after: float = _MODEL_CALLS.max_retry_after
    """Seconds: the cap on a server's Retry-After, so a hostile or confused server cannot stall a run
    (unset: a model call's)."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if min(self.backoff_base, self.backoff_max, self.max_retry_after) < 0:
            raise ValueError("backoff_base, backoff_max and max_retry_after must not be negative")

    def call(self, attempt: Callable[[], T], *,
             before_retry: Callable[[BaseException], None] | None = None,
             sleep: Callable[[float], None] = time.sleep) -> Attempted[T]:
        """Run `attempt` until it returns, raises a non-`Transient` error, or the attempts run out.

        `before_retry(error)` is called before each wait (to count retries, for instance); `sleep`
        waits (a test may record the waits instead).
        """
        retrying = Retrying(
            stop=stop_after_attempt(self.max_attempts),
            wait=wait_exception(self._retry_after_floor)
            + wait_random_exponential(multiplier=self.backoff_base, max=self.backoff_max),
            retry=retry_if_exception_type(Transient),
            before_sleep=_notify(before_retry),
            sleep=sleep,
            reraise=True,
        )
        for trial in retrying:
            with trial:
                value = attempt()
            state = trial.retry_state
            if state.outcome is not None and not state.outcome.failed:
                return Attempted(value, state.attempt_number)
        raise AssertionError("unreachable: tenacity returns or re-raises")

    def _retry_after_floor(self, error: BaseException) -> float:
        retry_after = getattr(error, "retry_after", None)
        return 0.0 if retry_after is None else min(retry_after, self.max_retry_after)


def _notify(before_retry: Callable[[BaseException], None] | None) -> Callable[[RetryCallState], None] | None:
    if before_retry is None:
        return None

    def before_sleep(state: RetryCallState) -> None:
        if state.outcome is not None and (error := state.outcome.exception()) is not None:
            before_retry(error)

    return before_sleep


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The wait a reply's headers ask for: `retry-after-ms`, or `Retry-After` in seconds or as a date.

    Anything unreadable, negative or infinite is treated as not said.
    """
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            if scale != 1.0:
                continue
            try:
                seconds = (parsedate_to_datetime(value) - now()).total_seconds()
            except (TypeError, ValueError):
                continue
            seconds = max(0.0, seconds)  # a date in the past means: now
        if math.isfinite(seconds) and seconds >= 0:
            return seconds
    return None
