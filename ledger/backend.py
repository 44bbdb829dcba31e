"""One connection to a ledger's database, and the little its SQL dialect does differently.

The writer, the reader, `verify`, the guarded cache, the blob table and the run listing are
written once, against `LedgerConnection`, in SQL both databases run: `?` parameters, `LIMIT`,
`ON CONFLICT`, `COALESCE`. What differs is a method of the connection: how a read snapshot or
a write transaction starts (`BEGIN` or `BEGIN IMMEDIATE` in SQLite; a repeatable-read snapshot,
or a transaction holding the ledger's tail lock, in PostgreSQL), how JSON is read in SQL, how
the schema is checked, where the largest seq ever issued is remembered, and how the driver's
errors become the store's typed errors.

`ledger.sqlite_connection.SqliteConnection` is a `sqlite3.Connection` subclass (no wrapper on
the hot path); `ledger.pg_connection.PostgresConnection` wraps a psycopg connection and turns
the `?` parameters into PostgreSQL's `$1, $2, ...`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol

from benchledger.errors import LedgerError

__all__ = ["Cursor", "LedgerConnection", "KEY_CHUNK", "select_in"]

KEY_CHUNK = 500
"""Keys per `IN (...)` list: well under both databases' limits on parameters."""


class Cursor(Protocol):
    """The rows of one statement."""

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class LedgerConnection(Protocol):
    """A connection to a ledger's database; see the module docstring."""

    where: str
    """How messages name the ledger: its path, or its URL without credentials."""
    errors: tuple[type[Exception], ...]
    """The driver's errors: anything the database refuses or fails to do."""
    integrity_errors: tuple[type[Exception], ...]
    """A constraint conflict: another writer took the position or key (an append retries)."""
    bytes_columns: str
    """The event columns (`mapper.ROW_COLUMNS`) with the payload read as its UTF-8 bytes."""
    blob_encoding: str
    records_writers: bool
    """Whether each event row records the role that wrote it (`events.writer`, a server's)."""
    issued_seq_sql: str
    """The query whose one row's one column is `issued_seq`."""
    """How new blob bodies are stored: `zlib` (a file) or `identity` (a server re-hashes them)."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Cursor: ...

    @property
    def in_transaction(self) -> bool: ...

    def close(self) -> None: ...

    def begin_read(self) -> None:
        """Start a read-only transaction that sees one snapshot until it ends."""
        ...

    def begin_write(self) -> None:
        """Start a write transaction that holds the ledger's tail: appenders take turns here."""
        ...

    def chain_columns(self) -> str:
        """`chain, link` as a select list (constants where the columns do not exist)."""
        ...

    def check_schema(self) -> str | None:
        """The first difference from the schema the applied migrations create, or None."""
        ...

    def issued_seq(self) -> int:
        """The largest seq ever written (0 for none), kept apart from the events themselves."""
        ...

    def check_writers(self, run_id: str | None) -> tuple[int, str] | None:
        """(seq, what) of the first row (of the run, or of the ledger) written by a role the run's
        owner did not let add to it; None where rows record no writer (a file)."""
        ...

    def check_storage(self) -> str | None:
        """What is wrong with the storage itself (a damaged file), or None."""
        ...

    def has_responses(self) -> bool:
        """Whether the guarded response cache exists (a SQLite ledger before m002 lacks it)."""
        ...

    def json_text(self, column: str, path: Sequence[str]) -> str:
        """SQL for the text at `path` in the JSON held by `column` (NULL where absent)."""
        ...

    def json_values(self, column: str, path: Sequence[str]) -> str:
        """A table expression with one row per value (column `value`) of the object at `path`."""
        ...

    def prefix_match(self, column: str, prefix: str) -> tuple[str, tuple[str, ...]]:
        """(condition, parameters) selecting the rows whose `column` starts with `prefix`."""
        ...

    def storage_error(self, exc: Exception, action: str) -> LedgerError:
        """The typed error for a driver error raised while doing `action` ("read", ...)."""
        ...

    def is_damaged(self, exc: Exception) -> bool:
        """Whether the error says the storage is damaged (verify reports it, one line)."""
        ...


def select_in(conn: LedgerConnection, sql: str, keys: Sequence[Any], *,
              before: Sequence[Any] = ()) -> Iterator[Any]:
    """The rows of `sql` for all `keys`, asked KEY_CHUNK keys at a time.

    `{marks}` in `sql` stands for the placeholders of one chunk's `IN (...)` list; `before` are
    the parameters that come ahead of it.
    """
    for start in range(0, len(keys), KEY_CHUNK):
        chunk = keys[start:start + KEY_CHUNK]
        yield from conn.execute(sql.format(marks=",".join("?" * len(chunk))), (*before, *chunk))
