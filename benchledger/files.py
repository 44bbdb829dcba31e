"""One way to write a file that people will read: whole or not at all, with the same permissions.

`write_atomic(path, data)` writes to a temporary file in the same folder, flushes and fsyncs it,
sets its mode (0644 unless asked, whatever the umask: a report is meant to be shared), renames it
over `path` and fsyncs the folder, so a reader sees the old file or the new one and never half of
one, even after a crash. On any failure the temporary file is removed and the error is one line
naming the file and the cause (`BadInput`, exit 2), so a full disk or a parent that is a file never
ends in a traceback.

An output never lands on a database: `check_output(path, ledger=...)` refuses (BadInput, before
any work) a path that is, by any spelling (relative, through a symlink, a hard link to the same
inode), the ledger or one of its `-wal`/`-shm`/`-journal` files, or that already holds a SQLite
database or write-ahead log (by its magic header), whoever's it is. `write_atomic` checks the
header again just before its rename. Only `allow_analysis=True` (the sqlite analysis export)
may replace an earlier analysis export, a SQLite file marked by its `export_meta` table that
has no `events` table.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

from benchledger.errors import BadInput

__all__ = ["write_atomic", "check_writable", "check_output", "is_sqlite_file"]

DEFAULT_MODE = 0o644

_SQLITE_MAGIC = b"SQLite format 3\x00"
_WAL_MAGICS = (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")
_SIDECARS = ("-wal", "-shm", "-journal")


def is_sqlite_file(path: Path) -> bool:
    """True when the file begins like a SQLite database or its write-ahead log."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(_SQLITE_MAGIC))
    except OSError:
        return False
    return head == _SQLITE_MAGIC or head[:4] in _WAL_MAGICS


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _is_analysis_export(path: Path) -> bool:
    """A SQLite file our analysis export made: `export_meta` and no `events` (never a ledger)."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except (sqlite3.Error, ValueError):
        return False
    try:
        names = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error:
        return False
    finally:
        conn.close()
    return "export_meta" in names and "events" not in names


def check_output(path: Path, *, ledger: Path | None = None, allow_analysis: bool = False) -> None:
    """BadInput (before any work) when writing `path` would replace the ledger or a database."""
    path = Path(path)
    resolved = path.resolve()
    if ledger is not None:
        ledger = Path(ledger)
        for protected in (ledger, *(ledger.with_name(ledger.name + suffix) for suffix in _SIDECARS)):
            if resolved == protected.resolve() or _same_file(path, protected):
                raise BadInput(f"--out would overwrite the ledger ({protected}); write the output elsewhere",
                               file=str(path))
    if is_sqlite_file(path) and not (allow_analysis and _is_analysis_export(path)):
        raise BadInput("--out names an existing SQLite database, which an output never replaces; "
                       "write the output elsewhere", file=str(path))


def write_atomic(path: Path, data: str | bytes, *, mode: int = DEFAULT_MODE) -> None:
    """Replace `path` with `data` (text is written as UTF-8, line ends untouched) in one rename."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path = Path(path)
    tmp: str | None = None
    try:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise BadInput(f"cannot write the file: {path.parent} is a file, not a folder",
                           file=str(path)) from None
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
            os.fchmod(handle.fileno(), mode)
        if is_sqlite_file(path):  # it may have become one since the command's check
            raise BadInput("--out names an existing SQLite database, which an output never replaces; "
                           "write the output elsewhere", file=str(path))
        os.replace(tmp, path)
        tmp = None
        _fsync_folder(path.parent)
    except OSError as err:
        raise BadInput(f"cannot write the file: {err.strerror or err}", file=str(path)) from err
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def check_writable(path: Path) -> None:
    """BadInput now (before a run spends anything) when `write_atomic(path, ...)` could never succeed.

    The path must not be a folder, and its nearest existing ancestor must be a writable folder
    (missing folders between are created at write time).
    """
    path = Path(path)
    if path.is_dir():
        raise BadInput("is a folder; pass a file path", file=str(path))
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise BadInput(f"cannot write the file: {ancestor} is a file, not a folder", file=str(path))
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise BadInput(f"cannot write the file: {ancestor} is not writable", file=str(path))


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
