"""The reader side of the store: typed events, runs, blobs, views, cached responses, verify.

One connection (a read-only one to a SQLite file, see `connection.open_reader`, or one to a
PostgreSQL ledger), guarded by a lock so the threads of a run can share it; the SQL is the same
for both (`ledger.backend`). Reading never writes. `events` keeps the typed events of recently
read runs (`readcache`): rows never change, so a re-fold only reads and validates what was
appended since. `verified_events` is the read that checks: in one snapshot it runs the fast
checks of `verify.check_run` (schema, the run's chain segment, the tail, an optional pinned
head), maps the run's rows (reusing cached typed events whose row hash is unchanged) and checks
that every blob they name is stored, then hands the events out, or raises VerificationFailed
naming the first bad seq. Any database error becomes a typed error naming the ledger. Both reads
fetch and type with the cycle collector paused (`benchledger.collector`): in a process that holds
much else, a full collection set off by a long run's rows would otherwise walk all of it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from benchledger.collector import building_long_lived
from benchledger.errors import LedgerError, VerificationFailed
from benchledger.ledger import blobs as blob_table
from benchledger.ledger.backend import LedgerConnection, select_in
from benchledger.ledger.cache import cached_row, served_response
from benchledger.ledger.copies import RunCopy, read_run
from benchledger.ledger.mapper import ROW_COLUMNS, Row, StoredEvent, event_rows, rows_to_stored
from benchledger.ledger.readcache import RunCache
from benchledger.ledger.references import blob_references, named_digests
from benchledger.ledger.rules import rules_problem
from benchledger.ledger.runs import RunSummary, WriterSpan, list_runs, resolve_run, run_writers
from benchledger.ledger.verify import Problem, Refold, VerifyResult, check_run, ledger_head, verify_ledger

__all__ = ["SqlEventReader"]

_PAGE = 2000

T = TypeVar("T")


class SqlEventReader:
    """Reads one ledger over `conn` (which it closes); see the module docstring."""

    def __init__(self, conn: LedgerConnection) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self._cache = RunCache()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _query(self, sql: str, params: Sequence[object] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except self._conn.errors as exc:
                raise self._conn.storage_error(exc, "read") from None

    def note_written(self, run_id: str, written: list[StoredEvent]) -> None:
        """Let the run cache take events this process just appended."""
        with self._lock:
            self._cache.add_written(run_id, written)

    def get_blob(self, digest: str) -> bytes:
        """The raw bytes stored under digest, checked against it; LedgerError if absent or changed."""
        with self._lock:
            try:
                return blob_table.fetch(self._conn, digest)
            except self._conn.errors as exc:
                raise self._conn.storage_error(exc, "read") from None

    def cache_get(self, key: str, *, runs: Collection[str]) -> dict[str, Any] | None:
        """The response one of `runs` recorded for a request, when its event vouches for it; else None."""
        if not runs:
            return None
        with self._lock:  # only the read: the hashes that vouch for the row are checked after it
            try:
                row = cached_row(self._conn, key)
            except self._conn.errors as exc:
                raise self._conn.storage_error(exc, "read") from None
        return served_response(row, key, runs)

    def events(self, run_id: str, *, types: Iterable[str] | None = None,
               until_seq: int | None = None) -> list[StoredEvent]:
        """A run's events in position order, optionally only some types or up to a seq."""
        with self._lock, building_long_lived():
            try:
                rows = self._conn.execute(
                    f"SELECT {ROW_COLUMNS} FROM events WHERE run_id = ? AND position > ? "
                    "ORDER BY position", (run_id, self._cache.last_position(run_id))).fetchall()
            except self._conn.errors as exc:
                raise self._conn.storage_error(exc, "read") from None
            self._cache.add_read(run_id, rows_to_stored(rows))
            selected = list(self._cache.get(run_id))  # the caller's own list
        return _select(selected, types, until_seq)

    def verified_events(self, run_id: str, *, expect_head: str | None = None) -> list[StoredEvent]:
        """A run's events in position order, after checking its chain segment and blobs.

        Raises VerificationFailed (naming the first bad seq) instead of returning events from a
        ledger that does not verify; see the module docstring for what is checked.
        """
        with self._lock, building_long_lived():  # the rows, then the events typed from them
            try:
                self._conn.begin_read()
                try:
                    events, problem = self._checked_run(run_id, expect_head)
                finally:
                    self._conn.execute("ROLLBACK")
            except self._conn.errors as exc:
                raise self._conn.storage_error(exc, "read") from None
            if problem is None:
                self._cache.replace(run_id, events)
        if problem is not None:
            seq, what = problem
            where = f" at seq {seq}" if seq is not None else ""
            raise VerificationFailed(f"run {run_id} does not verify{where}: {what}; nothing is "
                                     "shown from it (run `benchledger verify` for the whole ledger)",
                                     first_bad_seq=seq, problem=what)
        return list(events)

    def _checked_run(self, run_id: str,
                     expect_head: str | None) -> tuple[list[StoredEvent], Problem | None]:
        rows, problem = check_run(self._conn, run_id, expect_head)
        if problem is not None:
            return [], problem
        events = self._typed(run_id, rows)
        return events, rules_problem(events) or self._missing_blob(events)

    def _typed(self, run_id: str, rows: list[Row]) -> list[StoredEvent]:
        """Typed events of checked rows, reusing the cached ones whose row hash is unchanged."""
        cached = self._cache.get(run_id)
        reused = 0
        while reused < min(len(cached), len(rows)) and cached[reused].hash == rows[reused].hash:
            reused += 1
        return [*cached[:reused], *rows_to_stored(rows[reused:])]

    def _missing_blob(self, events: list[StoredEvent]) -> Problem | None:
        wanted = named_digests(events)
        stored = {digest for (digest,) in select_in(self._conn, "SELECT digest FROM blobs WHERE digest IN ({marks})",
                                                    sorted(wanted))}
        if stored >= wanted:
            return None
        for seq, digest in blob_references(events):  # one is missing: the first seq naming one
            if digest not in stored:
                return seq, f"seq {seq} names blob {digest}, which is not in the ledger (its body was deleted)"
        return None

    def run_copy(self, run_id: str) -> RunCopy:
        """Everything of the run as stored, read in one snapshot once it verifies (`copies`)."""
        with self._lock:
            try:
                self._conn.begin_read()
                try:
                    return read_run(self._conn, run_id)
                finally:
                    self._conn.execute("ROLLBACK")
            except self._conn.errors as exc:
                raise self._conn.storage_error(exc, "read") from None

    def iter_all(self, run_id: str | None = None) -> Iterator[StoredEvent]:
        """Every event (of one run, or of the ledger) in seq order, read a page at a time."""
        after = 0
        where = "seq > ?" + (" AND run_id = ?" if run_id is not None else "")
        while True:
            params = (after, run_id) if run_id is not None else (after,)
            page = event_rows(self._query(f"SELECT {ROW_COLUMNS} FROM events WHERE {where} ORDER BY seq "
                                          f"LIMIT {_PAGE}", params))
            yield from rows_to_stored(page)
            if len(page) < _PAGE:
                return
            after = page[-1].seq

    def recorded_keys(self, run_id: str) -> set[str]:
        """Idempotency keys the run holds (resume plans what is missing from them)."""
        return {key for (key,) in self._query(
            "SELECT idempotency_key FROM events WHERE run_id = ? AND idempotency_key IS NOT NULL",
            (run_id,))}

    def runs(self) -> list[RunSummary]:
        """Every run, newest first."""
        return self._locked(lambda: list_runs(self._conn))

    def run_writers(self, run_id: str) -> list[WriterSpan]:
        """Who wrote the run's events, in spans (its owner first); [] for a file."""
        return self._locked(lambda: run_writers(self._conn, run_id))

    def resolve_run(self, ref: str) -> str:
        """A full run id from a full id, a unique prefix, or "latest"."""
        return self._locked(lambda: resolve_run(self._conn, ref))

    def head(self, run_id: str | None = None) -> str | None:
        """Hash of the run's last event, or (run_id None) the ledger value of the ledger's last
        row (its link, or its hash under chain version 1); None when there is none."""
        if run_id is None:
            return self._locked(lambda: ledger_head(self._conn))
        else:
            rows = self._query("SELECT hash FROM events WHERE run_id = ? ORDER BY position DESC "
                               "LIMIT 1", (run_id,))
        if not rows:
            return None
        ((hash_,),) = rows
        return str(hash_)

    def stored_views(self, run_id: str) -> list[tuple[str, int, int, object]]:
        """(name, version, position, value) of each view saved for the run."""
        views = []
        for name, version, position, value in self._query(
                "SELECT name, version, position, value FROM views WHERE run_id = ? "
                "ORDER BY name, version", (run_id,)):
            try:
                views.append((name, version, position, json.loads(value)))
            except ValueError as exc:
                raise LedgerError(f"view {name} v{version} of run {run_id} cannot be read: {exc}") from None
        return views

    def schema_problem(self) -> str | None:
        """What differs from the schema the applied migrations declare (None: nothing)."""
        return self._locked(self._conn.check_schema)

    def verify(self, run_id: str | None = None, *, refold: Refold | None = None,
               expect_head: str | None = None) -> VerifyResult:
        """Check the ledger or one run (see `ledger.verify`); with expect_head, pin a head."""
        return self._locked(lambda: verify_ledger(self._conn, run_id, refold, self._events_unlocked,
                                                  expect_head))

    def _events_unlocked(self, run_id: str) -> list[StoredEvent]:
        rows = self._conn.execute(
            f"SELECT {ROW_COLUMNS} FROM events WHERE run_id = ? ORDER BY position", (run_id,))
        return rows_to_stored(rows)

    def _locked(self, read: Callable[[], T]) -> T:
        with self._lock:
            try:
                return read()
            except self._conn.errors as exc:
                raise self._conn.storage_error(exc, "read") from None


def _select(events: list[StoredEvent], types: Iterable[str] | None,
            until_seq: int | None) -> list[StoredEvent]:
    if types is not None:
        wanted = set(types)
        events = [event for event in events if event.type in wanted]
    if until_seq is not None:
        events = [event for event in events if event.seq <= until_seq]
    return events
