"""The store's interfaces: a writer, a reader and a response cache, apart.

The pipeline depends on these protocols, not on a database: `Ledger` (`ledger.store`) opens a
SQLite file or a PostgreSQL schema (`ledger.backend`) and hands out its sides, `SqlEventReader`
(which also serves the cache) and the guarded `StoreWriter`; both backends pass the same contract
tests (`tests/ledger_contract.py`). Code that needs one side takes that protocol: read-only code
an `EventReader` (mypy refuses an `append` on it, `tests/ledger/test_reader_types.py`), the model
factory a `ResponseCacheStore`. Code that reads and writes (a run, a resume) takes a `Recorder`,
the three sides by name (`ledger.writer.append(...)`, `ledger.reader.events(...)`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

from benchledger.ledger.cache import CacheEntry
from benchledger.ledger.copies import RunCopy
from benchledger.ledger.events import Event
from benchledger.ledger.mapper import StoredEvent
from benchledger.ledger.runs import RunSummary, WriterSpan
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

    def copy_in(self, copy: RunCopy) -> int:
        """Append the rows of a run copied from another ledger that this one lacks, under the run's
        writer lock; how many events were appended."""
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

    def run_writers(self, run_id: str) -> list[WriterSpan]:
        """Who wrote the run on a shared ledger, in spans of positions (its owner first); [] for a file."""
        ...

    def run_copy(self, run_id: str) -> RunCopy:
        """Everything of the run as stored, read in one snapshot once it verifies (`ledger.copies`)."""
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
class Recorder(Protocol):
    """A whole store as its three sides: what `Ledger` is, and what code that reads and writes takes."""

    @property
    def reader(self) -> EventReader:
        """The reading side."""
        ...

    @property
    def writer(self) -> EventWriter:
        """The writing side."""
        ...

    @property
    def cache(self) -> ResponseCacheStore:
        """The guarded response cache."""
        ...
