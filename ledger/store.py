"""The ledger store: a SQLite file, or a schema on a PostgreSQL server shared by a team.

`Ledger` is the facade callers use: it composes the writer (`ledger.writer`), the reader
(`ledger.reader`, which also serves the guarded response cache) and the run's writer lock, and
implements `ledger.recorder.Recorder`, so code typed against those protocols works with either
backend. `Ledger.open(target)` opens a file path as a SQLite ledger and a `postgresql://` URL
(`ledger.pg_store`) as a PostgreSQL one, with the same meaning. Writer and reader use separate
connections (WAL lets readers run while a writer appends); the writer's is opened at the first
write, so a process that only reads (`show`, `verify`, `export`) never writes the file, and a
read-only file or mount can be read.

A model response is cached one way only: with the event that recorded it, in the same
append (`append(..., cache=[CacheEntry(...)])`, see `ledger.cache`), and served back only to the
runs a caller names (`cache_get(key, runs=...)`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from benchledger.errors import BadInput, LedgerError, NotALedger
from benchledger.ledger import migrations, writer_lock
from benchledger.ledger.cache import CacheEntry, canonical_response
from benchledger.redaction import held_secret, secret_values
from benchledger.ledger.connection import holds_data, open_reader, open_writer
from benchledger.ledger.copies import RunCopy
from benchledger.ledger.events import Event
from benchledger.ledger.mapper import StoredEvent
from benchledger.ledger.reader import SqlEventReader
from benchledger.ledger.run_ids import check_token
from benchledger.ledger.runs import RunSummary, WriterSpan
from benchledger.ledger.urls import display_target, is_url
from benchledger.ledger.verify import Refold, VerifyResult
from benchledger.ledger.writer import MAX_APPEND_ATTEMPTS, SqlEventWriter

__all__ = ["Ledger", "StoredEvent", "RunSummary", "VerifyResult", "CacheEntry", "MAX_APPEND_ATTEMPTS",
           "is_url", "display_target", "init_ledger"]

def _refuse_secrets(events: Sequence[Event], blobs: Sequence[bytes | str],
                    cache: Sequence[CacheEntry]) -> None:
    if not secret_values():  # nothing registered holds a value: nothing to look for
        return
    texts = ([event.model_dump_json() for event in events] + list(blobs)
             + [canonical_response(entry.response) for entry in cache])
    for text in texts:
        if (secret := held_secret(text)) is not None:
            raise LedgerError(f"refused to record {secret}: an event, body or cached response of this "
                              "append holds it (a model or memory echoed it); nothing was written")


def init_ledger(target: str | os.PathLike[str], *, writers: tuple[str, ...] = (),
                readers: tuple[str, ...] = ()) -> list[str]:
    """Create or migrate the ledger at a path or URL; the names of the migrations applied.

    On a server, `writers` and `readers` are roles granted their rights (`ledger.pg_store`); a
    file has no roles (its permissions are the file's), so naming any is BadInput.
    """
    if is_url(target):
        from benchledger.ledger.pg_store import init_postgres

        return init_postgres(str(target), writers=writers, readers=readers)
    if writers or readers:
        raise BadInput("--writer and --reader grant roles on a PostgreSQL ledger; a SQLite ledger is a "
                       "file, whose permissions are the file's", field="writer/reader")
    path = Path(target)
    if holds_data(path):
        conn = open_reader(path)
        try:
            pending = [migration.name for migration in migrations.pending(conn, str(path))]
        finally:
            conn.close()
    else:
        pending = [migration.name for migration in migrations.MIGRATIONS]
    open_writer(path).close()
    return pending


def grant_run(target: str, run_ref: str, role: str) -> str:
    """Let `role` add to a run of a shared ledger (a resume or rejudge of it), as the run's owner;
    the run's id. A file has no roles, so that is BadInput."""
    if not is_url(target):
        raise BadInput("a run is granted to a role on a PostgreSQL ledger; a SQLite ledger is a file, whose "
                       "permissions are the file's", field="ledger")
    from benchledger.ledger.pg_store import grant_run as grant_on_server

    return grant_on_server(str(target), run_ref, role)


class Ledger:
    """An open ledger. Use `Ledger.open(path_or_url)`, ideally as a context manager.

    `where` names it in messages (the path, or the URL without credentials); `path` is the
    file of a SQLite ledger (None on a server).
    """

    def __init__(self, where: str, writer: SqlEventWriter, reader: SqlEventReader,
                 on_close: Callable[[], None], path: Path | None = None) -> None:
        self.where, self.path = where, path
        self._writer, self._reader, self._on_close = writer, reader, on_close
        self._closed = False

    @classmethod
    def open(cls, target: str | os.PathLike[str], *, create: bool = True) -> Ledger:
        """Open the ledger at a file path (a new path is created unless create=False) or at a
        `postgresql://` URL (a schema `benchledger ledger init` set up; see `ledger.pg_store`).

        Raises NotALedger, writing nothing, when the path holds anything but a ledger (or is not
        a regular file, such as /dev/null), or the URL's schema holds no ledger.
        """
        if is_url(target):
            from benchledger.ledger.pg_store import open_postgres

            writer, reader, where, on_close = open_postgres(str(target))
            return cls(where, writer, reader, on_close)
        path = Path(target)
        connection = None
        if not holds_data(path):
            if not create:
                raise NotALedger(f"no ledger at {path}; run a benchmark first or pass --ledger PATH")
            connection = open_writer(path)
        try:
            lock_key = writer_lock.attach(path)
        except BaseException:
            if connection is not None:
                connection.close()
            raise
        writer = SqlEventWriter(lambda: open_writer(path), partial(writer_lock.hold, lock_key), connection)
        try:
            reader = SqlEventReader(open_reader(path))
        except BaseException:
            writer.close()
            writer_lock.detach(lock_key)
            raise
        return cls(str(path), writer, reader, partial(writer_lock.detach, lock_key), path)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._reader.close()
        self._writer.close()
        self._on_close()  # after every connection of this Ledger is closed

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- writer ---------------------------------------------------------------------------

    def append(self, run_id: str, events: Sequence[Event], *, blobs: Iterable[bytes] = (),
               views: Sequence[tuple[str, int, object]] = (), cache: Sequence[CacheEntry] = (),
               expected_position: int | None = None) -> list[StoredEvent]:
        """Append events (see `SqlEventWriter.append`); the rows actually written.

        Nothing holding a registered secret's value is recorded: such an append is refused whole
        (LedgerError naming the secret's variable, never its value), as a last line behind the
        redaction every source applies."""
        check_token(run_id)
        blobs = list(blobs)
        _refuse_secrets(events, blobs, cache)
        written = self._writer.append(run_id, events, blobs=blobs, views=views, cache=cache,
                                      expected_position=expected_position)
        self._reader.note_written(run_id, written)
        return written

    def put_blob(self, data: bytes | str) -> str:
        """Store a body if absent; return its sha256 hex digest."""
        return self._writer.put_blob(data)

    @contextmanager
    def run_writer(self, run_id: str) -> Iterator[None]:
        """Hold the run's writer lock for a `with` block; RunBusy if another writer holds it.

        A ledger whose schema is not what its migrations made (a guard trigger dropped, a table
        rebuilt) is refused here, before a run writes to it: its events would not be protected."""
        with self._writer.run_writer(run_id):
            problem = self._reader.schema_problem()
            if problem:
                raise LedgerError(f"the ledger at {self.where} is not as its schema should be, so nothing is "
                                  f"written to it: {problem}; see `benchledger verify`")
            yield

    def copy_in(self, copy: RunCopy) -> int:
        """Append the rows of a run copied from another ledger that this one lacks (see
        `ledger.copies`), holding the run's writer lock; how many events were appended."""
        with self.run_writer(copy.run_id):
            return self._writer.copy_in(copy)

    # -- reader ---------------------------------------------------------------------------

    def run_copy(self, run_id: str) -> RunCopy:
        """Everything of the run as stored, once it verifies (see `ledger.copies`)."""
        return self._reader.run_copy(run_id)

    @property
    def reader(self) -> SqlEventReader:
        """The reading side alone (an `EventReader`, with no append): what a caller that only reads takes."""
        return self._reader

    def get_blob(self, digest: str) -> bytes:
        """The raw bytes stored under digest, checked against it; LedgerError if absent or changed."""
        return self._reader.get_blob(digest)

    def cache_get(self, key: str, *, runs: Collection[str]) -> dict[str, Any] | None:
        """The response one of `runs` cached for a request digest, when its recording event vouches for it."""
        return self._reader.cache_get(key, runs=runs)

    def events(self, run_id: str, *, types: Iterable[str] | None = None,
               until_seq: int | None = None) -> list[StoredEvent]:
        """A run's events in position order, optionally only some types or up to a seq."""
        return self._reader.events(run_id, types=types, until_seq=until_seq)

    def verified_events(self, run_id: str, *, expect_head: str | None = None) -> list[StoredEvent]:
        """A run's events after checking its chain segment and blobs; VerificationFailed if not."""
        return self._reader.verified_events(run_id, expect_head=expect_head)

    def iter_all(self, run_id: str | None = None) -> Iterator[StoredEvent]:
        """Every event (of one run, or of the ledger) in seq order, read a page at a time."""
        return self._reader.iter_all(run_id)

    def recorded_keys(self, run_id: str) -> set[str]:
        """Idempotency keys the run holds (resume plans what is missing from them)."""
        return self._reader.recorded_keys(run_id)

    def runs(self) -> list[RunSummary]:
        """Every run, newest first."""
        return self._reader.runs()

    def resolve_run(self, ref: str) -> str:
        """A full run id from a full id, a unique prefix, or "latest"."""
        return self._reader.resolve_run(ref)

    def run_writers(self, run_id: str) -> list[WriterSpan]:
        """Who wrote the run on a shared ledger, in spans of positions (its owner first); [] for a file."""
        return self._reader.run_writers(run_id)

    def head(self, run_id: str | None = None) -> str | None:
        """Hash of the run's last event (the ledger's, run_id None), or None if there is none."""
        return self._reader.head(run_id)

    def stored_views(self, run_id: str) -> list[tuple[str, int, int, object]]:
        """(name, version, position, value) of each view saved for the run."""
        return self._reader.stored_views(run_id)

    def verify(self, run_id: str | None = None, *, refold: Refold | None = None,
               expect_head: str | None = None) -> VerifyResult:
        """Check schema, chain, positions, blobs, cache (and views with refold); see ledger.verify."""
        return self._reader.verify(run_id, refold=refold, expect_head=expect_head)
