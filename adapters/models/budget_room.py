"""Where an endpoint's provider budget is kept: in this process, or in the database every worker shares.

The rules are `pacing.HeaderBudget`'s (token buckets read from the provider's `x-ratelimit-*`
headers, a Retry-After pausing everyone); a room only says where their state lives and makes
"may a call of N tokens start now? then it has started" one atomic step:

- `LocalRoom`: in memory, on the scheduler's clock: one process paces itself (a run on SQLite).
- `SharedRoom`: one row per endpoint and key in the PostgreSQL ledger's database (schema
  `benchledger_budget`), read and written under a row lock, on the database server's clock, so
  every process and machine that asks one endpoint with one key takes from, and feeds, the same
  buckets: N workers together stay at the provider's limit instead of each believing it has it
  all. The row is named by a SHA-256 of the endpoint's URL and of the key (`room_name`), never the
  key itself. The counts of calls and tokens started (by anyone) ride in the row, so a reply's
  reading is charged with every call started since its own was sent, by whichever worker.

A room that cannot reach its database says so once in the log and the scheduler paces alone: the
budget is advice, and a 429 is still paced and retried, never scored.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import Any, NamedTuple, Protocol, TypeVar

import structlog

from benchledger.adapters.models.pacing import BucketReading, HeaderBudget

__all__ = ["Stamp", "BudgetRoom", "LocalRoom", "SharedRoom", "room_name", "BUDGET_SCHEMA"]

log = structlog.get_logger("benchledger.pacing")

BUDGET_SCHEMA = "benchledger_budget"
T = TypeVar("T")


class Stamp(NamedTuple):
    """A started call, as its room saw it: when (the room's clock), and the calls and tokens started before."""

    sent: float
    requests_before: float
    tokens_before: float


class BudgetRoom(Protocol):
    def take(self, tokens: float, now: float, *, force: bool) -> tuple[float, Stamp | None]:
        """Seconds to wait before a call of `tokens` may start (0, with its stamp, when it has started);
        `force` starts it when the buckets promise nothing at all (an infinite wait)."""

    def settle(self, stamp: Stamp, tokens: float, headers: Mapping[str, str] | None, retry_after: float | None,
               now: float) -> None:
        """A started call ended: read its reply's headers, pause everyone for its Retry-After."""


class LocalRoom:
    """The budget itself: the header buckets and the calls and tokens started. Kept in this process
    (`now` is the scheduler's clock), or loaded from a `SharedRoom`'s row for one step."""

    def __init__(self, budget: HeaderBudget | None = None, requests: float = 0.0, tokens: float = 0.0) -> None:
        self.budget = budget if budget is not None else HeaderBudget()
        self.requests, self.tokens = requests, tokens

    def take(self, tokens: float, now: float, *, force: bool) -> tuple[float, Stamp | None]:
        wait = self.budget.wait_for(tokens, now)
        if wait > 0 and not (force and math.isinf(wait)):
            return wait, None
        stamp = Stamp(now, self.requests, self.tokens)
        self.budget.spend(tokens)
        self.requests += 1
        self.tokens += tokens
        return 0.0, stamp

    def settle(self, stamp: Stamp, tokens: float, headers: Mapping[str, str] | None, retry_after: float | None,
               now: float) -> None:
        if headers:
            self.budget.observe(headers, stamp.sent, requests_since=self.requests - stamp.requests_before - 1,
                                tokens_since=self.tokens - stamp.tokens_before - tokens)
        if retry_after:
            self.budget.pause(retry_after, now)


def room_name(base_url: str | None, api_key: str | None) -> str:
    """The row of one endpoint and key: digests only (the key never leaves the process)."""
    endpoint = hashlib.sha256((base_url or "https://api.openai.com/v1").rstrip("/").encode()).hexdigest()[:16]
    key = hashlib.sha256((api_key or "").encode()).hexdigest()[:16]
    return f"{endpoint}:{key}"


def _dump(budget: HeaderBudget) -> str:
    return json.dumps({"paused_until": budget.paused_until,
                       "buckets": {name: asdict(reading) for name, reading in budget.buckets.items()}})


def _load(text: str | None) -> HeaderBudget:
    if not text:
        return HeaderBudget()
    data = json.loads(text)
    return HeaderBudget(buckets={name: BucketReading(**reading) for name, reading in data["buckets"].items()},
                        paused_until=float(data["paused_until"]))


_SETUP = (f"CREATE SCHEMA IF NOT EXISTS {BUDGET_SCHEMA}",
          f"CREATE TABLE IF NOT EXISTS {BUDGET_SCHEMA}.rooms (room text PRIMARY KEY, state text NOT NULL, "
          "requests double precision NOT NULL, tokens double precision NOT NULL)")
_READ = (f"SELECT state, requests, tokens, extract(epoch from clock_timestamp())::float8 FROM {BUDGET_SCHEMA}.rooms "
         "WHERE room = %s FOR UPDATE")
_WRITE = f"UPDATE {BUDGET_SCHEMA}.rooms SET state = %s, requests = %s, tokens = %s WHERE room = %s"


_OPEN: dict[str, Any] = {}
_OPEN_LOCK = threading.Lock()


def _connection_to(url: str) -> Any:
    """One connection per process and database, shared by every room (a sweep's runs and a worker's cells
    make a room each): rooms take turns on it under `_ROW_LOCK`, so their number never grows with the runs."""
    with _OPEN_LOCK:
        conn = _OPEN.get(url)
        if conn is None or conn.closed:
            import psycopg

            conn = psycopg.connect(url, autocommit=True, options="-c lock_timeout=5s -c statement_timeout=10s")
            for statement in _SETUP:
                conn.execute(statement)
            _OPEN[url] = conn
        return conn


_ROW_LOCK = threading.Lock()
"""One step at a time on the shared connection (a psycopg connection is not for threads at once)."""


class SharedRoom:
    """The budget in a row of the ledger's PostgreSQL database: each step loads it as a `LocalRoom`
    under the row's lock, on the server's clock (the caller's `now` is unused), and writes it back."""

    def __init__(self, url: str, room: str) -> None:
        self.url, self.room = url, room
        self._conn: Any = None
        self._local: LocalRoom | None = None
        """Set once the database could not be reached: the scheduler then paces alone."""

    def _connection(self) -> Any:
        conn = _connection_to(self.url)
        if conn is not self._conn:  # first use, or the process's connection was opened again
            conn.execute(f"INSERT INTO {BUDGET_SCHEMA}.rooms VALUES (%s, '', 0, 0) ON CONFLICT DO NOTHING",
                         (self.room,))
            self._conn = conn
        return conn

    def _step(self, step: Callable[[LocalRoom, float], T], alone: Callable[[LocalRoom], T]) -> T:
        """`step(budget, server_now)` with the row locked and written back; `alone(local)` once the
        database could not be reached (said once in the log)."""
        import psycopg

        with _ROW_LOCK:
            if self._local is None:
                try:
                    conn = self._connection()
                    with conn.transaction():
                        state, requests, tokens, server_now = conn.execute(_READ, (self.room,)).fetchone()
                        budget = LocalRoom(_load(state), requests, tokens)
                        result = step(budget, server_now)
                        if (written := _dump(budget.budget)) != state or budget.requests != requests:
                            conn.execute(_WRITE, (written, budget.requests, budget.tokens, self.room))
                    return result
                except psycopg.Error as err:
                    log.warning("shared provider budget unavailable: this process paces alone",
                                error=type(err).__name__)
                    self._local = LocalRoom()
            return alone(self._local)

    def take(self, tokens: float, now: float, *, force: bool) -> tuple[float, Stamp | None]:
        return self._step(lambda budget, server_now: budget.take(tokens, server_now, force=force),
                          lambda local: local.take(tokens, now, force=force))

    def settle(self, stamp: Stamp, tokens: float, headers: Mapping[str, str] | None, retry_after: float | None,
               now: float) -> None:
        self._step(lambda budget, server_now: budget.settle(stamp, tokens, headers, retry_after, server_now),
                   lambda local: local.settle(stamp, tokens, headers, retry_after, now))

    def close(self) -> None:
        """Forget the process's connection to this room's database (the next room opens another)."""
        with _ROW_LOCK, _OPEN_LOCK:
            conn = _OPEN.pop(self.url, None)
            if conn is not None:
                conn.close()
            self._conn = None
