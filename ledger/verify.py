"""Verifying a ledger: its schema, the hash chain, positions, blobs, cached responses and views.

Every check reads one snapshot (the caller's read transaction) and names the first bad seq:
- the schema must be exactly what the applied migrations create (tables with their columns and
  constraints, indexes, guard triggers; `LedgerConnection.check_schema`): a table rebuilt
  without its UNIQUE or CHECK constraints, or a dropped, disabled or altered guard, is reported;
- the hash chains (`ledger.walk`, both versions of `ledger.chain`): a row whose bytes no longer
  hash to its stored hash was changed; a row that does not chain to the row before it (in the
  ledger, or in its run), or a gap in seq, means rows were deleted, inserted or moved;
- a run whose positions are not 1, 2, 3, ... lost or gained an event;
- the database remembers the largest seq ever issued (SQLite's `sqlite_sequence`, the
  PostgreSQL ledger's `ledger_tail`), so deleting the newest rows shows;
- every row must keep the store's rules (`ledger.rules`): its idempotency key is the one its
  type and payload derive, and no key holds two rows of a run; a row written before its type's
  key rule changed is checked against the legacy rule of its schema version, and the result names
  such rows (`legacy_keys`: they are valid, in the legacy key form);
- on a server, every row of a run was written by its owner or a role it granted (`check_writers`);
- every blob an event names (`references`) must be stored and must hash to its digest (every
  stored blob, for the whole ledger), inflated no further than its recorded size;
- every cached response must be vouched for by its recording event (`cache.check_entries`);
- with `expect_head`, the ledger must still hold the event with that hash (or, for the whole
  ledger, that ledger link: the head `verify` printed): a consistent rewrite of the chain, or a
  restored older copy of the file, cannot hold it;
- with `refold`, each stored view is compared with a fresh fold of the events up to its
  position; a view saved under a version this code does not fold (other code wrote it) is
  listed as stale in the result, never reported as a problem.

One walker (`ledger.walk.ChainWalk`) checks every chain: along the ledger for the whole ledger
and for a version-1 run's segment, along the run alone for a version-2 run. A run-scoped check of
a run written under chain version 2 reads the run's own rows alone: each re-hashed and linked to
the run's previous row, then the run's last row and the row after it linked into the ledger's
chain. Like the segment walk of version 1, it sees the run's newest
events deleted when they stood right after its remaining ones; deleted from further on (other
runs' rows in between), only the whole ledger's chain shows it. A run with
version-1 rows walks its segment of the global chain instead: every row from the run's first
event to the one after its last, other runs' rows included. `check_run` is that fast part, which
a read that checks (`verified_events`) runs before it hands events out. A damaged file (SQLite
reports corruption) is a failed check with one line, never a traceback. The SQL is written once
for both databases (`ledger.backend`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict
from pydantic_core import to_json

from benchledger.errors import LedgerError, RunNotFound
from benchledger.ledger import blobs, cache, references
from benchledger.ledger.backend import LedgerConnection
from benchledger.ledger.chain import CHAIN_RUN, GENESIS, ledger_link, ledger_value
from benchledger.ledger.mapper import ChainRow, Row, StoredEvent, event_rows, rows_to_stored
from benchledger.ledger.rules import legacy_key_rows, rules_problem
from benchledger.ledger.walk import ChainWalk, Problem, missing_rows, unlinked

__all__ = ["VerifyResult", "Refold", "Problem", "check_run", "check_run_in_full", "ledger_head",
           "verify_ledger"]

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
    head: str | None = None
    """Hash of the last event checked (the ledger's, or the run's); pin it to catch a rewrite."""
    stale: tuple[str, ...] = ()
    """Saved views written by another code version: re-folded and not compared (never tampering)."""
    legacy_keys: tuple[str, ...] = ()
    """Per run holding any, the rows keyed in a legacy key form (written before their type's key rule
    changed, checked against that rule): valid, and named so a reader knows which form a row uses."""


def _legacy_line(run_id: str, events: Sequence[StoredEvent]) -> str | None:
    """`run R: 3 rows in the legacy key form (Failed seq 5, 9; Judged seq 7)`, or None."""
    rows = legacy_key_rows(events)
    if not rows:
        return None
    by_type: dict[str, list[int]] = {}
    for row in rows:
        by_type.setdefault(row.type, []).append(row.seq)
    listed = "; ".join(f"{name} seq {', '.join(map(str, seqs[:5]))}{' ...' if len(seqs) > 5 else ''}"
                       for name, seqs in by_type.items())
    return (f"run {run_id}: {len(rows)} row(s) in the legacy key form, written before keys named their "
            f"subjects and checked against it ({listed})")


def _walk_ledger(conn: LedgerConnection) -> tuple[int, str, Problem | None]:
    """(rows checked, the ledger's head value, first problem) over every row in seq order."""
    walk = ChainWalk()
    rows = conn.execute(f"SELECT {conn.bytes_columns}, {conn.chain_columns()} FROM events ORDER BY seq")
    problem = walk.walk(map(ChainRow._make, rows))
    return walk.checked, walk.value, problem


def _walk_run(conn: LedgerConnection, run_id: str) -> tuple[list[Row], Problem | None]:
    """The run's rows and the first problem of its chain (see the module docstring)."""
    first, last = conn.execute("SELECT MIN(seq), MAX(seq) FROM events WHERE run_id = ?",
                               (run_id,)).fetchone()
    if first is None:
        raise RunNotFound(f"no run {run_id} in this ledger; list runs with `benchledger runs`")
    # the run's first and last rows and the last row's neighbours, with their chain columns
    around = {row.seq: row for row in map(_Link._make, conn.execute(
        f"SELECT seq, {conn.chain_columns()}, hash FROM events WHERE seq IN (?, ?, ?, ?)",
        (first, last - 1, last, last + 1)))}
    if around[first].chain != CHAIN_RUN:
        return _walk_segment(conn, run_id, first, last)
    # Payloads as bytes: hashed as they are, and validated without a decode and re-encode. The
    # rows are read along seq (`run_id || ''` keeps SQLite off the run's index and its sort).
    rows = event_rows(conn.execute(
        f"SELECT {conn.bytes_columns} FROM events WHERE seq BETWEEN ? AND ? AND run_id || '' = ? "
        "ORDER BY seq", (first, last, run_id)))
    problem = ChainWalk.of_run(run_id).walk(rows) or _bound_to_ledger(around, last)
    return rows, problem


class _Link(NamedTuple):
    """A row's place in the ledger's chain (what `_bound_to_ledger` reads around a run's end)."""

    seq: int
    chain: int
    link: str | None
    hash: str


def _bound_to_ledger(around: dict[int, _Link], last: int) -> Problem | None:
    """The run's last row, and the row after it, chain into the ledger where they stand.

    With the run's own chain intact, this is what shows the run's newest events deleted from
    right after its last one (the next row's link names the deleted row's value), without
    walking other runs' rows.
    """
    before = around.get(last - 1)
    if before is None and last > 1:
        return missing_rows(last - 1, last - 1)
    value = ledger_value(before.chain, before.hash, before.link) if before else GENESIS
    for seq in (last, last + 1):
        if seq not in around:
            break
        row = around[seq]
        if row.chain != CHAIN_RUN or row.link is None or row.link != ledger_link(value, row.hash):
            return unlinked(seq)
        value = row.link
    return None


def _walk_segment(conn: LedgerConnection, run_id: str, first: int,
                  last: int) -> tuple[list[Row], Problem | None]:
    """A run with version-1 rows: every row from its first to the one after its last, in order.

    Version-1 rows link through other runs' rows (the chain was global), so the segment is
    walked with them, the first row anchored to the stored value of the row before it.
    """
    segment = list(map(ChainRow._make, conn.execute(
        f"SELECT {conn.bytes_columns}, {conn.chain_columns()} FROM events WHERE seq BETWEEN ? AND ? "
        "ORDER BY seq", (first - 1, last + 1))))
    walk = ChainWalk(own_run=run_id)
    if segment and segment[0].seq == first - 1:  # the row before the run anchors its first link
        before = segment.pop(0)
        walk.last_seq, walk.value = before.seq, ledger_value(before.chain, before.hash, before.link)
    elif first > 1:
        return [], (first - 1, f"seq {first - 1}, the row before run {run_id}'s first event, is "
                               "missing (deleted)")
    rows: list[Row] = []
    for row in segment:
        problem = walk.step(row)
        if problem:
            return rows, problem
        if row.run_id == run_id:
            rows.append(row.event_row())
    return rows, None


def _check_tail(conn: LedgerConnection) -> Problem | None:
    (last_seq,) = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()
    issued = conn.issued_seq()
    if issued > last_seq:
        return last_seq + 1, (f"the newest rows were deleted: seq {last_seq + 1}..{issued} were "
                              "issued but are not in the ledger")
    return None


def ledger_head(conn: LedgerConnection) -> str | None:
    """The ledger value of the last row (see `ledger.chain`), or None for an empty ledger."""
    row = conn.execute(f"SELECT {conn.chain_columns()}, hash FROM events ORDER BY seq DESC LIMIT 1"
                       ).fetchone()
    if row is None:
        return None
    chain, link, hash_ = row
    return ledger_value(chain, hash_, link)


def _holds_head(conn: LedgerConnection, head: str) -> bool:
    """True when a row has this hash (its run's head once) or this link (the ledger's head once)."""
    return conn.execute(f"SELECT 1 FROM (SELECT hash, {conn.chain_columns()} FROM events) AS e "
                        "WHERE e.hash = ? OR e.link = ? LIMIT 1", (head, head)).fetchone() is not None


def _missing_head(expect_head: str, run_id: str | None) -> Problem:
    where = f"run {run_id} holds" if run_id else "the ledger holds"
    return None, (f"{where} no event with hash {expect_head}: it is not the ledger whose head that "
                  "was (an older copy, or its chain was rewritten)")


def check_run(conn: LedgerConnection, run_id: str,
              expect_head: str | None = None) -> tuple[list[Row], Problem | None]:
    """The run's rows and the first problem of the fast checks: schema, chain segment, tail, head."""
    schema_problem = conn.check_schema()
    if schema_problem:
        return [], (None, schema_problem)
    rows, problem = _walk_run(conn, run_id)
    problem = problem or _check_tail(conn)
    if problem is None and expect_head is not None and all(row.hash != expect_head for row in rows):
        problem = _missing_head(expect_head, run_id)
    return rows, problem


def check_run_in_full(conn: LedgerConnection, run_id: str) -> tuple[list[Row], Problem | None]:
    """The run's rows and the first problem of what `verify RUN` checks without views: the fast
    checks, the store's rules over its typed rows, then the blobs its events name and the
    responses they cached."""
    rows, problem = check_run(conn, run_id)
    if problem is None:
        problem = _rules_of_rows(rows)
    if problem is None:
        problem = next((found for found in _later_checks(conn, run_id, None, _no_events) if found), None)
    return rows, problem


def _no_events(run_id: str) -> list[StoredEvent]:
    return []


def _rules_of_rows(rows: list[Row]) -> Problem | None:
    """The store's rules (`ledger.rules`) over checked rows of one run; a row that cannot be typed
    is a problem too."""
    try:
        return rules_problem(rows_to_stored(rows))
    except LedgerError as exc:
        return None, str(exc)


class _LastRun:
    """`read_events`, keeping the last run it typed: the rules and the views of a run read it once,
    and a whole ledger's events are never all held at once."""

    def __init__(self, read_events: Callable[[str], list[StoredEvent]]) -> None:
        self._read, self._run, self._events = read_events, "", list[StoredEvent]()

    def keep(self, run_id: str, events: list[StoredEvent]) -> None:
        self._run, self._events = run_id, events

    def __call__(self, run_id: str) -> list[StoredEvent]:
        if run_id != self._run or not self._events:
            self.keep(run_id, self._read(run_id))
        return self._events


def _check_runs(conn: LedgerConnection, refold: Refold | None, events_of: _LastRun,
                stale: list[str], legacy: list[str]) -> Problem | None:
    """Every run of the ledger in order of its first row: the store's rules, then its views."""
    with_views = {r for (r,) in conn.execute("SELECT DISTINCT run_id FROM views")} if refold else set()
    for (run_id,) in conn.execute("SELECT run_id FROM events GROUP BY run_id ORDER BY MIN(seq)").fetchall():
        problem = rules_problem(events_of(run_id))
        line = _legacy_line(run_id, events_of(run_id)) if problem is None else None
        if line:
            legacy.append(line)
        if problem is None and refold is not None and run_id in with_views:
            problem = _check_views(conn, [run_id], refold, events_of, stale)
        if problem:
            return problem
    return None


def _check_views(conn: LedgerConnection, run_ids: Sequence[str], refold: Refold,
                 read_events: Callable[[str], list[StoredEvent]], stale: list[str]) -> Problem | None:
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
            if fresh is None or fresh[0] != version:  # written by other code: nothing to compare with
                folds_now = f"this code folds v{fresh[0]}" if fresh else "this code folds no such view"
                stale.append(f"view {name} v{version} of run {run_id} was written by another code version "
                             f"({folds_now}): it is stale, and reports fold the events afresh")
                continue
            seq = next((e.seq for e in events if e.position == position), None)
            try:
                saved = json.loads(value)
            except ValueError:  # a changed byte left it unreadable: as much tampering as a changed value
                return seq, (f"view {name} v{version} of run {run_id} at position {position} is not the JSON "
                             "it was saved as (its bytes were changed)")
            if json.loads(to_json(fresh[1])) != saved:
                return seq, (f"view {name} v{version} of run {run_id} at position {position} differs "
                             "from a fresh fold of its events")
    return None


def _check_references(conn: LedgerConnection, run_id: str | None) -> Problem | None:
    sql, uses = references.missing_sql(conn, one_run=run_id is not None)
    row = conn.execute(sql, (run_id,) * uses).fetchone()
    if row is None:
        return None
    seq, digest = row
    return seq, f"seq {seq} names blob {digest}, which is not in the ledger (its body was deleted)"


def _check_run_blobs(conn: LedgerConnection, run_id: str) -> str | None:
    """Re-hash every body the run's events name (as the whole ledger's check does for all)."""
    sql, uses = references.named_sql(conn)
    return blobs.check_digests(conn, [str(ref) for (ref,) in conn.execute(sql, (run_id,) * uses)])


def _later_checks(conn: LedgerConnection, run_id: str | None, refold: Refold | None,
                  read_events: Callable[[str], list[StoredEvent]],
                  stale: list[str] | None = None, legacy: list[str] | None = None) -> Iterable[Problem | None]:
    """The checks after the chain, lazily, cheapest first (a run's own rules ran with its chain)."""
    stale = [] if stale is None else stale
    legacy = [] if legacy is None else legacy
    events_of = read_events if isinstance(read_events, _LastRun) else _LastRun(read_events)
    yield conn.check_writers(run_id)
    yield _check_references(conn, run_id)
    blob_problem = blobs.check(conn) if run_id is None else _check_run_blobs(conn, run_id)
    yield (None, blob_problem) if blob_problem else None
    cache_problem = cache.check_entries(conn, run_id)
    yield (None, cache_problem) if cache_problem else None
    if run_id is None:
        yield _check_runs(conn, refold, events_of, stale, legacy)
    elif refold is not None:
        yield _check_views(conn, [run_id], refold, events_of, stale)
    if run_id is None:
        storage_problem = conn.check_storage()
        yield (None, storage_problem) if storage_problem else None


def _verify_snapshot(conn: LedgerConnection, run_id: str | None, refold: Refold | None,
                     read_events: Callable[[str], list[StoredEvent]],
                     expect_head: str | None) -> VerifyResult:
    if run_id is None:
        schema_problem = conn.check_schema()
        if schema_problem:
            return VerifyResult(ok=False, checked=0, problem=schema_problem)
        checked, head, problem = _walk_ledger(conn)
        problem = problem or _check_tail(conn)
        if problem is None and expect_head is not None and not _holds_head(conn, expect_head):
            problem = _missing_head(expect_head, None)
        head_or_none: str | None = head if checked else None
    events_of = _LastRun(read_events)
    legacy: list[str] = []
    if run_id is not None:
        rows, problem = check_run(conn, run_id, expect_head)
        if problem is None:
            try:
                events_of.keep(run_id, rows_to_stored(rows))
                problem = rules_problem(events_of(run_id))
                line = _legacy_line(run_id, events_of(run_id))
                legacy += [line] if line else []
            except LedgerError as exc:
                problem = None, str(exc)
        checked, head_or_none = len(rows), (rows[-1].hash if rows else None)
    stale: list[str] = []
    if problem is None:
        try:
            problem = next((found for found in _later_checks(conn, run_id, refold, events_of, stale, legacy)
                            if found), None)
        except LedgerError as exc:  # an event the views need cannot be read
            problem = None, str(exc)
    if problem:
        return VerifyResult(ok=False, checked=checked, first_bad_seq=problem[0], problem=problem[1])
    return VerifyResult(ok=True, checked=checked, head=head_or_none, stale=tuple(stale), legacy_keys=tuple(legacy))


def verify_ledger(conn: LedgerConnection, run_id: str | None, refold: Refold | None,
                  read_events: Callable[[str], list[StoredEvent]],
                  expect_head: str | None = None) -> VerifyResult:
    """Check the whole ledger (run_id None) or one run's segment; see the module docstring.

    Every check reads one snapshot (a read transaction on `conn`, which `read_events` must also
    use): otherwise a writer committing between the row walk and the read of the largest seq
    issued looks exactly like a deleted tail.
    """
    try:
        conn.begin_read()
        try:
            return _verify_snapshot(conn, run_id, refold, read_events, expect_head)
        finally:
            if conn.in_transaction:  # read-only: nothing to keep or undo
                conn.execute("ROLLBACK")
    except conn.errors as exc:
        if not conn.is_damaged(exc):
            raise
        return VerifyResult(ok=False, checked=0, problem=f"the file is damaged ({exc}); restore it "
                                                         "from a copy")
