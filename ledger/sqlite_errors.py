"""SQLite's errors as the store's typed errors: one line naming the file and the cause.

The CLI turns a `LedgerError` into one line and an exit code; a raw `sqlite3.Error` would be a
traceback. `storage_error` picks the type from SQLite's error code (never from its text): a
damaged file is `LedgerCorrupt`, a write the disk or the mount refused is `LedgerWriteFailed`
(with what to do about it), anything else a plain `LedgerError`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from benchledger.errors import LedgerCorrupt, LedgerError, LedgerWriteFailed

__all__ = ["storage_error"]

_PRIMARY = 0xFF  # extended result codes keep the primary code in their low byte

_HINTS = {
    sqlite3.SQLITE_FULL: "the disk is full; free space, then resume the run",
    sqlite3.SQLITE_READONLY: "the file or its folder is read-only; use a writable copy",
    sqlite3.SQLITE_IOERR: "the disk reported an I/O error; check it, then resume the run",
    sqlite3.SQLITE_CANTOPEN: "it cannot be opened; check the path and its permissions",
    sqlite3.SQLITE_BUSY: "another process kept the ledger locked for too long; try again",
}


def storage_error(exc: Exception, path: Path | str, action: str) -> LedgerError:
    """The typed error for `exc`, raised while doing `action` ("append", "read", ...) on path."""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & _PRIMARY
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return LedgerCorrupt(f"the ledger at {path} is damaged ({exc}); `benchledger verify` "
                             "says no more than this: restore the file from a copy")
    hint = _HINTS.get(code, "")
    message = f"cannot {action} the ledger at {path}: {exc}" + (f"; {hint}" if hint else "")
    if code in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR):
        return LedgerWriteFailed(message)
    return LedgerError(message)
