"""The guarded response cache: a model response is served again only as the ledger recorded it.

A run pays for a model call once; a later run asking exactly the same request (the same
`request_digest`, the model client's cache key) may reuse the response. A reused response
decides a score, so an entry is only served when the chained ledger vouches for it:

- it is written with the event that first recorded the response (`Ledger.writer.append(..., cache=[
  CacheEntry(...)])`), in the same transaction, and skipped with that event when its
  idempotency key was already recorded;
- the row keeps the response as canonical JSON, `response_digest` (SHA-256 of that text), the
  model asked for, and the run id + idempotency key of the recording event, and the table is
  append-only (triggers refuse UPDATE and DELETE; the first recording of a request wins);
- the recording event (a `QuestionAnswered` or `Judged`) names the same `request_digest`, and
  its `raw_hash` is the SHA-256 of the response's `text`, so the hash chain pins both.

`cached_response` serves an entry only to the runs it is asked for (a run's own id, and a run it
named with `--cache-from`): an entry another run recorded is a miss, so no run's responses are
in play for another unless it asked for them by name, and a `pull`ed run's responses serve only
that run. It also requires that the response still hashes to its digest, the recording event
exists, still hashes to its own chain hash, and names the same request and raw hash; anything
else is a miss, logged at debug level with the reason. The table keeps one row per request (the
first recording wins), so a run asking a request another run recorded first pays for it and its
own response is not kept: it is recorded in its event and blob all the same. `check_entries` (called
by `verify`) reports the first entry that is edited, orphaned or contradicts its event. The
m001 table `cache` had none of this: its rows are never served.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import structlog

from benchledger.errors import LedgerError
from benchledger.ledger.backend import LedgerConnection
from benchledger.ledger.chain import link_hash
from benchledger.ledger.events import Event

__all__ = ["CacheEntry", "canonical_response", "cache_rows", "cached_response", "cached_row", "served_response",
           "check_entries",
           "INSERT_SQL"]

log = structlog.get_logger("benchledger.ledger.cache")

INSERT_SQL = """INSERT INTO responses (request_digest, response, response_digest, model, run_id,
    idempotency_key, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (request_digest) DO NOTHING"""

_ENTRIES = """SELECT r.request_digest, r.response, r.response_digest, r.run_id, r.idempotency_key,
    e.seq, e.position, e.type, e.schema_version, e.recorded_at, e.payload, e.prev_hash, e.hash
    FROM responses r LEFT JOIN events e
      ON e.run_id = r.run_id AND e.idempotency_key = r.idempotency_key"""


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """A model response to cache, recorded by one event of the same append."""

    request_digest: str
    """The request's cache key: SHA-256 of everything that shaped the output."""
    response: Mapping[str, Any]
    """The response as the model client keeps it; its "text" is the raw reply the event hashes."""
    model: str
    """The model asked for."""
    idempotency_key: str
    """Idempotency key of the event (in the same append) that records this response."""


def canonical_response(response: Mapping[str, Any]) -> str:
    """The stored text of a response: JSON with sorted keys and no spaces."""
    return json.dumps(response, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _reply_hash(response: Mapping[str, Any]) -> str | None:
    text = response.get("text")
    return _sha256(text) if isinstance(text, str) else None


def _mismatch(event_digest: object, event_raw_hash: object, request_digest: str,
              response: Mapping[str, Any]) -> str | None:
    """Why an event does not vouch for this response, or None when it does."""
    if event_digest != request_digest:
        return f"its recording event names request {event_digest or '(none)'}"
    if event_raw_hash != _reply_hash(response):
        return "its recording event's raw_hash is not the hash of the response's text"
    return None


def cache_rows(run_id: str, entries: Sequence[CacheEntry], written: Mapping[str, Event],
               skipped: set[str], recorded_at: str,
               texts: Sequence[str] | None = None) -> list[tuple[str, str, str, str, str, str, str]]:
    """Rows of `INSERT_SQL` for the entries whose recording event this append writes (`texts`: their
    `canonical_response`s, when the caller made them already).

    `written` maps the idempotency keys this append writes to their events; an entry whose key
    was `skipped` (already recorded) is skipped with it. An entry naming no event of the append,
    or one its event does not vouch for, is a programming error: LedgerError, nothing written.
    """
    rows = []
    for index, entry in enumerate(entries):
        if entry.idempotency_key in skipped:
            continue
        event = written.get(entry.idempotency_key)
        if event is None:
            raise LedgerError(f"cache entry {entry.request_digest} names event "
                              f"{entry.idempotency_key!r}, which this append does not record")
        problem = _mismatch(getattr(event, "request_digest", None), getattr(event, "raw_hash", None),
                            entry.request_digest, entry.response)
        if problem:
            raise LedgerError(f"cache entry {entry.request_digest} cannot be recorded: {problem}")
        text = texts[index] if texts is not None else canonical_response(entry.response)
        rows.append((entry.request_digest, text, _sha256(text), entry.model, run_id,
                     entry.idempotency_key, recorded_at))
    return rows


def _row_problem(row: tuple[Any, ...]) -> tuple[str, dict[str, Any] | None]:
    """(why the entry cannot be served, or "", and the parsed response when it can).

    The reason reads after "cached response <digest> ".
    """
    (request_digest, text, digest, run_id, key, seq, position, type_, version, recorded_at,
     payload, prev_hash, hash_) = row
    if _sha256(text) != digest:
        return "was edited: its response does not hash to its response_digest", None
    if seq is None:
        return f"is an orphan: no event {key!r} of run {run_id} recorded it", None
    if link_hash(prev_hash, run_id, position, type_, version, recorded_at, key, payload) != hash_:
        return f"has a recording event (seq {seq}) that was changed", None
    try:
        response, event = json.loads(text), json.loads(payload)
    except ValueError as exc:
        return f"cannot be read: {exc}", None
    problem = _mismatch(event.get("request_digest"), event.get("raw_hash"), request_digest, response)
    if problem:
        return f"does not match its recording event (seq {seq}): {problem}", None
    return "", response


def cached_response(conn: LedgerConnection, request_digest: str, runs: Collection[str]) -> dict[str, Any] | None:
    """The response recorded for the request by one of `runs`, when the ledger vouches for it; else None."""
    return served_response(cached_row(conn, request_digest) if runs else None, request_digest, runs)


def cached_row(conn: LedgerConnection, request_digest: str) -> tuple[Any, ...] | None:
    """The request's cache entry joined to its recording event, as stored (unchecked): the one read
    that needs the connection, so a reader shared by a run's threads holds its lock for no more."""
    conn.begin_read()
    try:
        if not conn.has_responses():  # an older ledger, not yet migrated: it caches nothing
            return None
        row = conn.execute(_ENTRIES + " WHERE r.request_digest = ?", (request_digest,)).fetchone()
    finally:
        conn.execute("ROLLBACK")
    return None if row is None else tuple(row)


def served_response(row: tuple[Any, ...] | None, request_digest: str,
                    runs: Collection[str]) -> dict[str, Any] | None:
    """The response of a `cached_row`, when it was recorded by one of `runs` and the ledger vouches for
    it (hashes and the recording event checked, on no connection); else None."""
    if row is None or not runs:
        return None
    if row[3] not in runs:
        log.debug("cached response not served", request_digest=request_digest,
                  reason=f"it was recorded by run {row[3]}, which this run did not name")
        return None
    problem, response = _row_problem(tuple(row))
    if problem:
        log.debug("cached response not served", request_digest=request_digest, reason=problem)
        return None
    return response


def check_entries(conn: LedgerConnection, run_id: str | None) -> str | None:
    """The first cached response (of the run, or of the ledger) that cannot be served, or None."""
    if not conn.has_responses():
        return None
    where, params = (" WHERE r.run_id = ?", (run_id,)) if run_id else ("", ())
    for row in conn.execute(_ENTRIES + where + " ORDER BY r.request_digest", params):
        problem, _ = _row_problem(tuple(row))
        if problem:
            return f"cached response {row[0]} {problem}"
    return None
