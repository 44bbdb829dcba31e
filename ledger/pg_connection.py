"""A connection to a PostgreSQL ledger, with PostgreSQL's side of `backend.LedgerConnection`.

The URL is a libpq connection URI (`postgresql://user@host:5432/db`, or
`postgresql:///db?host=/run/postgresql`), so psql accepts the same one; the ledger lives in the
connection's current schema (`options=-csearch_path%3DNAME` picks another than `public`). A URL
is shown, in messages and anywhere else, without its user and password (`urls.display_url`).

The store's SQL uses `?` parameters; `PostgresConnection.execute` turns them into `$1, $2, ...`
and runs them through a psycopg `RawCursor` (server-side parameters, no `%` escaping), in
autocommit mode with explicit transactions. A read snapshot is a `REPEATABLE READ READ ONLY`
transaction; a write transaction first takes the ledger's tail lock, so appenders from any
number of processes and machines take turns at the chain's tail and keep one linear chain.

The tail lock is a row lock on `ledger_tail` (`SELECT ... FOR UPDATE`), which PostgreSQL grants
only to a role holding UPDATE on that table: a writer. A reader, or a role with no rights on the
ledger, cannot take it and hold every writer up (an advisory lock is open to every role). A wait
for it is bounded by `lock_timeout` (`TAIL_LOCK_TIMEOUT_S` unless the URL sets one, e.g.
`options=-clock_timeout%3D5s`) and ends in one line naming the ledger. psycopg's errors become the store's
typed errors here, picked by their class (SQLSTATE), never by their text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from functools import lru_cache
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg import pq
from psycopg.conninfo import conninfo_to_dict

from benchledger.errors import BadInput, LedgerCorrupt, LedgerError, LedgerWriteFailed, NotALedger
from benchledger.ledger import pg_identity, pg_schema
from benchledger.ledger.backend import Cursor
from benchledger.ledger.mapper import ROW_COLUMNS
from benchledger.ledger.urls import display_url

__all__ = ["PostgresConnection", "connect", "lock_key", "storage_error"]

CONNECT_TIMEOUT_S = 10
TAIL_LOCK_TIMEOUT_S = 60
"""How long a write waits for another writer to release the ledger's tail, unless the URL says."""
_LITERAL = re.compile(r"('(?:[^']|'')*')")


