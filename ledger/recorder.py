"""The store's interfaces: a writer appends, a reader reads, kept apart so a backend can be added.

The orchestration types its `ledger` parameters against these protocols, never against a concrete
store, so a second backend (a shared PostgreSQL ledger) needs no change to the pipeline.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from benchledger.ledger.events import Event
from benchledger.ledger.mapper import StoredEvent

__all__ = ["EventWriter", "EventReader"]


class EventReader(Protocol):
    """Reads a run's events and the blobs they name."""

    def events(self, run_id: str, *, types: Iterable[str] | None = None,
               until_seq: int | None = None) -> list[StoredEvent]: ...

    def get_blob(self, digest: str) -> bytes: ...


class EventWriter(EventReader, Protocol):
    """Appends a batch of events (with the blobs they name and the views they complete) to a run."""

    def append(self, run_id: str, events: Sequence[Event], *, blobs: Iterable[bytes] = (),
               views: Sequence[tuple[str, int, object]] = (),
               expected_position: int | None = None) -> list[StoredEvent]: ...
