"""Opening a ledger file: recognise it, create or migrate it, and set the connection up.

A path must be a regular file (or a new path in an existing folder): a device such as
`/dev/null`, a FIFO or a directory is refused before SQLite sees it, so no `-journal` or `-wal`
file is ever left beside it. A file is recognised before anything is written to it: a path that
is not a SQLite file, or a SQLite file that is neither empty nor marked with the ledger's
`application_id`, raises `NotALedger` and is left byte for byte as it was. Recognition reads the
mark and the table list in ONE read transaction, so a process that opens a ledger while another
creates it sees either the empty file or the finished ledger, never half of each.

Readers open the file read-only (`mode=ro`): reading never writes, migrates or checkpoints, so a
read-only file, a read-only mount (see `_read_only_uri`) or a ledger from an older benchledger
can be shown and verified as it is. The writer
connection creates a new ledger and migrates an older one inside one `BEGIN IMMEDIATE`
transaction that recognises the file again under the lock, so several processes opening the
same new path at once create it exactly once.

A ledger with more than one hard link is never written: SQLite keeps the WAL beside the name a
file was opened by, so two writers through two names would keep two logs of one file.

The file is only ever read through SQLite, never through a plain file handle: closing any other
handle on the file would drop every POSIX lock this process holds on it (see `writer_lock` for
the one exception, which never closes its handle while a connection is open). Every connection
uses WAL (readers never block the writer), `synchronous=FULL` (a committed append survives
power loss), a 30 s busy timeout (writers queue rather than fail) and `recursive_triggers` (so
even REPLACE fires the delete guard; the insert guard covers connections that did not set it).
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Callable
from pathlib import Path

from benchledger.errors import BadInput, LedgerError, NotALedger
from benchledger.ledger import migrations
from benchledger.ledger.sqlite_connection import SqliteConnection
from benchledger.ledger.sqlite_errors import storage_error

__all__ = ["BUSY_TIMEOUT_MS", "check_path", "holds_data", "open_reader", "open_writer"]

BUSY_TIMEOUT_MS = 30_000


def check_path(path: Path) -> None:
    """Refuse a path that exists but is not a regular file (after following symlinks)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise NotALedger(f"cannot use {path} as a ledger: {exc.strerror}; pass another path") from None
    if stat.S_ISDIR(mode):
        raise NotALedger(f"{path} is a directory, not a ledger file; pass a file path")
    if not stat.S_ISREG(mode):
        raise NotALedger(f"{path} is not a regular file (a device, FIFO or socket), so not a ledger; "
                         "pass a file path")


def holds_data(path: Path) -> bool:
    """True when the path holds a non-empty file, False when it is missing or empty (by stat only)."""
    check_path(path)
    return path.exists() and path.stat().st_size > 0


def _identify(conn: sqlite3.Connection, path: Path) -> bool:
    """True when the open database is a ledger, False when it is empty; NotALedger otherwise.

    Both reads happen in one read transaction (the caller's, or one opened here).
    """
    own = not conn.in_transaction
    try:
        if own:
            conn.execute("BEGIN")
        (app_id,) = conn.execute("PRAGMA application_id").fetchone()
        tables = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")]
    except sqlite3.DatabaseError as exc:
        if exc.sqlite_errorcode != sqlite3.SQLITE_NOTADB:
            raise
        raise NotALedger(
            f"{path} is not a SQLite file, so not a benchledger ledger; pass another path "
            "(a new path creates a ledger)"
        ) from None
    finally:
        if own and conn.in_transaction:
            conn.execute("ROLLBACK")
    if app_id == migrations.APPLICATION_ID:
        return True
    if app_id == 0 and not tables:
        return False
    shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
    raise NotALedger(
        f"{path} is a SQLite database but not a benchledger ledger (application_id={app_id}, "
        f"tables: {shown or 'none'}); pass another path (a new path creates a ledger)"
    )


def _up_to_date(conn: sqlite3.Connection, path: Path) -> bool:
    return migrations.pending(conn, str(path)) == []


