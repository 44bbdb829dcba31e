"""The evaluation store: a SQLite file that holds only memory built for benchmark runs.

Memory systems under test keep their data in a file of its own, never in the ledger and never in
a file that holds anything else. The file carries two marks set when it is created: the SQLite
header's `application_id` and a row in `benchledger_evaluation_store`. Both must be present for
the file to count as an evaluation store. `open_eval_store` marks only a new or empty file and
refuses any other unmarked file; `purge_scope` and `reset` check the marks again at the moment they
delete, so a file that lost its marks (or was never one) is never wiped.

Connections are opened in autocommit mode; writes go through `transaction`, which takes the write
lock up front (BEGIN IMMEDIATE) so concurrent writers wait on busy_timeout instead of failing on
lock upgrade.

Purging gives the space back: a new store is created with `auto_vacuum = INCREMENTAL`, and after
each purge `reclaim` returns the freed pages to the file system (`incremental_vacuum`, then a
WAL checkpoint that truncates the file). A store made before this (auto_vacuum off) is converted
by one full VACUUM at its first purge. If another connection is busy writing, reclaiming waits for
the next purge; the purge itself has already committed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from benchledger.clock import now_iso
from benchledger.errors import NotAnEvaluationStore

__all__ = [
    "check_store_path", "APPLICATION_ID", "MARKER_TABLE", "STORE_KIND", "open_eval_store", "is_evaluation_store",
    "require_evaluation_store", "transaction", "purge_scope", "reset", "reclaim",
]

APPLICATION_ID = 0x424C4D45  # "BLME": benchledger memory evaluation
MARKER_TABLE = "benchledger_evaluation_store"
STORE_KIND = "benchledger-evaluation-store"
FORMAT_VERSION = "1"
BUSY_TIMEOUT_MS = 10_000


def open_eval_store(path: Path | str, *, create: bool = True) -> sqlite3.Connection:
    """Open (and, for a new or empty file, mark) an evaluation store.

    Raises `NotAnEvaluationStore` when the file holds anything else, or when it does not exist
    and `create` is False.
    """
    path = Path(path)
    if not create and not path.exists():
        raise NotAnEvaluationStore(
            f"{path}: no evaluation store here; open it with create=True to make one"
        )
    if path.is_dir():
        raise NotAnEvaluationStore(f"{path}: is a folder; point the memory store at a file")
    path.parent.mkdir(parents=True, exist_ok=True)
    new_file = not path.exists() or path.stat().st_size == 0
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if new_file:  # before the first page is written (outside any transaction), so purges can shrink it
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
        if not is_evaluation_store(conn):
            _mark_if_empty(conn, path, create=create)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.DatabaseError as err:
        conn.close()
        raise NotAnEvaluationStore(f"{path}: not a SQLite file, so not a benchledger evaluation store "
                                   f"({err}); point the memory store at a new file") from None
    except BaseException:
        conn.close()
        raise
    return conn


def check_store_path(path: Path | str) -> None:
    """NotAnEvaluationStore now, writing nothing, when `path` holds anything but an evaluation store.

    A missing or empty file is fine (it becomes one); this lets a run refuse a wrong
    `--memory-store` before it creates a ledger or asks anything.
    """
    path = Path(path)
    if path.is_dir():
        raise NotAnEvaluationStore(f"{path}: is a folder; point the memory store at a file")
    if not path.exists() or path.stat().st_size == 0:
        return
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as err:
        raise NotAnEvaluationStore(f"{path}: cannot be opened ({err})") from None
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # One read transaction, so the marks and the schema are read from the same snapshot. A file
        # with no tables yet is one another process is creating this moment: it becomes a store.
        conn.execute("BEGIN")
        try:
            foreign = not is_evaluation_store(conn) and _has_user_tables(conn)
        finally:
            conn.execute("COMMIT")
        if foreign:
            raise NotAnEvaluationStore(f"{path}: this file is not a benchledger evaluation store; point the "
                                       "memory store at a new file")
    except sqlite3.DatabaseError as err:
        raise NotAnEvaluationStore(f"{path}: not a SQLite file, so not a benchledger evaluation store "
                                   f"({err}); point the memory store at a new file") from None
    finally:
        conn.close()


def _mark_if_empty(conn: sqlite3.Connection, path: Path, *, create: bool) -> None:
    with transaction(conn):
        if is_evaluation_store(conn):  # another process marked it while we waited
            return
        if _has_user_tables(conn) or not create:
            raise NotAnEvaluationStore(
                f"{path}: this SQLite file is not a benchledger evaluation store and holds other "
                "data; point the memory store at a new file"
            )
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"CREATE TABLE {MARKER_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.executemany(
            f"INSERT INTO {MARKER_TABLE} (key, value) VALUES (?, ?)",
            [("kind", STORE_KIND), ("format", FORMAT_VERSION), ("created_at", now_iso())],
        )


def _has_user_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
    ).fetchone()[0] > 0


def is_evaluation_store(conn: sqlite3.Connection) -> bool:
    """True when both marks are present: the application_id and the marker row."""
    if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
        return False
    has_table = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (MARKER_TABLE,)
    ).fetchone()
    if not has_table:
        return False
    row = conn.execute(f"SELECT value FROM {MARKER_TABLE} WHERE key = 'kind'").fetchone()
    return row is not None and row[0] == STORE_KIND


def require_evaluation_store(conn: sqlite3.Connection, *, action: str) -> None:
    """Raise `NotAnEvaluationStore` unless the connection's file is marked for evaluation."""
    if not is_evaluation_store(conn):
        raise NotAnEvaluationStore(
            f"{_file_of(conn)}: refusing to {action}: the file is not marked as a benchledger "
            "evaluation store (application_id and marker row); nothing was deleted"
        )


