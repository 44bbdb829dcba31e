"""One writer per run, keyed by the ledger file's identity: an OFD lock on one byte of the file.

Idempotency keys stop a stage from being recorded twice, but two processes working on one run
would still both pay for each model call, and one could judge an answer the other recorded. So
a process that runs, resumes, rejudges or purges a run holds the run's writer lock.

The lock is an open-file-description lock (`F_OFD_SETLK`, Linux) on one byte of the ledger file
itself, at an offset derived from the run id in [2**62, 2**63), far beyond the bytes SQLite
locks (around 2**30) and beyond any real file size. Because it is taken on the file, every path
to it (a symlink, a hard link, a relative spelling) meets the same lock; because it lives in
the kernel, nothing is left on disk and it dies with the process however the process ends
(SIGKILL included). Unlike the POSIX locks SQLite uses, an OFD lock is not dropped when SQLite
closes one of its own descriptors of the file. A lock held in the database was the other
option; it would have to be written (not possible on a read-only ledger, and a dead holder
would leave a row to be cleaned up by guessing whether its pid is still alive).

The catch is the other way round: closing ANY descriptor of the file drops every POSIX lock this
process holds on it, SQLite's included, and another process could then checkpoint the WAL under
an open connection. So this module opens one descriptor per file (by device and inode) and
closes it only when no `Ledger` of this process has that file open any more (`attach` and
`detach` count them). Within the process, the runs it holds are tracked in memory, so a second
`hold` of the same run from this process (another thread, another `Ledger`) is refused as well.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from benchledger.errors import LedgerError, RunBusy

__all__ = ["FileKey", "attach", "detach", "hold", "lock_offset"]

FileKey = tuple[int, int]
"""(st_dev, st_ino) of a ledger file."""

_BASE = 1 << 62
_SPAN = 1 << 61
_FLOCK = "hhqqi4x"  # struct flock on Linux: l_type, l_whence, l_start, l_len, l_pid (+ padding)


@dataclass
class _File:
    path: Path
    users: int = 0
    """Open `Ledger`s of this process on the file."""
    held: set[str] = field(default_factory=set)
    """Runs whose writer lock this process holds on the file."""
    fd: int | None = None


_files: dict[FileKey, _File] = {}
_guard = threading.Lock()


def lock_offset(run_id: str) -> int:
    """The byte of the ledger file whose lock stands for the run's writer lock."""
    digest = hashlib.sha256(run_id.encode("utf-8")).digest()
    return _BASE + int.from_bytes(digest[:8], "big") % _SPAN


def attach(path: Path) -> FileKey:
    """Count one more open `Ledger` on the file at path; returns the file's key."""
    info = path.stat()
    key = (info.st_dev, info.st_ino)
    with _guard:
        entry = _files.setdefault(key, _File(path))
        entry.users += 1
    return key


def detach(key: FileKey) -> None:
    """Count one `Ledger` fewer; the descriptor closes once none is open and no lock is held."""
    with _guard:
        entry = _files[key]
        entry.users -= 1
        _close_if_unused(key, entry)


def _close_if_unused(key: FileKey, entry: _File) -> None:
    if entry.users <= 0 and not entry.held:
        if entry.fd is not None:
            os.close(entry.fd)
        del _files[key]


def _set_lock(fd: int, offset: int, lock_type: int) -> bool:
    """Set or clear the OFD lock on one byte; False when another description holds it."""
    request = struct.pack(_FLOCK, lock_type, os.SEEK_SET, offset, 1, 0)
    try:
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, request)
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def _open_same_file(path: Path, key: FileKey, run_id: str) -> int:
    """A descriptor of the file the key names (a symlink retargeted since is refused)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError as exc:
        raise LedgerError(f"cannot lock run {run_id} in {path}: {exc.strerror}; a run can only be "
                          "written to a writable ledger") from None
    info = os.fstat(fd)
    if (info.st_dev, info.st_ino) != key:
        os.close(fd)  # never ours: it is another file, so SQLite holds no lock on it
        raise LedgerError(f"{path} now names another file than the ledger opened; open it again")
    return fd


def _busy(run_id: str, where: str) -> RunBusy:
    return RunBusy(f"run {run_id} is being written by {where}; wait for it to finish "
                   "(or stop it), then try again")


@contextmanager
def hold(key: FileKey, run_id: str) -> Iterator[None]:
    """Hold the run's writer lock on the file for the block; RunBusy if anyone else holds it."""
    offset = lock_offset(run_id)
    with _guard:
        entry = _files[key]
        if run_id in entry.held:
            raise _busy(run_id, f"this process (pid {os.getpid()})")
        if entry.fd is None:
            entry.fd = _open_same_file(entry.path, key, run_id)
        if not _set_lock(entry.fd, offset, fcntl.F_WRLCK):
            raise _busy(run_id, "another process")
        entry.held.add(run_id)
        fd = entry.fd
    try:
        yield
    finally:
        with _guard:
            _set_lock(fd, offset, fcntl.F_UNLCK)
            entry.held.discard(run_id)
            _close_if_unused(key, entry)
