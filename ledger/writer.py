"""The writer side of the store: appends, blobs, cached responses, and the run's writer lock.

`append` writes a batch of events (plus the blobs they name, the views they feed and the
responses they record for the cache) in ONE write transaction (`LedgerConnection.begin_write`:
SQLite's `BEGIN IMMEDIATE`, or PostgreSQL's transaction holding the ledger's tail lock): it
derives each event's idempotency key itself (`mapper.event_row`: only the registered event
classes are stored, and the key comes from the payload as it reads back, never from the caller),
skips events whose key the run already recorded (and their cache entries with them), continues the run's positions and its hash chain, links each row into the ledger's chain
(`ledger.chain`, version 2) at the next seq, and commits. Holding the tail from the first read
to the commit serialises appenders across processes and machines, so the ledger keeps one
linear chain, positions stay gapless and no event is lost or recorded twice; a constraint
conflict (another writer outside this protocol) rolls back and retries. Everything the hot path
can do before taking the lock (event JSON, blob compression, view JSON) is done first, and so is
`check_written`, the caller's look at every byte the append would write (the store's secret scan),
over the very bytes the rows hold.

Inside the transaction the writer first asks for everything it needs (the batch's keys the run
already holds, the run's tail, the ledger's tail) and only then reads the answers, so a server
connection that pipelines (`pipelined`: PostgreSQL's pipeline mode) sends them in one round trip,
and the rows, blobs, responses, views and the commit in one more. The seal and the run's keys come
from what this writer remembers of the run when the run's tail is the one it left
(`ledger.known_tails`); otherwise the seal is replayed from the run's openers and finishes.

`copy_in` is the other way rows arrive: a run's rows copied from another ledger
(`ledger.transfer`), written byte for byte with their hashes after checking them, each given
this ledger's next seq and link.

The connection is opened at the first write (or handed over by the opener that created the
ledger), which is also when an older SQLite ledger is migrated, so a process that only reads
never writes. A write the database refuses (full disk, read-only file, I/O error, a role
without the right) rolls back and raises a typed error naming the ledger and the cause.
`run_writer` is the run's writer lock, which the backend provides (`writer_lock` for a file, an
advisory lock on a server).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TypeVar

from pydantic_core import to_json

from benchledger import clock
from benchledger.errors import BadInput, ConcurrencyConflict, LedgerError, RunSealed
from benchledger.ledger import blobs as blob_table
from benchledger.ledger.backend import KEY_CHUNK, Cursor, LedgerConnection
from benchledger.ledger.cache import INSERT_SQL as INSERT_CACHE, CacheEntry, cache_rows, canonical_response
from benchledger.ledger.chain import GENESIS, batch_linker, ledger_link
from benchledger.ledger.copies import RunCopy, write_run
from benchledger.ledger.events import Event
from benchledger.ledger.known_tails import KnownTails
from benchledger.ledger.mapper import ROW_COLUMNS, StoredEvent, event_row, rows_to_stored, stored_event
from benchledger.ledger.seal import CLOSERS, CONTROL_KEY_RANGES, OPENERS, Seal
from benchledger.ledger.tails import INSERT_EVENT, asked_ledger_tail

__all__ = ["SqlEventWriter", "MAX_APPEND_ATTEMPTS"]

MAX_APPEND_ATTEMPTS = 5

_UPSERT_VIEW = """INSERT INTO views (run_id, name, version, position, value) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (run_id, name, version) DO UPDATE SET position = excluded.position,
    value = excluded.value"""

_CONTROL_TYPES = tuple(sorted(OPENERS | CLOSERS))
_CONTROL_ROWS = (f"SELECT {ROW_COLUMNS} FROM events WHERE run_id = ? AND idempotency_key >= ? AND idempotency_key < ? "
                 f"AND type IN ({', '.join('?' * len(_CONTROL_TYPES))})")

NewRow = tuple[str, int, str, bytes]
"""(type, schema_version, idempotency_key, payload) of an event about to be stored."""
ViewRow = tuple[str, int, str]
BlobRow = blob_table.BlobRow
WrittenCheck = Callable[[Iterable[bytes | str]], None]
"""Looks at every text an append would write (event payloads, blob bodies, cached responses) and
raises to refuse the append before anything is written."""
Pipelined = Callable[[LedgerConnection], AbstractContextManager[object]]
T = TypeVar("T")

_RUN_TAIL = "SELECT position, hash FROM events WHERE run_id = ? ORDER BY position DESC LIMIT 1"
_RECORDED = "SELECT idempotency_key FROM events WHERE run_id = ? AND idempotency_key IN ({marks})"


class SqlEventWriter:
    """Appends to one ledger; see the module docstring.

    `connect` opens the write connection (at the first write, unless `connection` was handed
    over); `run_lock(run_id)` is the backend's writer lock for one run; `pipelined(conn)`, where
    the connection can, queues what a write transaction sends until a result is read.
    """

    def __init__(self, connect: Callable[[], LedgerConnection],
                 run_lock: Callable[[str], AbstractContextManager[None]],
                 connection: LedgerConnection | None = None, *,
                 pipelined: Pipelined | None = None) -> None:
        self._connect, self._run_lock = connect, run_lock
        self._conn = connection
        self._lock = threading.Lock()
        self._pipelined = pipelined
        self._tails = KnownTails()
        self._chain_columns: str | None = None

    def _connection(self) -> LedgerConnection:
        if self._conn is None:
            self._conn = self._connect()
        return self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
                self._chain_columns = None

    def run_writer(self, run_id: str) -> AbstractContextManager[None]:
        """Hold the run's writer lock for the block; RunBusy if another writer holds it."""
        return self._run_lock(run_id)

    def _compresses(self) -> bool:
        """Whether this ledger stores bodies compressed (a file) or raw (a server re-hashes them)."""
        with self._lock:
            try:
                return self._connection().blob_encoding == "zlib"
            except BaseException as exc:
                if self._conn is not None and isinstance(exc, self._conn.errors):
                    raise self._conn.storage_error(exc, "open") from None
                raise

    def put_blob(self, data: bytes | str) -> str:
        """Store a body if absent; return its sha256 hex digest."""
        row = blob_table.encode(data, compress=self._compresses())
        self._write("write a blob to", lambda conn: blob_table.insert(conn, [row]))
        return row.digest

    def append(self, run_id: str, events: Sequence[Event], *, blobs: Iterable[bytes] = (),
               views: Sequence[tuple[str, int, object]] = (), cache: Sequence[CacheEntry] = (),
               expected_position: int | None = None,
               check_written: WrittenCheck | None = None) -> list[StoredEvent]:
        """Append events to a run in one transaction; return the rows actually written.

        Events whose idempotency key the run already holds (or that repeat a key earlier in the
        same batch) are skipped, and so are the cache entries they would record. Blobs are
        stored if absent. Views (name, version, value) are saved at the run's position after
        this append, in the same transaction. Each cache entry must name an event of this batch
        that vouches for it (see `ledger.cache`). With `expected_position` (the run's last
        position the caller folded its views from, 0 for a new run) the append raises
        ConcurrencyConflict, writing nothing, if another writer got there first, so a view can
        never miss an event. `check_written` is given every text the append would write first.
        """
        rows = [_event_row(event) for event in events]
        blobs = list(blobs)
        responses = [canonical_response(entry.response) for entry in cache]
        if check_written is not None:
            check_written([*(payload for _, _, _, payload in rows), *blobs, *responses])
        compress = self._compresses() if blobs else False
        blob_rows = [blob_table.encode(data, compress=compress) for data in blobs]
        view_rows = [(name, version, to_json(value).decode()) for name, version, value in views]
        return self.in_write_transaction(
            f"append to run {run_id} in",
            lambda conn: self._append_in_transaction(conn, run_id, events, rows, blob_rows, view_rows,
                                                     cache, responses, expected_position))

    def copy_in(self, copy: RunCopy) -> int:
        """Append the rows of a run copied from another ledger that this one lacks (`copies`);
        the caller holds the run's writer lock."""
        return self.in_write_transaction(f"copy run {copy.run_id} into", lambda conn: write_run(conn, copy))

    def in_write_transaction(self, action: str, work: Callable[[LedgerConnection], T]) -> T:
        """`work(conn)` inside a write transaction, committed; retried on a constraint conflict."""
        last_error: Exception | None = None

        def attempts(conn: LedgerConnection) -> T:
            nonlocal last_error
            for _ in range(MAX_APPEND_ATTEMPTS):
                try:
                    with self._pipelined(conn) if self._pipelined else nullcontext():
                        conn.begin_write()
                        result = work(conn)
                        conn.execute("COMMIT")
                    return result
                except conn.integrity_errors as exc:  # another writer took a position or key
                    last_error = exc
                    _rollback(conn)
                except BaseException:
                    _rollback(conn)
                    raise
            raise ConcurrencyConflict(
                f"could not {action} the ledger after {MAX_APPEND_ATTEMPTS} attempts ({last_error}); "
                "another writer keeps taking its positions, retry later")

        return self._write(action, attempts)

    def _write(self, action: str, work: Callable[[LedgerConnection], T]) -> T:
        with self._lock:
            conn = None
            try:
                conn = self._connection()
                return work(conn)
            except BaseException as exc:
                if conn is not None and isinstance(exc, conn.errors):
                    raise conn.storage_error(exc, action) from None
                raise

    def _append_in_transaction(self, conn: LedgerConnection, run_id: str, events: Sequence[Event],
                               rows: list[NewRow], blob_rows: list[BlobRow],
                               view_rows: list[ViewRow], cache: Sequence[CacheEntry], responses: list[str],
                               expected_position: int | None) -> list[StoredEvent]:
        keys = [key for _, _, key, _ in rows]
        # Everything asked first, then read: a pipelining connection sends it in one round trip.
        # (The keys are asked for only where this writer does not know the run's keys already.)
        tail_rows = conn.execute(_RUN_TAIL, (run_id,))
        recorded_rows = None if self._tails.knows_keys(run_id) else _ask_recorded(conn, run_id, keys)
        if self._chain_columns is None:  # fixed once the write connection is open: it migrated the file
            self._chain_columns = conn.chain_columns()
        ledger_answer = asked_ledger_tail(conn, self._chain_columns)
        last = tail_rows.fetchone()
        position, prev_hash = (int(last[0]), str(last[1])) if last else (0, GENESIS)
        known = self._tails.at(run_id, position, prev_hash)
        if known is not None and known.keys is not None:
            seen = {key for key in keys if key in known.keys}
        else:
            recorded_rows = recorded_rows if recorded_rows is not None else _ask_recorded(conn, run_id, keys)
            seen = {key for cursor in recorded_rows for (key,) in cursor}
        if expected_position is not None and position != expected_position:
            raise ConcurrencyConflict(
                f"run {run_id} is at position {position}, not {expected_position}: another writer "
                "appended meanwhile; read its events again and retry")
        seq, value = ledger_answer()
        run_keys = known.keys if known is not None else (set() if last is None else None)
        skipped = set(seen)
        recorded_at = clock.now_iso()
        link = batch_linker(run_id, recorded_at)
        to_insert, written, by_key = [], [], {}
        for event, (type_, version, key, payload) in zip(events, rows):
            if key in seen:
                continue
            seen.add(key)
            by_key[key] = event
            position += 1
            seq += 1
            hash_ = link(prev_hash, position, type_, version, key, payload)
            value = ledger_link(value, hash_)
            to_insert.append((seq, run_id, position, type_, version, recorded_at, key, payload.decode(),
                              prev_hash, hash_, value))
            written.append(stored_event(seq, run_id, position, type_, version, recorded_at, key,
                                        hash_, prev_hash, event))
            prev_hash = hash_
        seal = None
        if to_insert:
            seal = known.seal if known is not None else _replayed_seal(conn, run_id)
            _admit(seal, run_id, [stored.event for stored in written])
        cached = cache_rows(run_id, cache, by_key, skipped, recorded_at, texts=responses) if cache else []
        if to_insert:
            conn.executemany(INSERT_EVENT, to_insert)
        if blob_rows:
            blob_table.insert(conn, blob_rows)
        if cached:
            conn.executemany(INSERT_CACHE, cached)
        if view_rows:
            conn.executemany(_UPSERT_VIEW, [(run_id, name, version, position, value)
                                           for name, version, value in view_rows])
        if seal is not None:
            self._tails.note(run_id, position, prev_hash, seal, run_keys, list(by_key))
        return written


