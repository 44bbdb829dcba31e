"""One writer per run: an exclusive lock held while a process runs, resumes, rejudges or purges it.

Idempotency keys stop a stage from being recorded twice, but two processes working on one run
would still both pay for each model call, and one could judge an answer the other recorded. The
lock belongs to the store's writer side (`Recorder.run_writer`): for a SQLite ledger it is
keyed by the file's identity, so every path to the file meets it, leaves nothing on disk, and is
released when the holder exits, however it exits (see `benchledger.ledger.writer_lock`).
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from benchledger.ledger.recorder import Recorder

__all__ = ["run_writer"]


def run_writer(ledger: Recorder, run_id: str) -> AbstractContextManager[None]:
    """Hold the run's writer lock for a `with` block; RunBusy if another process holds it."""
    return ledger.run_writer(run_id)
