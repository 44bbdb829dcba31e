"""One writer per run: an exclusive lock held while a process runs, resumes, rejudges or purges it.

Idempotency keys stop a stage from being recorded twice, but two processes working on one run
would still both pay for each model call, and one could judge an answer the other recorded. The
lock is an OS file lock (`flock`) on `<ledger>.locks/<run_id>.lock`: it is released when the
holder exits, however it exits, so a crashed run can always be resumed. It coordinates processes
on one machine, which is where a ledger file lives.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchledger.errors import RunBusy

__all__ = ["run_writer"]


@contextmanager
def run_writer(ledger, run_id: str) -> Iterator[None]:
    """Hold the run's writer lock for the block; RunBusy if another process holds it."""
    folder = Path(str(ledger.path) + ".locks")
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / f"{run_id}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "another process"
            raise RunBusy(f"run {run_id} is being written by pid {holder}; wait for it to finish "
                          "(or stop it), then try again") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
