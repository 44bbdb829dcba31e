"""Verifying a ledger: guard triggers, the hash chain, gapless positions, stored views, blobs.

`verify_ledger` walks the rows in seq order and names the first bad seq:
- a row whose bytes no longer hash to its stored hash was changed;
- a row whose prev_hash is not the hash of the row before it, or a gap in seq, means rows were
  deleted, inserted or moved (the guards must have been dropped first);
- a run whose positions are not 1, 2, 3, ... lost or gained an event;
- `sqlite_sequence` remembers the largest seq ever issued, so deleting the newest rows shows too.
The guard triggers themselves are compared with the schema's text. When a `refold` function
is given, each stored view is compared with a fresh fold of the events up to its position.
A run-scoped check re-hashes that run's rows and their links to their neighbours in the chain.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic_core import to_json

from benchledger.ledger import blobs, migrations
from benchledger.ledger.chain import GENESIS, link_hash
from benchledger.errors import RunNotFound

__all__ = ["VerifyResult", "Refold", "check_guards", "verify_ledger"]

Refold = Callable[[str, list[Any]], dict[str, tuple[int, object]]]


class VerifyResult(BaseModel):
    """The outcome of `Ledger.verify`."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    checked: int
    """Event rows whose hash and links were recomputed."""
    first_bad_seq: int | None = None
    problem: str | None = None
    """What is wrong and where, in one sentence; None when ok."""


def _normalise(sql: str) -> str:
    return " ".join(sql.split())


def check_guards(conn: sqlite3.Connection) -> str | None:
    """A description of the first missing or altered guard trigger, or None."""
    stored = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"))
    for name, sql in migrations.GUARD_TRIGGERS.items():
        if name not in stored:
            return f"guard trigger {name} is missing: the ledger is no longer protected as append-only"
        if _normalise(stored[name]) != _normalise(sql):
            return f"guard trigger {name} was altered: the ledger is no longer protected as append-only"
    return None


_ALL_ROWS = """SELECT seq, run_id, position, type, schema_version, recorded_at, idempotency_key,
    payload, prev_hash, hash FROM events ORDER BY seq"""
_RUN_ROWS = """SELECT e.seq, e.run_id, e.position, e.type, e.schema_version, e.recorded_at,
    e.idempotency_key, e.payload, e.prev_hash, e.hash,
    (SELECT p.seq FROM events p WHERE p.seq < e.seq ORDER BY p.seq DESC LIMIT 1),
    (SELECT p.hash FROM events p WHERE p.seq < e.seq ORDER BY p.seq DESC LIMIT 1)
    FROM events e WHERE e.run_id = ? ORDER BY e.seq"""


def _row_problem(row: tuple, prev_seq: int, prev_hash: str, last_position: int) -> tuple[int, str] | None:
    seq, run_id, position, type_, version, recorded_at, key, payload, stored_prev, stored_hash = row
    if seq != prev_seq + 1:
        return prev_seq + 1, f"rows with seq {prev_seq + 1}..{seq - 1} are missing (deleted)"
    if stored_prev != prev_hash:
        return seq, (f"seq {seq} does not link to the row before it: a row was deleted, "
                     "inserted or moved")
    if link_hash(stored_prev, run_id, position, type_, version, recorded_at, key, payload) != stored_hash:
        return seq, f"seq {seq} ({type_} of run {run_id}) was changed: its bytes do not match its hash"
    if position != last_position + 1:
        return seq, (f"seq {seq} has position {position} in run {run_id}, expected "
                     f"{last_position + 1}: an event of the run is missing or moved")
    return None


