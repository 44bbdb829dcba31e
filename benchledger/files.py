"""One way to write a file that people will read: whole or not at all, with the same permissions.

`write_atomic(path, data)` writes to a temporary file in the same folder, flushes and fsyncs it,
sets its mode (0644 unless asked, whatever the umask: a report is meant to be shared), renames it
over `path` and fsyncs the folder, so a reader sees the old file or the new one and never half of
one, even after a crash. On any failure the temporary file is removed and the error is one line
naming the file and the cause (`BadInput`, exit 2), so a full disk or a parent that is a file never
ends in a traceback.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from benchledger.errors import BadInput

__all__ = ["write_atomic", "check_writable"]

DEFAULT_MODE = 0o644


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
