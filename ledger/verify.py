"""Verifying a ledger: its schema, the hash chain, positions, blobs, cached responses and views.

Every check reads one snapshot (the caller's read transaction) and names the first bad seq:
- the schema must be exactly what the applied migrations create (tables with their columns and
  constraints, SQLite's indexes for UNIQUE constraints, indexes, guard triggers): a table
  rebuilt without its UNIQUE or CHECK constraints, or a dropped or altered guard, is reported;
- a row whose bytes no longer hash to its stored hash was changed; a row whose prev_hash is not
  the hash of the row before it, or a gap in seq, means rows were deleted, inserted or moved;
- a run whose positions are not 1, 2, 3, ... lost or gained an event;
- `sqlite_sequence` remembers the largest seq ever issued, so deleting the newest rows shows;
- every blob an event names (`references`) must be stored, and (whole ledger) every stored
  blob must hash to its digest;
- every cached response must be vouched for by its recording event (`cache.check_entries`);
- with `expect_head`, the ledger must still hold the event with that hash: a consistent
  rewrite of the chain, or a restored older copy of the file, cannot hold it;
- with `refold`, each stored view is compared with a fresh fold of the events up to its
  position.

A run-scoped check walks the run's chain segment: every row from the run's first event to the
one after its last (other runs' rows in between included, since the chain is global), re-hashing
each and linking the first to the stored hash of the row before it. `check_run` is the fast part of it that a read which checks
(`verified_events`) runs before it hands events out. A damaged file (SQLite reports corruption)
is a failed check with one line, never a traceback.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic_core import to_json

from benchledger.errors import LedgerError, RunNotFound
from benchledger.ledger import blobs, cache, migrations, references
from benchledger.ledger.chain import GENESIS, batch_linker
from benchledger.ledger.mapper import ROW_COLUMNS, Row, StoredEvent

__all__ = ["VerifyResult", "Refold", "Problem", "check_schema", "check_run", "verify_ledger"]

Refold = Callable[[str, list[Any]], dict[str, tuple[int, object]]]
Problem = tuple["int | None", str]
"""(first bad seq or None, what is wrong)."""

_DAMAGED = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
_BYTES_COLUMNS = ROW_COLUMNS.replace("payload", "CAST(payload AS BLOB)")


class VerifyResult(BaseModel):
    """The outcome of `Ledger.verify`."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    checked: int
    """Event rows whose hash and links were recomputed."""
    first_bad_seq: int | None = None
    problem: str | None = None
    """What is wrong and where, in one sentence; None when ok."""
    head: str | None = None
    """Hash of the last event checked (the ledger's, or the run's); pin it to catch a rewrite."""


def check_schema(conn: sqlite3.Connection) -> str | None:
    """A description of the first difference from the expected schema, or None."""
    expected = migrations.expected_schema(frozenset(migrations.applied(conn)))
    found = migrations.schema_of(conn)
    for name in migrations.GUARD_TRIGGERS:
        key = ("trigger", name)
        if key not in expected:
            continue
        if key not in found:
            return f"guard trigger {name} is missing: the ledger is no longer protected as append-only"
        if found[key] != expected[key]:
            return f"guard trigger {name} was altered: the ledger is no longer protected as append-only"
    for (type_, name), sql in sorted(expected.items()):
        if (type_, name) not in found:
            return f"{type_} {name} is missing from the ledger's schema"
        if found[(type_, name)] != sql:
            return (f"{type_} {name} differs from the expected schema: its columns, constraints "
                    "or definition were changed")
    for type_, name in sorted(set(found) - set(expected)):
        return f"unexpected {type_} {name} in the ledger's schema"
    return None


class _Linker:
    """`link_hash` with the frames of each (run, recorded_at) built once: rows of one append share them."""

    def __init__(self) -> None:
        self._linkers: dict[tuple[str, str], Callable[..., str]] = {}

    def __call__(self, row: Row) -> str:
        seq, run_id, position, type_, version, recorded_at, key, payload, stored_prev, _ = row
        link = self._linkers.get((run_id, recorded_at))
        if link is None:
            if len(self._linkers) > 1024:
                self._linkers.clear()
            link = self._linkers[(run_id, recorded_at)] = batch_linker(run_id, recorded_at)
        return link(stored_prev, position, type_, version, key,
                    payload if isinstance(payload, bytes) else payload.encode())