def _check_rows(conn: sqlite3.Connection, run_id: str | None) -> tuple[int, int, tuple[int, str] | None]:
    """(rows checked, last seq seen, first problem or None)."""
    checked, last_seq, prev_hash = 0, 0, GENESIS
    positions: dict[str, int] = {}
    if run_id is None:
        rows: Iterable[tuple] = conn.execute(_ALL_ROWS)
    else:
        rows = conn.execute(_RUN_ROWS, (run_id,))
    for row in rows:
        if run_id is not None:  # the neighbour before this row may belong to another run
            row, (last_seq, prev_hash) = row[:10], (row[10] or 0, row[11] or GENESIS)
        problem = _row_problem(row, last_seq, prev_hash, positions.get(row[1], 0))
        if problem:
            return checked, last_seq, problem
        checked += 1
        last_seq, prev_hash, positions[row[1]] = row[0], row[9], row[2]
    if run_id is not None:
        if checked == 0:
            raise RunNotFound(f"no run {run_id} in this ledger; list runs with `benchledger runs`")
        after = conn.execute("SELECT seq, prev_hash FROM events WHERE seq > ? ORDER BY seq LIMIT 1",
                             (last_seq,)).fetchone()
        if after and after[1] != prev_hash:
            return checked, last_seq, (last_seq + 1, f"the row after seq {last_seq} (run {run_id}'s "
                                       "last) does not link to it: an event was deleted")
        last_seq = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
    return checked, last_seq, None


def _check_tail(conn: sqlite3.Connection, last_seq: int) -> tuple[int, str] | None:
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
    issued = row[0] if row else 0
    if issued > last_seq:
        return last_seq + 1, (f"the newest rows were deleted: seq {last_seq + 1}..{issued} were "
                              "issued but are not in the ledger")
    return None


def _check_views(conn: sqlite3.Connection, run_ids: list[str], refold: Refold,
                 read_events: Callable[[str], list[Any]]) -> tuple[int, str] | None:
    for run_id in run_ids:
        stored = conn.execute(
            "SELECT name, version, position, value FROM views WHERE run_id = ? ORDER BY position, name",
            (run_id,)).fetchall()
        if not stored:
            continue
        events = read_events(run_id)
        folds: dict[int, dict[str, tuple[int, object]]] = {}
        for name, version, position, value in stored:
            if position not in folds:
                folds[position] = refold(run_id, [e for e in events if e.position <= position])
            fresh = folds[position].get(name)
            if fresh is None or fresh[0] != version:
                continue  # this code no longer folds that view version: nothing to compare
            if json.loads(to_json(fresh[1])) != json.loads(value):
                seq = next((e.seq for e in events if e.position == position), None)
                return seq, (f"view {name} v{version} of run {run_id} at position {position} differs "
                             "from a fresh fold of its events")
    return None


def verify_ledger(conn: sqlite3.Connection, run_id: str | None, refold: Refold | None,
                  read_events: Callable[[str], list[Any]]) -> VerifyResult:
    """Check guards, chain, positions, tail, views (with refold) and, for the whole ledger, blobs.

    Every check reads one snapshot (a read transaction on `conn`, which `read_events` must also
    use): otherwise a writer committing between the row walk and the `sqlite_sequence` read looks
    exactly like a deleted tail.
    """
    conn.execute("BEGIN")
    try:
        return _verify_snapshot(conn, run_id, refold, read_events)
    finally:
        if conn.in_transaction:  # read-only: nothing to keep or undo
            conn.execute("ROLLBACK")


def _verify_snapshot(conn: sqlite3.Connection, run_id: str | None, refold: Refold | None,
                     read_events: Callable[[str], list[Any]]) -> VerifyResult:
    problem = check_guards(conn)
    if problem:
        return VerifyResult(ok=False, checked=0, problem=problem)
    checked, last_seq, bad = _check_rows(conn, run_id)
    bad = bad or _check_tail(conn, last_seq)
    if bad is None and refold is not None:
        run_ids = [run_id] if run_id else [r for (r,) in conn.execute(
            "SELECT DISTINCT run_id FROM views ORDER BY run_id")]
        bad = _check_views(conn, run_ids, refold, read_events)
    if bad is None and run_id is None:
        blob_problem = blobs.check(conn)
        bad = (None, blob_problem) if blob_problem else None
    if bad:
        return VerifyResult(ok=False, checked=checked, first_bad_seq=bad[0], problem=bad[1])
    return VerifyResult(ok=True, checked=checked)