def _is_wal(conn: sqlite3.Connection) -> bool:
    (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
    return str(mode).lower() == "wal"


def _set_wal(conn: sqlite3.Connection) -> None:
    # Switching to WAL needs a moment of exclusive access; another opener may hold the file.
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _prepare(conn: sqlite3.Connection, path: Path) -> None:
    """Create or migrate the ledger under the write lock, then make sure it is in WAL mode."""
    # A foreign file is refused by this read, before any lock is taken; an up-to-date ledger
    # (the common case) needs no write lock at all.
    if _identify(conn, path) and _up_to_date(conn, path) and _is_wal(conn):
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        if not _identify(conn, path):  # recognised again under the lock: another opener may have won
            migrations.initialise(conn)
        migrations.migrate(conn, str(path))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    if not _is_wal(conn):
        _set_wal(conn)


def _configure(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA recursive_triggers = ON")


def _refuse_hard_links(path: Path) -> None:
    """SQLite names the WAL after the path it was opened by: two names, two logs, a corrupt file."""
    links = path.stat().st_nlink if path.exists() else 1
    if links > 1:
        raise BadInput(f"the ledger has {links} hard links, and SQLite keeps its write-ahead log beside "
                       "the name it is opened by, so writers through two names would corrupt it; keep one "
                       "name (a symlink is fine) and write through that", file=str(path))


def open_writer(path: Path) -> SqliteConnection:
    """A read-write autocommit connection to the ledger at path, created or migrated first.

    A file with more than one hard link is refused (see `_refuse_hard_links`).
    """
    check_path(path)
    _refuse_hard_links(path)
    if not path.parent.is_dir():
        raise NotALedger(f"cannot create a ledger at {path}: folder {path.parent} does not exist")

    def set_up(conn: sqlite3.Connection) -> None:
        _configure(conn)
        _prepare(conn, path)

    return _connect(str(path), path, "create or migrate", set_up)


def _connect(target: str, path: Path, action: str, set_up: Callable[[sqlite3.Connection], None],
             *, uri: bool = False) -> SqliteConnection:
    """A connection to target, set up; closed again, with a typed error, if the set-up fails."""
    try:
        conn = sqlite3.connect(target, uri=uri, isolation_level=None, check_same_thread=False,
                               factory=SqliteConnection)
    except sqlite3.Error as exc:
        raise storage_error(exc, path, "open") from None
    conn.where = str(path)
    try:
        set_up(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise storage_error(exc, path, action) from None
    except BaseException:
        conn.close()
        raise
    return conn


def _read_only_uri(path: Path) -> str:
    """`mode=ro`, or `immutable` on a read-only mount where SQLite could not make a WAL index.

    Immutable reads ignore the write-ahead log, so they are only used when there is none to
    read; a log left on a read-only mount is read through its `-shm`, and without one the
    ledger cannot be read faithfully there.
    """
    real = path.resolve()
    uri = real.as_uri()
    if not os.statvfs(real).f_flag & os.ST_RDONLY:
        return uri + "?mode=ro"
    wal, shm = Path(f"{real}-wal"), Path(f"{real}-shm")
    if not wal.exists() or wal.stat().st_size == 0:
        return uri + "?immutable=1"
    if shm.exists():
        return uri + "?mode=ro"
    raise LedgerError(f"{path} is on a read-only mount with a write-ahead log but no {shm.name} "
                      "beside it, so its latest events cannot be read there; copy the ledger with "
                      "both files to a writable folder")


def open_reader(path: Path) -> SqliteConnection:
    """A read-only autocommit connection to the existing ledger at path (never writes the file)."""
    if not holds_data(path):
        raise NotALedger(f"no ledger at {path}; run a benchmark first or pass --ledger PATH")
    uri = _read_only_uri(path)

    def set_up(conn: sqlite3.Connection) -> None:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not _identify(conn, path):
            raise NotALedger(f"{path} is an empty SQLite file, not a ledger; open it to create one")
        migrations.pending(conn, str(path))  # refuses a ledger from a newer benchledger

    return _connect(uri, path, "read", set_up, uri=True)
