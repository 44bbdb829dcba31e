"""The writing side `Ledger` hands out: the backend's writer behind the store's own guards.

`SqlEventWriter` knows transactions, chains and locks; what every append to any backend must
also pass lives here, once: the run id is a well-formed token, nothing holding a registered
secret's value is recorded (the append is refused whole, naming the secret's variable, never its
value: a last line behind the redaction every source applies), the reader's run cache takes what
was just written, and a run's writer lock is refused on a ledger whose schema is not what its
migrations made (a guard trigger dropped, a table rebuilt), before anything is written to it.
It implements `ledger.recorder.EventWriter`; it reads nothing but the schema check.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial

from benchledger.errors import LedgerError
from benchledger.ledger.cache import CacheEntry
from benchledger.ledger.copies import RunCopy
from benchledger.ledger.events import Event
from benchledger.ledger.mapper import StoredEvent
from benchledger.ledger.reader import SqlEventReader
from benchledger.ledger.run_ids import check_token
from benchledger.ledger.writer import SqlEventWriter
from benchledger.redaction import SecretScan, secret_scan

__all__ = ["StoreWriter"]


def _refuse_secrets(scan: SecretScan, texts: Iterable[bytes | str]) -> None:
    """Refuse the append if any text it would write (each event's payload as stored, each body,
    each cached response) holds a registered secret: one compiled search over each."""
    if (secret := scan.first(texts)) is not None:
        raise LedgerError(f"refused to record {secret}: an event, body or cached response of this "
                          "append holds it (a model or memory echoed it); nothing was written")


class StoreWriter:
    """The writer side of the ledger at `where`; see the module docstring."""

    def __init__(self, where: str, writer: SqlEventWriter, reader: SqlEventReader) -> None:
        self._where, self._writer, self._reader = where, writer, reader

    def append(self, run_id: str, events: Sequence[Event], *, blobs: Iterable[bytes] = (),
               views: Sequence[tuple[str, int, object]] = (), cache: Sequence[CacheEntry] = (),
               expected_position: int | None = None) -> list[StoredEvent]:
        """Append events (see `SqlEventWriter.append`); the rows actually written."""
        check_token(run_id)
        scan = secret_scan()  # None: no registered secret is long enough to refuse
        written = self._writer.append(run_id, events, blobs=blobs, views=views, cache=cache,
                                      expected_position=expected_position,
                                      check_written=partial(_refuse_secrets, scan) if scan else None)
        self._reader.note_written(run_id, written)
        return written

    def put_blob(self, data: bytes | str) -> str:
        """Store a body if absent; return its sha256 hex digest."""
        return self._writer.put_blob(data)

    @contextmanager
    def run_writer(self, run_id: str) -> Iterator[None]:
        """Hold the run's writer lock for a `with` block; RunBusy if another writer holds it,
        LedgerError (writing nothing) if the ledger's schema is not as its migrations made it."""
        with self._writer.run_writer(run_id):
            problem = self._reader.schema_problem()
            if problem:
                raise LedgerError(f"the ledger at {self._where} is not as its schema should be, so nothing is "
                                  f"written to it: {problem}; see `benchledger verify`")
            yield

    def copy_in(self, copy: RunCopy) -> int:
        """Append the rows of a run copied from another ledger that this one lacks (see
        `ledger.copies`), holding the run's writer lock; how many events were appended."""
        with self.run_writer(copy.run_id):
            return self._writer.copy_in(copy)