def _link_problem(row: Row, prev_seq: int, prev_hash: str, linker: _Linker) -> Problem | None:
    seq, run_id, type_, stored_prev, stored_hash = row[0], row[1], row[3], row[8], row[9]
    if seq != prev_seq + 1:
        return prev_seq + 1, f"rows with seq {prev_seq + 1}..{seq - 1} are missing (deleted)"
    if stored_prev != prev_hash:
        return seq, (f"seq {seq} does not link to the row before it: a row was deleted, "
                     "inserted or moved")
    if linker(row) != stored_hash:
        return seq, f"seq {seq} ({type_} of run {run_id}) was changed: its bytes do not match its hash"
    return None


def _position_problem(row: Row, last_position: int) -> Problem | None:
    seq, run_id, position = row[0], row[1], row[2]
    if position != last_position + 1:
        return seq, (f"seq {seq} has position {position} in run {run_id}, expected "
                     f"{last_position + 1}: an event of the run is missing or moved")
    return None


def _walk_ledger(conn: sqlite3.Connection) -> tuple[int, int, str, Problem | None]:
    """(rows checked, last seq, last hash, first problem) over every row in seq order."""
    checked, last_seq, prev_hash, linker = 0, 0, GENESIS, _Linker()
    positions: dict[str, int] = {}
    for row in conn.execute(f"SELECT {ROW_COLUMNS} FROM events ORDER BY seq"):
        problem = _link_problem(row, last_seq, prev_hash, linker) or _position_problem(row, positions.get(row[1], 0))
        if problem:
            return checked, last_seq, prev_hash, problem
        checked += 1
        last_seq, prev_hash, positions[row[1]] = row[0], row[9], row[2]
    return checked, last_seq, prev_hash, None


def _walk_run(conn: sqlite3.Connection, run_id: str) -> tuple[list[Row], Problem | None]:
    """The run's rows and the first problem of its chain segment (see the module docstring)."""
    first, last = conn.execute("SELECT MIN(seq), MAX(seq) FROM events WHERE run_id = ?",
                               (run_id,)).fetchone()
    if first is None:
        raise RunNotFound(f"no run {run_id} in this ledger; list runs with `benchledger runs`")
    # Payloads as bytes: hashed as they are, and validated without a decode and re-encode.
    segment = conn.execute(f"SELECT {_BYTES_COLUMNS} FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq",
                           (first - 1, last + 1)).fetchall()
    prev_seq, prev_hash = 0, GENESIS
    if segment and segment[0][0] == first - 1:  # the row before the run anchors its first link
        prev_seq, prev_hash = segment[0][0], segment[0][9]
        segment = segment[1:]
    elif first > 1:
        return [], (first - 1, f"seq {first - 1}, the row before run {run_id}'s first event, is "
                               "missing (deleted)")
    rows: list[Row] = []
    linker, last_position = _Linker(), 0
    linkers: dict[tuple[str, str], Callable[..., str]] = {}
    for row in segment:  # the common case inline (it runs per event); the slow path names a problem
        seq, row_run, position, type_, version, recorded_at, key, payload, stored_prev, stored_hash = row
        link = linkers.get((row_run, recorded_at))
        if link is None:
            link = linkers[(row_run, recorded_at)] = batch_linker(row_run, recorded_at)
        if seq != prev_seq + 1 or stored_prev != prev_hash or link(
                stored_prev, position, type_, version, key,
                payload if isinstance(payload, bytes) else payload.encode()) != stored_hash:
            return rows, _link_problem(row, prev_seq, prev_hash, linker)
        if row_run == run_id:
            if position != last_position + 1:
                return rows, _position_problem(row, last_position)
            rows.append(row)
            last_position = position
        prev_seq, prev_hash = seq, stored_hash
    return rows, None


def _check_tail(conn: sqlite3.Connection) -> Problem | None:
    (last_seq,) = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
    issued = row[0] if row else 0
    if issued > last_seq:
        return last_seq + 1, (f"the newest rows were deleted: seq {last_seq + 1}..{issued} were "
                              "issued but are not in the ledger")
    return None


def _missing_head(expect_head: str, run_id: str | None) -> Problem:
    where = f"run {run_id} holds" if run_id else "the ledger holds"
    return None, (f"{where} no event with hash {expect_head}: it is not the ledger whose head that "
                  "was (an older copy, or its chain was rewritten)")


