"""The store's interfaces: a writer, a reader and a response cache, apart.

The pipeline depends on these protocols, not on a database: `Ledger` (the facade in
`ledger.store`) composes `SqlEventWriter` and `SqlEventReader` (with the cache read through the
reader) over a SQLite file or a PostgreSQL schema (`ledger.backend`), and both pass the same
contract tests (`tests/ledger_contract.py`). Orchestration types its `ledger` parameters
against `Recorder`, or against the narrower side it needs.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

from benchledger.ledger.cache import CacheEntry
from benchledger.ledger.events import Event
from benchledger.ledger.mapper import StoredEvent
from benchledger.ledger.runs import RunSummary
from benchledger.ledger.verify import Refold, VerifyResult

__all__ = ["EventWriter", "EventReader", "ResponseCacheStore", "Recorder", "CacheEntry"]


@runtime_checkable
class EventWriter(Protocol):
    """Appends events (with their blobs, views and cached responses) and holds runs' writer locks."""

    def append(self, run_id: str, events: Sequence[Event], *, blobs: Iterable[bytes] = (),
               views: Sequence[tuple[str, int, object]] = (), cache: Sequence[CacheEntry] = (),
               expected_position: int | None = None) -> list[StoredEvent]:
        """Append in one transaction, skipping recorded idempotency keys; the rows written."""
        ...

    def put_blob(self, data: bytes | str) -> str:
        """Store a body if absent; its SHA-256 hex digest."""
        ...

    def run_writer(self, run_id: str) -> AbstractContextManager[None]:
        """The run's writer lock for a `with` block; RunBusy when another writer holds it.

        One writer per run: idempotency keys stop a stage from being recorded twice, but two
        processes on one run would both pay for each model call, and one could judge an answer
        the other recorded. Run, resume, rejudge and purge hold it while they work."""
        ...


@runtime_checkable
class EventReader(Protocol):
    """Reads typed events, runs, blobs and views, and verifies what it reads."""

    def events(self, run_id: str, *, types: Iterable[str] | None = None,
               until_seq: int | None = None) -> list[StoredEvent]:
        """A run's events in position order."""
        ...

    def verified_events(self, run_id: str, *, expect_head: str | None = None) -> list[StoredEvent]:
        """A run's events after checking its chain segment and blobs; VerificationFailed if not."""
        ...

    def iter_all(self, run_id: str | None = None) -> Iterator[StoredEvent]:
        """Every event (of one run, or of the ledger) in seq order."""
        ...

    def runs(self) -> list[RunSummary]:
        """Every run, newest first."""
        ...

    def resolve_run(self, ref: str) -> str:
        """A full run id from a full id, a unique prefix, or "latest"."""
        ...

    def head(self, run_id: str | None = None) -> str | None:
        """Hash of the run's (or the ledger's) last event."""
        ...

    def get_blob(self, digest: str) -> bytes:
        """The body stored under digest, checked against it."""
        ...

    def stored_views(self, run_id: str) -> list[tuple[str, int, int, object]]:
        """(name, version, position, value) of each view saved for the run."""
        ...

    def recorded_keys(self, run_id: str) -> set[str]:
        """Idempotency keys the run holds."""
        ...

    def verify(self, run_id: str | None = None, *, refold: Refold | None = None,
               expect_head: str | None = None) -> VerifyResult:
        """Check the ledger (or one run); the first problem, if any."""
        ...


@runtime_checkable
class ResponseCacheStore(Protocol):
    """Serves a cached model response only when the ledger vouches for it."""

    def cache_get(self, key: str, *, runs: Collection[str]) -> dict[str, Any] | None:
        """The response one of `runs` recorded for the request digest `key`, or None (a miss)."""
        ...


@runtime_checkable
class Recorder(EventWriter, EventReader, ResponseCacheStore, Protocol):
    """A whole store: what `Ledger` is, and what the pipeline needs."""
