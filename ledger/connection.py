"""Opening a ledger file: recognise it, create or migrate it, and set the connection up.

A file is recognised before anything is written to it: a path that is not a SQLite file, or a
SQLite file that is neither empty nor marked with the ledger's `application_id`, raises
`NotALedger` and is left byte for byte as it was. The file is only ever read through SQLite,
never through a plain file handle: closing any other handle on the file would drop every POSIX
lock this process holds on it, and another process could then checkpoint the WAL under an open
connection and corrupt the ledger. A missing or zero-byte path is created as a
new ledger. Creation and migration run inside one `BEGIN IMMEDIATE` transaction, so several
processes opening the same new path at once create it exactly once.

Every connection uses WAL (readers never block the writer), `synchronous=FULL` (a committed
append survives power loss), a 30 s busy timeout (writers queue rather than fail) and
`recursive_triggers` (so even REPLACE fires the delete guard; the insert guard covers
connections that did not set it).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from benchledger.ledger import migrations
from benchledger.errors import LedgerError, NotALedger

__all__ = ["BUSY_TIMEOUT_MS", "connect"]

BUSY_TIMEOUT_MS = 30_000


def _holds_data(path: Path) -> bool:
    """True when the path holds a non-empty file, False when it is missing or empty (by stat only)."""
    if path.is_dir():
        raise NotALedger(f"{path} is a directory, not a ledger file; pass a file path")
    return path.exists() and path.stat().st_size > 0


def _identify(conn: sqlite3.Connection, path: Path) -> bool:
    """True when the open database is a ledger, False when it is empty; NotALedger otherwise."""
    try:
        (app_id,) = conn.execute("PRAGMA application_id").fetchone()
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorcode", None) != sqlite3.SQLITE_NOTADB:
            raise
        raise NotALedger(
            f"{path} is not a SQLite file, so not a benchledger ledger; pass another path "
            "(a new path creates a ledger)"
        ) from None
    if app_id == migrations.APPLICATION_ID:
        return True
    tables = [name for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")]
    if app_id == 0 and not tables:
        return False
    shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
    raise NotALedger(
        f"{path} is a SQLite database but not a benchledger ledger (application_id={app_id}, "
        f"tables: {shown or 'none'}); pass another path (a new path creates a ledger)"
    )


def _up_to_date(conn: sqlite3.Connection) -> bool:
    return migrations.applied(conn) == {migration.number for migration in migrations.MIGRATIONS}


def _is_wal(conn: sqlite3.Connection) -> bool:
    (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
    return mode.lower() == "wal"


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
    if _identify(conn, path) and _up_to_date(conn) and _is_wal(conn):
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        if _identify(conn, path):
            if not _up_to_date(conn):
                migrations.migrate(conn, str(path))
        else:
            migrations.initialise(conn)
            migrations.migrate(conn, str(path))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    if not _is_wal(conn):
        _set_wal(conn)


def connect(path: str | Path, *, create: bool = True, prepare: bool = True) -> sqlite3.Connection:
    """Open the ledger at path as an autocommit connection.

    With `prepare` (the first connection) a new path is created and an older schema migrated;
    without it (a further connection to a file just prepared) the file must already be a ledger
    and nothing is written.
    """
    path = Path(path)
    if not _holds_data(path) and not create:
        raise NotALedger(f"no ledger at {path}; run a benchmark first or pass --ledger PATH")
    if not path.parent.is_dir():
        raise NotALedger(f"cannot create a ledger at {path}: folder {path.parent} does not exist")
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise LedgerError(f"cannot open the ledger at {path}: {exc}") from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if prepare:
            _prepare(conn, path)
        elif not _identify(conn, path):
            raise NotALedger(f"{path} is an empty SQLite file, not a ledger; open it to create one")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA recursive_triggers = ON")
    except sqlite3.Error as exc:
        conn.close()
        raise LedgerError(f"cannot use the ledger at {path}: {exc}") from exc
    except BaseException:
        conn.close()
        raise
    return conn