def check_run(conn: sqlite3.Connection, run_id: str,
              expect_head: str | None = None) -> tuple[list[Row], Problem | None]:
    """The run's rows and the first problem of the fast checks: schema, chain segment, tail, head."""
    schema_problem = check_schema(conn)
    if schema_problem:
        return [], (None, schema_problem)
    rows, problem = _walk_run(conn, run_id)
    problem = problem or _check_tail(conn)
    if problem is None and expect_head is not None and all(row[9] != expect_head for row in rows):
        problem = _missing_head(expect_head, run_id)
    return rows, problem


def _check_views(conn: sqlite3.Connection, run_ids: Sequence[str], refold: Refold,
                 read_events: Callable[[str], list[StoredEvent]]) -> Problem | None:
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


def _check_references(conn: sqlite3.Connection, run_id: str | None) -> Problem | None:
    params: tuple[str, ...] = (run_id,) if run_id else ()
    row = conn.execute(references.missing_sql(one_run=run_id is not None), params).fetchone()
    if row is None:
        return None
    seq, digest = row
    return seq, f"seq {seq} names blob {digest}, which is not in the ledger (its body was deleted)"


def _check_file(conn: sqlite3.Connection) -> Problem | None:
    found = [message for (message,) in conn.execute("PRAGMA quick_check")]
    if found != ["ok"]:
        return None, f"the file is damaged: {found[0]}; restore it from a copy"
    return None


def _later_checks(conn: sqlite3.Connection, run_id: str | None, refold: Refold | None,
                  read_events: Callable[[str], list[StoredEvent]]) -> Iterable[Problem | None]:
    """The checks after the chain, lazily, cheapest first."""
    yield _check_references(conn, run_id)
    if run_id is None:
        blob_problem = blobs.check(conn)
        yield (None, blob_problem) if blob_problem else None
    cache_problem = cache.check_entries(conn, run_id)
    yield (None, cache_problem) if cache_problem else None
    if refold is not None:
        run_ids = [run_id] if run_id else [r for (r,) in conn.execute(
            "SELECT DISTINCT run_id FROM views ORDER BY run_id")]
        yield _check_views(conn, run_ids, refold, read_events)
    if run_id is None:
        yield _check_file(conn)


def _verify_snapshot(conn: sqlite3.Connection, run_id: str | None, refold: Refold | None,
                     read_events: Callable[[str], list[StoredEvent]],
                     expect_head: str | None) -> VerifyResult:
    if run_id is None:
        schema_problem = check_schema(conn)
        if schema_problem:
            return VerifyResult(ok=False, checked=0, problem=schema_problem)
        checked, _, head, problem = _walk_ledger(conn)
        problem = problem or _check_tail(conn)
        if problem is None and expect_head is not None and conn.execute(
                "SELECT 1 FROM events WHERE hash = ?", (expect_head,)).fetchone() is None:
            problem = _missing_head(expect_head, None)
        head_or_none: str | None = head if checked else None
    else:
        rows, problem = check_run(conn, run_id, expect_head)
        checked, head_or_none = len(rows), (rows[-1][9] if rows else None)
    if problem is None:
        try:
            problem = next((found for found in _later_checks(conn, run_id, refold, read_events) if found),
                           None)
        except LedgerError as exc:  # an event the views need cannot be read
            problem = None, str(exc)
    if problem:
        return VerifyResult(ok=False, checked=checked, first_bad_seq=problem[0], problem=problem[1])
    return VerifyResult(ok=True, checked=checked, head=head_or_none)


def verify_ledger(conn: sqlite3.Connection, run_id: str | None, refold: Refold | None,
                  read_events: Callable[[str], list[StoredEvent]],
                  expect_head: str | None = None) -> VerifyResult:
    """Check the whole ledger (run_id None) or one run's segment; see the module docstring.

    Every check reads one snapshot (a read transaction on `conn`, which `read_events` must also
    use): otherwise a writer committing between the row walk and the `sqlite_sequence` read looks
    exactly like a deleted tail.
    """
    try:
        conn.execute("BEGIN")
        try:
            return _verify_snapshot(conn, run_id, refold, read_events, expect_head)
        finally:
            if conn.in_transaction:  # read-only: nothing to keep or undo
                conn.execute("ROLLBACK")
    except sqlite3.DatabaseError as exc:
        if ((exc.sqlite_errorcode or 0) & 0xFF) not in _DAMAGED:
            raise
        return VerifyResult(ok=False, checked=0, problem=f"the file is damaged ({exc}); restore it "
                                                         "from a copy")