def _file_of(conn: sqlite3.Connection) -> str:
    row = conn.execute("PRAGMA database_list").fetchone()
    return row[2] or "in-memory database"


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: BEGIN IMMEDIATE, COMMIT on success, ROLLBACK on error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def purge_scope(conn: sqlite3.Connection, scope: str, *, tables: Sequence[str],
                drop: Sequence[str] = ()) -> int:
    """Delete a scope's rows from `tables` (each has a `scope` column) and drop `drop` tables.

    Returns how many rows the first table lost (by convention the documents table). The marks are
    checked inside the same write transaction, so nothing is deleted from an unmarked file.
    """
    with transaction(conn):
        require_evaluation_store(conn, action=f"purge scope {scope!r}")
        removed = 0
        for index, table in enumerate(tables):
            cursor = conn.execute(f'DELETE FROM "{table}" WHERE scope = ?', (scope,))
            if index == 0:
                removed = cursor.rowcount
        for table in drop:
            conn.execute(f'DROP TABLE IF EXISTS "{table}"')
    reclaim(conn)
    return removed


def reclaim(conn: sqlite3.Connection) -> bool:
    """Return the store's free pages to the file system; False when another writer was busy."""
    try:
        (mode,) = conn.execute("PRAGMA auto_vacuum").fetchone()
        if mode != 2:  # a store from before incremental auto-vacuum: convert it once
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            conn.execute("VACUUM")
        else:
            # executescript steps the pragma to completion; execute() would free a single page
            conn.executescript("PRAGMA incremental_vacuum;")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except sqlite3.OperationalError:  # busy or locked: the space comes back at a later purge
        return False
    return True


def reset(conn: sqlite3.Connection) -> int:
    """Drop every table but the marker, emptying the store. Returns how many tables were dropped."""
    with transaction(conn):
        require_evaluation_store(conn, action="reset the store")
        # Virtual tables first: dropping one removes its shadow tables with it.
        virtual = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'"
        )]
        for name in virtual:
            conn.execute(f'DROP TABLE "{name}"')
        plain = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
            "AND name != ?", (MARKER_TABLE,)
        )]
        for name in plain:
            conn.execute(f'DROP TABLE "{name}"')
    return len(virtual) + len(plain)
