"""The ledger store: one SQLite file, appended to by runs and read by projections and the CLI.

`Ledger.append` writes a batch of events (plus the blobs they name and the views they feed) in
ONE `BEGIN IMMEDIATE` transaction: it skips events whose idempotency key the run already
recorded, continues the run's positions, extends the global hash chain, and commits. Holding the
write lock from the first read to the commit serialises appenders across processes, so
positions stay gapless and no event is lost or recorded twice; a constraint conflict (another
writer outside this protocol) rolls back and retries. Everything the hot path can do before
taking the lock (event JSON, blob compression, view JSON) is done first.

Writer and reader use separate connections (WAL lets readers run while a writer appends); each
is guarded by a lock so one `Ledger` can be shared by the threads of a run. `events` keeps the
typed events of recently read runs (`ledger.readcache`): rows never change, so a re-fold only
reads and validates what was appended since.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from pydantic_core import to_json

from benchledger import clock
from benchledger.ledger import blobs as blob_table
from benchledger.ledger.chain import GENESIS, batch_linker
from benchledger.ledger.connection import connect
from benchledger.errors import ConcurrencyConflict, LedgerError
from benchledger.ledger.events import Event
from benchledger.ledger.mapper import ROW_COLUMNS, StoredEvent, event_row, row_to_stored, stored_event
from benchledger.ledger.readcache import RunCache
from benchledger.ledger.runs import RunSummary, list_runs, resolve_run
from benchledger.ledger.verify import Refold, VerifyResult, verify_ledger

__all__ = ["Ledger", "StoredEvent", "RunSummary", "VerifyResult", "MAX_APPEND_ATTEMPTS"]

MAX_APPEND_ATTEMPTS = 5
_KEY_CHUNK = 500  # bound the IN (...) list well under SQLite's variable limit

_INSERT_EVENT = """INSERT INTO events (run_id, position, type, schema_version, recorded_at,
    idempotency_key, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"""
_UPSERT_VIEW = """INSERT INTO views (run_id, name, version, position, value) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (run_id, name, version) DO UPDATE SET position = excluded.position,
    value = excluded.value"""
_PAGE = 2000


class Ledger:
    """An open ledger file. Use `Ledger.open(path)`, ideally as a context manager."""

    def __init__(self, path: Path, writer: sqlite3.Connection, reader: sqlite3.Connection) -> None:
        self.path = path
        self._writer, self._reader = writer, reader
        self._write_lock, self._read_lock = threading.Lock(), threading.Lock()
        self._cache = RunCache()

    @classmethod
    def open(cls, path: str | os.PathLike, *, create: bool = True) -> "Ledger":
        """Open the ledger at path (a new path is created unless create=False).

        Raises NotALedger, writing nothing, when path holds anything but a ledger.
        """
        path = Path(path)
        writer = connect(path, create=create)
        try:
            reader = connect(path, create=False, prepare=False)
        except BaseException:
            writer.close()
            raise
        return cls(path, writer, reader)

    def close(self) -> None:
        with self._write_lock, self._read_lock:
            self._writer.close()
            self._reader.close()

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- writer ---------------------------------------------------------------------------

    def append(self, run_id: str, events: Sequence[Event], *, blobs: Iterable[bytes] = (),
               views: Sequence[tuple[str, int, object]] = (),
               expected_position: int | None = None) -> list[StoredEvent]:
        """Append events to a run in one transaction; return the rows actually written.

        Events whose idempotency key the run already holds (or that repeat a key earlier in the
        same batch) are skipped. Blobs are stored if absent. Views (name, version, value) are
        saved at the run's position after this append, in the same transaction. With
        `expected_position` (the run's last position the caller folded its views from, 0 for a
        new run) the append raises ConcurrencyConflict, writing nothing, if another writer got
        there first, so a view can never miss an event.
        """
        rows = [event_row(event) for event in events]
        blob_rows = [blob_table.encode(data) for data in blobs]
        view_rows = [(name, version, to_json(value).decode()) for name, version, value in views]
        last_error: sqlite3.IntegrityError | None = None
        with self._write_lock:
            for _ in range(MAX_APPEND_ATTEMPTS):
                self._writer.execute("BEGIN IMMEDIATE")
                try:
                    written = self._append_in_transaction(run_id, events, rows, blob_rows, view_rows,
                                                          expected_position)
                    self._writer.execute("COMMIT")
                    with self._read_lock:
                        self._cache.add_written(run_id, written)
                    return written
                except sqlite3.IntegrityError as exc:  # another writer took a position or key
                    last_error = exc
                    self._rollback()
                except BaseException:
                    self._rollback()
                    raise
        raise ConcurrencyConflict(
            f"could not append to run {run_id} after {MAX_APPEND_ATTEMPTS} attempts "
            f"({last_error}); another writer keeps taking its positions, retry later"
        )

    def _rollback(self) -> None:
        if self._writer.in_transaction:
            self._writer.execute("ROLLBACK")

    def _recorded_among(self, run_id: str, keys: list[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(keys), _KEY_CHUNK):
            chunk = keys[start:start + _KEY_CHUNK]
            marks = ",".join("?" * len(chunk))
            found.update(key for (key,) in self._writer.execute(
                f"SELECT idempotency_key FROM events WHERE run_id = ? AND idempotency_key IN ({marks})",
                (run_id, *chunk)))
        return found

    def _append_in_transaction(self, run_id: str, events: Sequence[Event], rows: list,
                               blob_rows: list, view_rows: list,
                               expected_position: int | None) -> list[StoredEvent]:
        conn = self._writer
        keys = [key for _, _, key, _ in rows if key is not None]
        seen = self._recorded_among(run_id, keys) if keys else set()
        (position,) = conn.execute(
            "SELECT COALESCE(MAX(position), 0) FROM events WHERE run_id = ?", (run_id,)).fetchone()
        if expected_position is not None and position != expected_position:
            raise ConcurrencyConflict(
                f"run {run_id} is at position {position}, not {expected_position}: another writer "
                "appended meanwhile; read its events again and retry")
        head = conn.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        issued = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
        # AUTOINCREMENT gives max(ever issued, current max) + 1, one by one within this insert.
        seq = max(issued[0] if issued else 0, head[0] if head else 0)
        prev_hash = head[1] if head else GENESIS
        recorded_at = clock.now_iso()
        link = batch_linker(run_id, recorded_at)
        to_insert, written = [], []
        for event, (type_, version, key, payload) in zip(events, rows):
            if key is not None:
                if key in seen:
                    continue
                seen.add(key)
            position += 1
            seq += 1
            hash_ = link(prev_hash, position, type_, version, key, payload)
            to_insert.append((run_id, position, type_, version, recorded_at, key, payload.decode(),
                              prev_hash, hash_))
            written.append(stored_event(seq, run_id, position, type_, version, recorded_at, key,
                                        hash_, prev_hash, event))
            prev_hash = hash_
        if to_insert:
            conn.executemany(_INSERT_EVENT, to_insert)
            (last,) = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
            if last != seq:
                raise LedgerError(f"seq bookkeeping drifted (expected {seq}, sqlite says {last})")
        if blob_rows:
            conn.executemany(blob_table.INSERT_SQL, blob_rows)
        if view_rows:
            conn.executemany(_UPSERT_VIEW, [(run_id, name, version, position, value)
                                            for name, version, value in view_rows])
        return written

    def put_blob(self, data: bytes | str) -> str:
        """Store a body if absent; return its sha256 hex digest."""
        row = blob_table.encode(data)
        with self._write_lock:
            self._writer.execute(blob_table.INSERT_SQL, row)
        return row[0]

    def cache_put(self, key: str, response: dict, *, model: str) -> None:
        """Remember a model response under its request key; an existing entry is kept."""
        with self._write_lock:
            self._writer.execute(
                "INSERT OR IGNORE INTO cache (key, response, model, created_at) VALUES (?, ?, ?, ?)",
                (key, json.dumps(response, sort_keys=True), model, clock.now_iso()))

    # -- reader ---------------------------------------------------------------------------

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple]:
        with self._read_lock:
            return self._reader.execute(sql, params).fetchall()

    def get_blob(self, digest: str) -> bytes:
        """The raw bytes stored under digest; LedgerError if absent."""
        with self._read_lock:
            return blob_table.fetch(self._reader, digest)

    def cache_get(self, key: str) -> dict | None:
        rows = self._read("SELECT response FROM cache WHERE key = ?", (key,))
        return json.loads(rows[0][0]) if rows else None

    def events(self, run_id: str, *, types: Iterable[str] | None = None,
               until_seq: int | None = None) -> list[StoredEvent]:
        """A run's events in position order, optionally only some types or up to a seq."""
        with self._read_lock:
            rows = self._reader.execute(
                f"SELECT {ROW_COLUMNS} FROM events WHERE run_id = ? AND position > ? ORDER BY position",
                (run_id, self._cache.last_position(run_id))).fetchall()
            self._cache.add_read(run_id, [row_to_stored(row) for row in rows])
            selected = list(self._cache.get(run_id))  # the caller's own list
        if types is not None:
            wanted = set(types)
            selected = [event for event in selected if event.type in wanted]
        if until_seq is not None:
            selected = [event for event in selected if event.seq <= until_seq]
        return selected

    def iter_all(self, run_id: str | None = None) -> Iterator[StoredEvent]:
        """Every event (of one run, or of the ledger) in seq order, read a page at a time."""
        after = 0
        where = "seq > ?" + (" AND run_id = ?" if run_id is not None else "")
        while True:
            params = (after, run_id) if run_id is not None else (after,)
            page = self._read(f"SELECT {ROW_COLUMNS} FROM events WHERE {where} ORDER BY seq "
                              f"LIMIT {_PAGE}", params)
            for row in page:
                yield row_to_stored(row)
            if len(page) < _PAGE:
                return
            after = page[-1][0]

    def recorded_keys(self, run_id: str) -> set[str]:
        """Idempotency keys the run holds (resume plans what is missing from them)."""
        return {key for (key,) in self._read(
            "SELECT idempotency_key FROM events WHERE run_id = ? AND idempotency_key IS NOT NULL",
            (run_id,))}

    def runs(self) -> list[RunSummary]:
        """Every run, newest first."""
        with self._read_lock:
            return list_runs(self._reader)

    def resolve_run(self, ref: str) -> str:
        """A full run id from a full id, a unique prefix, or "latest"."""
        with self._read_lock:
            return resolve_run(self._reader, ref)

    def head(self, run_id: str) -> str | None:
        """Hash of the run's last event, or None if the run has none."""
        rows = self._read("SELECT hash FROM events WHERE run_id = ? ORDER BY position DESC LIMIT 1",
                          (run_id,))
        return rows[0][0] if rows else None

    def stored_views(self, run_id: str) -> list[tuple[str, int, int, object]]:
        """(name, version, position, value) of each view saved for the run."""
        return [(name, version, position, json.loads(value)) for name, version, position, value
                in self._read("SELECT name, version, position, value FROM views WHERE run_id = ? "
                              "ORDER BY name, version", (run_id,))]

    def verify(self, run_id: str | None = None, *, refold: Refold | None = None) -> VerifyResult:
        """Check guards, the hash chain and positions (and views with refold); see ledger.verify."""
        with self._read_lock:
            return verify_ledger(self._reader, run_id, refold, self._events_unlocked)

    def _events_unlocked(self, run_id: str) -> list[StoredEvent]:
        rows = self._reader.execute(
            f"SELECT {ROW_COLUMNS} FROM events WHERE run_id = ? ORDER BY position", (run_id,))
        return [row_to_stored(row) for row in rows]

