"""The SQLite writer side of the store: appends, blobs, cached responses, and the run's writer lock.

`append` writes a batch of events (plus the blobs they name, the views they feed and the
responses they record for the cache) in ONE `BEGIN IMMEDIATE` transaction: it skips events
whose idempotency key the run already recorded (and their cache entries with them), continues
the run's positions and its hash chain, links each row into the ledger's chain (`ledger.chain`,
version 2), and commits. Holding the write lock from
the first read to the commit serialises appenders across processes, so positions stay gapless
and no event is lost or recorded twice; a constraint conflict (another writer outside this
protocol) rolls back and retries. Everything the hot path can do before taking the lock (event
JSON, blob compression, view JSON) is done first.

The connection is opened at the first write (or handed over by the opener that created the
file), which is also when an older ledger is migrated, so a process that only reads never writes the file. A
write the disk or the mount refuses (full disk, read-only file, I/O error) rolls back and
raises LedgerWriteFailed naming the file and the cause. `run_writer` is the run's writer lock
(`writer_lock`); a backend on a database server would take an advisory lock there instead.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from pydantic_core import to_json

from benchledger import clock
from benchledger.errors import BadInput, ConcurrencyConflict, LedgerError
from benchledger.ledger import blobs as blob_table
from benchledger.ledger import writer_lock
from benchledger.ledger.cache import INSERT_SQL as INSERT_CACHE, CacheEntry, cache_rows
from benchledger.ledger.chain import GENESIS, batch_linker, ledger_link, ledger_value
from benchledger.ledger.connection import open_writer
from benchledger.ledger.events import Event
from benchledger.ledger.mapper import StoredEvent, event_row, stored_event
from benchledger.ledger.sqlite_errors import storage_error

__all__ = ["SqliteEventWriter", "MAX_APPEND_ATTEMPTS"]

MAX_APPEND_ATTEMPTS = 5
_KEY_CHUNK = 500  # bound the IN (...) list well under SQLite's variable limit

_INSERT_EVENT = """INSERT INTO events (run_id, position, type, schema_version, recorded_at,
    idempotency_key, payload, prev_hash, hash, chain, link) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 2, ?)"""
_UPSERT_VIEW = """INSERT INTO views (run_id, name, version, position, value) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (run_id, name, version) DO UPDATE SET position = excluded.position,
    value = excluded.value"""

EventRow = tuple[str, int, "str | None", bytes]
ViewRow = tuple[str, int, str]
BlobRow = tuple[str, int, bytes]


class SqliteEventWriter:
    """Appends to one ledger file; see the module docstring."""

    def __init__(self, path: Path, lock_key: writer_lock.FileKey,
                 connection: sqlite3.Connection | None = None) -> None:
        """`connection`: one `open_writer` already opened (to create the file), else opened later."""
        self.path = path
        self._lock_key = lock_key
        self._conn = connection
        self._lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = open_writer(self.path)
        return self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    @contextmanager
    def run_writer(self, run_id: str) -> Iterator[None]:
        """Hold the run's writer lock for the block; RunBusy if another writer holds it."""
        with writer_lock.hold(self._lock_key, run_id):
            yield

    def put_blob(self, data: bytes | str) -> str:
        """Store a body if absent; return its sha256 hex digest."""
        row = blob_table.encode(data)
        with self._lock:
            try:
                self._connection().execute(blob_table.INSERT_SQL, row)
            except sqlite3.Error as exc:
                raise storage_error(exc, self.path, "write a blob to") from None
        return row[0]

    def append(self, run_id: str, events: Sequence[Event], *, blobs: Iterable[bytes] = (),
               views: Sequence[tuple[str, int, object]] = (), cache: Sequence[CacheEntry] = (),
               expected_position: int | None = None) -> list[StoredEvent]:
        """Append events to a run in one transaction; return the rows actually written.

        Events whose idempotency key the run already holds (or that repeat a key earlier in the
        same batch) are skipped, and so are the cache entries they would record. Blobs are
        stored if absent. Views (name, version, value) are saved at the run's position after
        this append, in the same transaction. Each cache entry must name an event of this batch
        that vouches for it (see `ledger.cache`). With `expected_position` (the run's last
        position the caller folded its views from, 0 for a new run) the append raises
        ConcurrencyConflict, writing nothing, if another writer got there first, so a view can
        never miss an event.
        """
        rows = [_event_row(event) for event in events]
        blob_rows = [blob_table.encode(data) for data in blobs]
        view_rows = [(name, version, to_json(value).decode()) for name, version, value in views]
        last_error: sqlite3.IntegrityError | None = None
        with self._lock:
            try:
                conn = self._connection()
                for _ in range(MAX_APPEND_ATTEMPTS):
                    conn.execute("BEGIN IMMEDIATE")
                    try:
                        written = self._append_in_transaction(conn, run_id, events, rows, blob_rows,
                                                              view_rows, cache, expected_position)
                        conn.execute("COMMIT")
                        return written
                    except sqlite3.IntegrityError as exc:  # another writer took a position or key
                        last_error = exc
                        _rollback(conn)
                    except BaseException:
                        _rollback(conn)
                        raise
            except sqlite3.Error as exc:
                raise storage_error(exc, self.path, f"append to run {run_id} in") from None
        raise ConcurrencyConflict(
            f"could not append to run {run_id} after {MAX_APPEND_ATTEMPTS} attempts "
            f"({last_error}); another writer keeps taking its positions, retry later"
        )

    def _append_in_transaction(self, conn: sqlite3.Connection, run_id: str, events: Sequence[Event],
                               rows: list[EventRow], blob_rows: list[BlobRow],
                               view_rows: list[ViewRow], cache: Sequence[CacheEntry],
                               expected_position: int | None) -> list[StoredEvent]:
        keys = [key for _, _, key, _ in rows if key is not None]
        seen = _recorded_among(conn, run_id, keys) if keys else set()
        skipped = set(seen)
        last = conn.execute("SELECT position, hash FROM events WHERE run_id = ? ORDER BY position DESC "
                            "LIMIT 1", (run_id,)).fetchone()
        position, prev_hash = last if last else (0, GENESIS)
        if expected_position is not None and position != expected_position:
            raise ConcurrencyConflict(
                f"run {run_id} is at position {position}, not {expected_position}: another writer "
                "appended meanwhile; read its events again and retry")
        head = conn.execute("SELECT seq, chain, hash, link FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        issued = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
        # AUTOINCREMENT gives max(ever issued, current max) + 1, one by one within this insert.
        seq = max(issued[0] if issued else 0, head[0] if head else 0)
        value = ledger_value(*head[1:]) if head else GENESIS
        recorded_at = clock.now_iso()
        link = batch_linker(run_id, recorded_at)
        to_insert, written, by_key = [], [], {}
        for event, (type_, version, key, payload) in zip(events, rows):
            if key is not None:
                if key in seen:
                    continue
                seen.add(key)
                by_key[key] = event
            position += 1
            seq += 1
            hash_ = link(prev_hash, position, type_, version, key, payload)
            value = ledger_link(value, hash_)
            to_insert.append((run_id, position, type_, version, recorded_at, key, payload.decode(),
                              prev_hash, hash_, value))
            written.append(stored_event(seq, run_id, position, type_, version, recorded_at, key,
                                        hash_, prev_hash, event))
            prev_hash = hash_
        cached = cache_rows(run_id, cache, by_key, skipped, recorded_at) if cache else []
        if to_insert:
            conn.executemany(_INSERT_EVENT, to_insert)
            (last,) = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
            if last != seq:
                raise LedgerError(f"seq bookkeeping drifted (expected {seq}, sqlite says {last})")
        if blob_rows:
            conn.executemany(blob_table.INSERT_SQL, blob_rows)
        if cached:
            conn.executemany(INSERT_CACHE, cached)
        if view_rows:
            conn.executemany(_UPSERT_VIEW, [(run_id, name, version, position, value)
                                            for name, version, value in view_rows])
        return written


def _event_row(event: Event) -> EventRow:
    try:
        return event_row(event)
    except ValueError as exc:  # e.g. an integer too long for Python to write as text
        name = type(event).__name__
        raise BadInput(f"{name} event cannot be stored: {exc}", field=name) from None


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        conn.execute("ROLLBACK")


def _recorded_among(conn: sqlite3.Connection, run_id: str, keys: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(keys), _KEY_CHUNK):
        chunk = keys[start:start + _KEY_CHUNK]
        marks = ",".join("?" * len(chunk))
        found.update(key for (key,) in conn.execute(
            f"SELECT idempotency_key FROM events WHERE run_id = ? AND idempotency_key IN ({marks})",
            (run_id, *chunk)))
    return found