def lock_key(name: str) -> int:
    """A signed 64-bit advisory lock key for `name` (advisory locks are per database)."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big", signed=True)


@lru_cache(maxsize=1024)
def _dollars(sql: str) -> str:
    """`?` parameters as `$1, $2, ...`, leaving quoted literals alone."""
    parts = _LITERAL.split(sql)
    count = 0
    for index in range(0, len(parts), 2):
        pieces = parts[index].split("?")
        numbered = [pieces[0]]
        for piece in pieces[1:]:
            count += 1
            numbered.append(f"${count}{piece}")
        parts[index] = "".join(numbered)
    return "".join(parts)


def _message(exc: psycopg.Error) -> str:
    primary = exc.diag.message_primary if exc.diag else None
    return primary or (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def storage_error(exc: Exception, where: str, action: str) -> LedgerError:
    """The typed error for a psycopg error raised while doing `action` on the ledger at `where`."""
    if not isinstance(exc, psycopg.Error):
        return LedgerError(f"cannot {action} the ledger at {where}: {exc}")
    message = f"cannot {action} the ledger at {where}: {_message(exc)}"
    if isinstance(exc, (pg_errors.DataCorrupted, pg_errors.IndexCorrupted)):
        return LedgerCorrupt(f"{message}; the server reports damaged data: restore it from a backup")
    if exc.sqlstate == pg_identity.NOT_YOURS:
        return LedgerWriteFailed(f"{message}; its owner can let this role add to it with `benchledger ledger "
                                 "grant URL RUN ROLE`")
    if isinstance(exc, pg_errors.LockNotAvailable):
        return LedgerWriteFailed(f"{message}; another writer held the ledger's tail for longer than this "
                                 "session's lock_timeout: try again once it is done (or raise lock_timeout "
                                 "with options=-clock_timeout%3D120s in the URL)")
    if isinstance(exc, pg_errors.InsufficientPrivilege):
        return LedgerWriteFailed(f"{message}; the role has no right to do that (see the README's role "
                                 "set-up: a writer role appends, the owner runs `benchledger ledger init`)")
    if isinstance(exc, (pg_errors.DiskFull, pg_errors.ReadOnlySqlTransaction)):
        return LedgerWriteFailed(message)
    if isinstance(exc, psycopg.OperationalError):
        return LedgerError(f"{message}; check that the server is up and reachable, then try again")
    return LedgerError(message)


class PostgresConnection:
    """One psycopg connection to a ledger's schema; see the module docstring."""

    errors: tuple[type[Exception], ...] = (psycopg.Error,)
    integrity_errors: tuple[type[Exception], ...] = (pg_errors.IntegrityError,)
    bytes_columns = ROW_COLUMNS.replace("payload", "convert_to(payload, 'UTF8') AS payload")
    blob_encoding = "identity"
    records_writers = True
    issued_seq_sql = "SELECT seq FROM ledger_tail"

    def __init__(self, raw: psycopg.Connection[Any], where: str, schema: str) -> None:
        self._raw, self.where, self.schema = raw, where, schema

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Cursor:
        cursor = psycopg.RawCursor(self._raw)
        cursor.execute(_dollars(sql), parameters if parameters else None)
        return cursor

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Cursor:
        cursor = psycopg.RawCursor(self._raw)
        cursor.executemany(_dollars(sql), list(parameters))
        return cursor

    def pipeline(self) -> AbstractContextManager[object]:
        """psycopg's pipeline mode for a block: statements are sent as they come and their results
        read when one is asked for (or at the end), in as few round trips as that allows."""
        return self._raw.pipeline()

    @property
    def in_transaction(self) -> bool:
        return self._raw.info.transaction_status != pq.TransactionStatus.IDLE

    def close(self) -> None:
        self._raw.close()

    def begin_read(self) -> None:
        self.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")

    def begin_write(self) -> None:
        self.execute("BEGIN")
        self.execute("SELECT seq FROM ledger_tail FOR UPDATE")

    def chain_columns(self) -> str:
        return "chain, link"

    def check_schema(self) -> str | None:
        return pg_schema.check_schema(self)

    def issued_seq(self) -> int:
        row = self.execute(self.issued_seq_sql).fetchone()
        return int(row[0]) if row else 0

    def check_writers(self, run_id: str | None) -> tuple[int, str] | None:
        return pg_schema.check_writers(self, run_id)

    def check_storage(self) -> str | None:
        return None  # the server checks its own pages (data checksums, if the cluster has them)

    def has_responses(self) -> bool:
        return True

    def json_text(self, column: str, path: Sequence[str]) -> str:
        return f"({column}::json #>> '{{{','.join(path)}}}')"

    def json_values(self, column: str, path: Sequence[str]) -> str:
        return f"json_each_text({column}::json #> '{{{','.join(path)}}}')"

    def prefix_match(self, column: str, prefix: str) -> tuple[str, tuple[str, ...]]:
        return f"starts_with({column}, ?)", (prefix,)

    def storage_error(self, exc: Exception, action: str) -> LedgerError:
        return storage_error(exc, self.where, action)

    def is_damaged(self, exc: Exception) -> bool:
        return isinstance(exc, (pg_errors.DataCorrupted, pg_errors.IndexCorrupted))


def connect(url: str, *, read_only: bool = False) -> PostgresConnection:
    """A connection to the server and schema the URL names (not yet checked to hold a ledger).

    A URL psycopg cannot read is BadInput; a server that cannot be reached, or a role it refuses,
    a LedgerError; a `search_path` naming no schema the role may use, NotALedger.
    """
    where = display_url(url)
    try:
        given = conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        raise BadInput(f"not a PostgreSQL connection URL: {_message(exc)}", field="ledger") from None
    extra: dict[str, Any] = {"autocommit": True}
    if "connect_timeout" not in given:
        extra["connect_timeout"] = CONNECT_TIMEOUT_S
    if "application_name" not in given:
        extra["application_name"] = "benchledger"
    try:
        raw = psycopg.connect(url, **extra)
    except psycopg.Error as exc:
        raise LedgerError(f"cannot connect to the ledger at {where}: {_message(exc)}; check the URL, "
                          "that the server is up, and the role's name and password") from None
    try:
        if read_only:
            raw.execute("SET default_transaction_read_only = on")
        elif raw.execute("SELECT current_setting('lock_timeout')").fetchone() == ("0",):
            raw.execute(f"SET lock_timeout = '{TAIL_LOCK_TIMEOUT_S}s'")
        row = raw.execute("SELECT current_schema()").fetchone()
    except psycopg.Error as exc:
        raw.close()
        raise storage_error(exc, where, "open") from None
    if row is None or row[0] is None:
        raw.close()
        raise NotALedger(f"the search_path of {where} names no schema this role may use (none exists, or "
                         "the role was granted no USAGE on it): its owner creates the ledger with "
                         "`benchledger ledger init URL --writer ROLE` (see the README's role set-up), or "
                         "name another schema with options=-csearch_path=NAME")
    return PostgresConnection(raw, where, str(row[0]))
