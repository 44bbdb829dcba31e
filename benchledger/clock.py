"""The one place for the clock and for ids, so tests can freeze time with freezegun."""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone

__all__ = ["now", "now_iso", "new_run_id", "monotonic_ms"]

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def now() -> datetime:
    """Current UTC time."""
    return datetime.now(timezone.utc)


def now_iso() -> str:
    """Current UTC time as ISO-8601 with microseconds and a Z suffix."""
    return now().strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _encode(value: int, length: int) -> str:
    out = []
    for _ in range(length):
        value, rem = divmod(value, 32)
        out.append(_CROCKFORD[rem])
    return "".join(reversed(out))


def new_run_id() -> str:
    """A ULID: 48-bit millisecond time then 80 random bits; sorts by start time."""
    millis = int(now().timestamp() * 1000)
    return _encode(millis, 10) + _encode(int.from_bytes(os.urandom(10), "big"), 16)


def monotonic_ms() -> float:
    """Monotonic milliseconds for latencies (never stored as a wall time)."""
    return time.perf_counter() * 1000.0