def _event_row(event: Event) -> NewRow:
    try:
        return event_row(event)
    except ValueError as exc:  # e.g. an integer too long for Python to write as text
        name = type(event).__name__
        raise BadInput(f"{name} event cannot be stored: {exc}", field=name) from None


def _replayed_seal(conn: LedgerConnection, run_id: str) -> Seal:
    """Where the run's seal stands, from its openers and finishes: a few rows, found through the
    run's key index (`CONTROL_KEY_RANGES`), not by reading the run."""
    seal = Seal()
    rows = sorted((row for low, high in CONTROL_KEY_RANGES
                   for row in conn.execute(_CONTROL_ROWS, (run_id, low, high, *_CONTROL_TYPES))),
                  key=lambda row: row[2])
    for stored in rows_to_stored(rows):
        seal.admit(stored.event)
    return seal


def _admit(seal: Seal, run_id: str, events: list[Event]) -> None:
    """Refuse the batch (RunSealed, nothing written) if the run is sealed and an event joins no
    segment (`ledger.seal`); `seal` moves on over the batch."""
    for event in events:
        refused = seal.admit(event)
        if refused:
            raise RunSealed(f"run {run_id} refuses {refused}; nothing was written")


def _rollback(conn: LedgerConnection) -> None:
    if conn.in_transaction:
        conn.execute("ROLLBACK")


def _ask_recorded(conn: LedgerConnection, run_id: str, keys: list[str]) -> list[Cursor]:
    """The queries for which of `keys` the run holds, sent now, `KEY_CHUNK` keys each; read later."""
    return [conn.execute(_RECORDED.format(marks=",".join("?" * len(chunk))), (run_id, *chunk))
            for chunk in (keys[start:start + KEY_CHUNK] for start in range(0, len(keys), KEY_CHUNK))]
