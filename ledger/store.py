"""The ledger store: a SQLite file, or a schema on a PostgreSQL server shared by a team.

`Ledger` opens a store and hands out its sides, each typed by its protocol in `ledger.recorder`:
`reader` (an `EventReader`, `ledger.reader`), `writer` (an `EventWriter`: the backend's writer
behind the store's guards, `ledger.store_writer`) and `cache` (the guarded response cache, a
`ResponseCacheStore`, served by the reader). It re-merges none of them: a caller takes the side it
needs, so code that only reads is handed a reader and cannot append (mypy refuses the call, and
the reader object has no `append`). `Ledger` is a `ledger.recorder.Recorder` with either backend.
`Ledger.open(target)` opens a file path as a SQLite ledger and a `postgresql://` URL
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
from collections.abc import Callable
from functools import partial
from pathlib import Path

from benchledger.errors import BadInput, NotALedger
from benchledger.ledger import migrations, writer_lock
from benchledger.ledger.cache import CacheEntry
from benchledger.ledger.connection import holds_data, open_reader, open_writer
from benchledger.ledger.mapper import StoredEvent
from benchledger.ledger.reader import SqlEventReader
from benchledger.ledger.recorder import EventReader, EventWriter, ResponseCacheStore
from benchledger.ledger.runs import RunSummary
from benchledger.ledger.store_writer import StoreWriter
from benchledger.ledger.urls import display_target, is_url
from benchledger.ledger.verify import VerifyResult
from benchledger.ledger.writer import MAX_APPEND_ATTEMPTS, SqlEventWriter

__all__ = ["Ledger", "StoredEvent", "RunSummary", "VerifyResult", "CacheEntry", "MAX_APPEND_ATTEMPTS",
           "is_url", "display_target", "init_ledger"]


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
    file of a SQLite ledger (None on a server); `server_url` the URL of a ledger on a server (None
    for a file): what else keeps state in the ledger's database (the shared provider budget) connects with it.
    """

    server_url: str | None = None

    def __init__(self, where: str, writer: SqlEventWriter, reader: SqlEventReader,
                 on_close: Callable[[], None], path: Path | None = None) -> None:
        self.where, self.path = where, path
        self._sql_writer, self._reader, self._on_close = writer, reader, on_close
        self._writer = StoreWriter(where, writer, reader)
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
            opened = cls(where, writer, reader, on_close)
            opened.server_url = str(target)
            return opened
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
        self._sql_writer.close()
        self._on_close()  # after every connection of this Ledger is closed

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def reader(self) -> EventReader:
        """The reading side (an `EventReader`, with no append): events, runs, blobs, views, verify."""
        return self._reader

    @property
    def writer(self) -> EventWriter:
        """The writing side (an `EventWriter`): append, blobs, a run's writer lock, copies in."""
        return self._writer

    @property
    def cache(self) -> ResponseCacheStore:
        """The guarded response cache (a `ResponseCacheStore`), served by the reader."""
        return self._reader
