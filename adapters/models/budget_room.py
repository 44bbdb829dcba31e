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
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any, NamedTuple, Protocol

import structlog

from benchledger.adapters.models.pacing import BucketReading, HeaderBudget

__all__ = ["Stamp", "BudgetRoom", "LocalRoom", "SharedRoom", "room_name", "BUDGET_SCHEMA"]

log = structlog.get_logger("benchledger.pacing")

BUDGET_SCHEMA = "benchledger_budget"


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
    """The budget in this process (`now` is the scheduler's clock)."""

    def __init__(self) -> None:
        self.budget = HeaderBudget()
        self.requests = 0.0
        self.tokens = 0.0

    def take(self, tokens: float, now: float, *, force: bool) -> tuple[float, Stamp | None]:
        wait = self.budget.wait_for(tokens, now)
        if wait > 0 and not (force and math.isinf(wait)):
            return wait, None
        return 0.0, _started(self, tokens, now)

    def settle(self, stamp: Stamp, tokens: float, headers: Mapping[str, str] | None, retry_after: float | None,
               now: float) -> None:
        _settled(self, stamp, tokens, headers, retry_after, now)


def _started(state: Any, tokens: float, now: float) -> Stamp:
    stamp = Stamp(now, state.requests, state.tokens)
    state.budget.spend(tokens)
    state.requests += 1
    state.tokens += tokens
    return stamp


def _settled(state: Any, stamp: Stamp, tokens: float, headers: Mapping[str, str] | None, retry_after: float | None,
             now: float) -> None:
    if headers:
        state.budget.observe(headers, stamp.sent, requests_since=state.requests - stamp.requests_before - 1,
                             tokens_since=state.tokens - stamp.tokens_before - tokens)
    if retry_after:
        state.budget.pause(retry_after, now)


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


class _Row:
    """One room's row, read for update: the shape `_started` and `_settled` work on."""

    def __init__(self, budget: HeaderBudget, requests: float, tokens: float) -> None:
        self.budget, self.requests, self.tokens = budget, requests, tokens


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
"""One statement sequence at a time on the shared connection (psycopg connections are not for threads at once)."""


class SharedRoom:
    """The budget in a row of the ledger's PostgreSQL database, on the server's clock (`now` unused)."""

    def __init__(self, url: str, room: str) -> None:
        self.url, self.room = url, room
        self._lock = threading.Lock()
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

    def _in_row(self, work: Any) -> Any:
        """`work(row, server_now)` with the row locked, written back; None once fallen back to local."""
        import psycopg

        try:
            with _ROW_LOCK:
                return self._locked_row(work)
        except psycopg.Error as err:
            log.warning("shared provider budget unavailable: this process paces alone", error=type(err).__name__)
            self._local = LocalRoom()
            return None

    def _locked_row(self, work: Any) -> Any:
        conn = self._connection()
        with conn.transaction():
            state, requests, tokens, server_now = conn.execute(_READ, (self.room,)).fetchone()
            row = _Row(_load(state), requests, tokens)
            result = work(row, server_now)
            if (written := _dump(row.budget)) != state or row.requests != requests:
                conn.execute(_WRITE, (written, row.requests, row.tokens, self.room))
        return result

    def take(self, tokens: float, now: float, *, force: bool) -> tuple[float, Stamp | None]:
        with self._lock:
            if self._local is not None:
                return self._local.take(tokens, now, force=force)

            def work(row: _Row, server_now: float) -> tuple[float, Stamp | None]:
                wait = row.budget.wait_for(tokens, server_now)
                if wait > 0 and not (force and math.isinf(wait)):
                    return wait, None
                return 0.0, _started(row, tokens, server_now)

            taken = self._in_row(work)
            if taken is not None:
                return taken
            assert self._local is not None, "_in_row falls back to a local room when it returns None"
            return self._local.take(tokens, now, force=force)

    def settle(self, stamp: Stamp, tokens: float, headers: Mapping[str, str] | None, retry_after: float | None,
               now: float) -> None:
        with self._lock:
            if self._local is not None:
                self._local.settle(stamp, tokens, headers, retry_after, now)
                return
            self._in_row(lambda row, server_now: _settled(row, stamp, tokens, headers, retry_after, server_now))

    def close(self) -> None:
        """Forget the process's connection to this room's database (the next room opens another)."""
        with self._lock, _OPEN_LOCK:
            conn = _OPEN.pop(self.url, None)
            if conn is not None:
                conn.close()
            self._conn = None
