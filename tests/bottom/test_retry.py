"""The one retry policy (`benchledger.retry`), without a network: what is retried, how often, how long.

The waits are recorded instead of slept, so the bounds of the full-jitter backoff, the Retry-After
floor and its cap are checked exactly. The clients that use the policy are tested against real
servers in test_models_client.py and test_memory_http_faults.py.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest
from freezegun import freeze_time

from benchledger.retry import RetryPolicy, Transient, retry_after_seconds


class Flaky(Transient):
    def __init__(self, retry_after: float | None = None) -> None:
        super().__init__("try again")
        self.retry_after = retry_after


def failing(times: int, error=Flaky, value: str = "done"):
    """An attempt that raises `error()` `times` times, then returns `value`; `calls` counts attempts."""
    calls: list[int] = []

    def attempt() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise error()
        return value

    return attempt, calls


def test_a_transient_error_is_retried_and_the_attempts_are_counted() -> None:
    waits: list[float] = []
    retried: list[BaseException] = []
    attempt, calls = failing(2)
    result = RetryPolicy(max_attempts=4, backoff_base=0.5).call(attempt, before_retry=retried.append,
                                                                sleep=waits.append)
    assert (result.value, result.attempts) == ("done", 3)
    assert len(calls) == 3 and len(waits) == 2 and all(isinstance(e, Flaky) for e in retried)
    assert RetryPolicy().call(lambda: 7, sleep=waits.append) == (7, 1)


def test_other_errors_are_raised_at_once() -> None:
    attempt, calls = failing(5, error=lambda: ValueError("permanent"))
    with pytest.raises(ValueError, match="permanent"):
        RetryPolicy(max_attempts=6).call(attempt, sleep=lambda s: None)
    assert len(calls) == 1


def test_when_the_attempts_run_out_the_last_transient_error_is_raised() -> None:
    waits: list[float] = []
    attempt, calls = failing(10)
    with pytest.raises(Flaky):
        RetryPolicy(max_attempts=3).call(attempt, sleep=waits.append)
    assert len(calls) == 3 and len(waits) == 2


def test_backoff_is_full_jitter_under_an_exponential_cap() -> None:
    policy = RetryPolicy(max_attempts=8, backoff_base=0.5, backoff_max=2.0)
    runs = []
    for _ in range(200):
        waits: list[float] = []
        with pytest.raises(Flaky):
            policy.call(failing(10)[0], sleep=waits.append)
        runs.append(waits)
    caps = [0.5, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0]
    for n, cap in enumerate(caps):
        column = [waits[n] for waits in runs]
        assert all(0 <= wait <= cap for wait in column)
        assert min(column) < cap * 0.25 and max(column) > cap * 0.75, "spread over the whole range"


def test_retry_after_is_a_floor_and_is_capped() -> None:
    waits: list[float] = []
    attempt, _ = failing(2, error=lambda: Flaky(retry_after=3.0))
    RetryPolicy(max_attempts=3, backoff_base=0.1).call(attempt, sleep=waits.append)
    assert all(3.0 <= wait <= 3.0 + 0.2 for wait in waits)

    capped: list[float] = []
    attempt, _ = failing(1, error=lambda: Flaky(retry_after=3600.0))
    RetryPolicy(max_attempts=2, backoff_base=0.1, max_retry_after=5.0).call(attempt, sleep=capped.append)
    assert 5.0 <= capped[0] <= 5.1


def test_bad_knobs_are_refused() -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError, match="negative"):
        RetryPolicy(backoff_base=-1)


@freeze_time("2026-03-01 12:00:00")
def test_retry_after_headers_are_read_in_seconds_milliseconds_or_as_a_date() -> None:
    in_ten = format_datetime(datetime(2026, 3, 1, 12, 0, 10, tzinfo=timezone.utc), usegmt=True)
    past = format_datetime(datetime(2026, 3, 1, 11, 0, tzinfo=timezone.utc) - timedelta(days=1), usegmt=True)
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after": "1.5"}) == 1.5
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_seconds({"retry-after-ms": "soon", "retry-after": "9"}) == 9.0
    assert retry_after_seconds({"retry-after": in_ten}) == 10.0
    assert retry_after_seconds({"retry-after": past}) == 0.0
    for unreadable in ("later", "-3", "inf", "nan", ""):
        assert retry_after_seconds({"retry-after": unreadable}) is None
    assert retry_after_seconds({}) is None
