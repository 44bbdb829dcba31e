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
only to a role holding UPDATE on a column of that table: a writer. A reader, or a role with no
rights on the ledger, cannot take it and hold every writer up (an advisory lock is open to every
role).

No session waits without end (issue 32): every one sets `lock_timeout` and `statement_timeout`
(`SessionLimits`: a reading session waits 10 s for a table lock, a writing one 60 s for the
tail, and no statement runs past 300 s) unless the URL or the role already sets them
(`options=-clock_timeout%3D5s%20-cstatement_timeout%3D10min`). Writers hold no table privilege
that lets them lock a reader out (`pg_schema.writer_grants`), so a table lock a reader meets is
the owner's or a superuser's; when a wait ends, `lock_holders` asks `pg_locks` and
`pg_stat_activity`, on a connection of its own, who holds what the session waited for, and the
one line names that role, its backend and the table. psycopg's errors become the store's typed
errors here, picked by their class (SQLSTATE), never by their text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from functools import lru_cache
from typing import Any, NamedTuple

import psycopg
from psycopg import errors as pg_errors
from psycopg import pq
from psycopg.conninfo import conninfo_to_dict
from pydantic import BaseModel, ConfigDict, Field

from benchledger.errors import BadInput, LedgerCorrupt, LedgerError, LedgerWriteFailed, NotALedger
from benchledger.ledger import pg_identity, pg_schema
from benchledger.ledger.backend import Cursor
from benchledger.ledger.mapper import ROW_COLUMNS
from benchledger.ledger.urls import display_url

__all__ = ["PostgresConnection", "SessionLimits", "connect", "lock_holders", "lock_key", "storage_error"]

CONNECT_TIMEOUT_S = 10


class SessionLimits(BaseModel):
    """How long a session benchledger opens on a PostgreSQL ledger may wait: the one place these
    defaults live. A URL's own `options=-clock_timeout...` (or the role's settings) wins."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    read_lock_timeout_s: int = Field(default=10, ge=1)
    """Seconds a reading session waits for a table lock (only the owner's migration or a superuser
    takes one a reader must wait for; a migration takes well under a second)."""
    write_lock_timeout_s: int = Field(default=60, ge=1)
    """Seconds a writing session waits for another writer to release the ledger's tail."""
    statement_timeout_s: int = Field(default=300, ge=1)
    """Seconds any one statement may run (a page of events, a batch of appends, a migration)."""


LIMITS = SessionLimits()


class LockHolder(NamedTuple):
    """Who held up a session, found after its wait ended (`lock_holders`)."""

    who: str
    """`role NAME (backend PID, in a transaction since HH:MM:SS UTC)`."""
    what: str
    """What it holds: `holds a lock on table views (AccessExclusiveLock)`, or `holds the ledger's tail`."""
    tail: bool
    """It is the writer holding the ledger's tail (the wait every writer takes turns at)."""
_STRONG_MODES = ("ShareUpdateExclusiveLock", "ShareLock", "ShareRowExclusiveLock", "ExclusiveLock",
                 "AccessExclusiveLock")
"""Table lock modes, weakest first, that hold up a reader's SELECT or a writer's INSERT (PostgreSQL's
conflict table); ROW SHARE and ROW EXCLUSIVE, all an INSERT grant allows, hold up neither."""
_HOLDERS = """SELECT c.relname, l.mode, l.granted, a.usename, l.pid, to_char(a.xact_start AT TIME ZONE 'UTC', 'HH24:MI:SS')
  FROM pg_locks l JOIN pg_class c ON c.oid = l.relation LEFT JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'relation' AND l.mode = ANY (%(modes)s) AND l.pid <> ALL (%(pids)s)
    AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = %(schema)s)
  ORDER BY l.granted DESC, array_position(%(modes)s, l.mode::text) DESC, l.pid LIMIT 1"""
_TAIL_HOLDER = """SELECT a.usename, l.pid, to_char(a.xact_start AT TIME ZONE 'UTC', 'HH24:MI:SS')
  FROM {tail} t JOIN pg_locks l ON l.locktype = 'transactionid' AND l.transactionid = t.xmax AND l.granted
  LEFT JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.pid <> ALL (%(pids)s) LIMIT 1"""
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


def _who(user: object, pid: object, since: object) -> str:
    role = f"role {user}" if user else "a role this one may not see"
    return f"{role} (backend {pid}" + (f", in a transaction since {since} UTC)" if since else ")")


def lock_holders(url: str, schema: str, waiter_pid: int) -> LockHolder | None:
    """Who holds (or waits ahead for) what a session of `schema` waited for, or None.

    Asked on a connection of its own (the waiting session's transaction is aborted), after the
    wait ended: the strongest table lock another backend holds on a table of the schema, else
    one queued ahead, else the writer holding the ledger's tail row. Best effort: any failure to
    find out is None, and the caller says the lock timed out without naming anyone.
    """
    from psycopg import sql

    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=5,
                             application_name="benchledger (who holds the lock)") as conn:
            conn.execute("SET statement_timeout = '5s'")
            mine = conn.info.backend_pid
            params = {"modes": list(_STRONG_MODES), "pids": [waiter_pid, mine], "schema": schema}
            row = conn.execute(_HOLDERS, params).fetchone()
            if row is not None:
                table, mode, granted, user, pid, since = row
                held = "holds" if granted else "is queued for (every reader waits behind it)"
                return LockHolder(_who(user, pid, since), f"{held} a lock on table {table} ({mode})",
                                  tail=False)
            tail = sql.SQL(_TAIL_HOLDER).format(tail=sql.Identifier(schema, "ledger_tail"))
            row = conn.execute(tail, {"pids": [waiter_pid, mine]}).fetchone()
            if row is not None:
                return LockHolder(_who(*row), "holds the ledger's tail", tail=True)
    except psycopg.Error:
        return None
    return None


def storage_error(exc: Exception, where: str, action: str, *, holder: LockHolder | None = None,
                  timeout: str | None = None) -> LedgerError:
    """The typed error for a psycopg error raised while doing `action` on the ledger at `where`
    (`holder` and `timeout`, when known, name who held a lock the session waited for, and how long)."""
    if not isinstance(exc, psycopg.Error):
        return LedgerError(f"cannot {action} the ledger at {where}: {exc}")
    message = f"cannot {action} the ledger at {where}: {_message(exc)}"
    if isinstance(exc, (pg_errors.DataCorrupted, pg_errors.IndexCorrupted)):
        return LedgerCorrupt(f"{message}; the server reports damaged data: restore it from a backup")
    if exc.sqlstate == pg_identity.NOT_YOURS:
        return LedgerWriteFailed(f"{message}; its owner can let this role add to it with `benchledger ledger "
                                 "grant URL RUN ROLE`")
    if isinstance(exc, pg_errors.LockNotAvailable):
        waited = f"this session's lock_timeout ({timeout})" if timeout else "this session's lock_timeout"
        raise_it = "raise lock_timeout with options=-clock_timeout%3D120s in the URL"
        if holder is None or holder.tail:
            who = f" ({holder.who})" if holder else ""
            return LedgerWriteFailed(f"{message}; another writer{who} held the ledger's tail for longer than "
                                     f"{waited}: try again once it is done (or {raise_it})")
        return LedgerError(f"{message}: {holder.who} {holder.what}, for longer than {waited}; try again once "
                           f"it is done (a superuser can end it with pg_terminate_backend), or {raise_it}")
    if isinstance(exc, pg_errors.QueryCanceled):
        return LedgerError(f"{message}; a statement ran longer than this session's statement_timeout"
                           f"{f' ({timeout})' if timeout else ''}: raise it with options=-cstatement_timeout%3D30min "
                           "in the URL")
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

    def __init__(self, raw: psycopg.Connection[Any], where: str, schema: str, url: str = "") -> None:
        self._raw, self.where, self.schema, self._url = raw, where, schema, url

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
        if isinstance(exc, (pg_errors.LockNotAvailable, pg_errors.QueryCanceled)):
            name = "lock_timeout" if isinstance(exc, pg_errors.LockNotAvailable) else "statement_timeout"
            timeout = self._setting(name)
            holder = (lock_holders(self._url, self.schema, self._raw.info.backend_pid)
                      if name == "lock_timeout" and self._url else None)
            return storage_error(exc, self.where, action, holder=holder, timeout=timeout)
        return storage_error(exc, self.where, action)

    def _setting(self, name: str) -> str | None:
        """A setting of this session (None when the session cannot say: it is mid-pipeline or gone)."""
        if self._raw.closed or self._raw.pgconn.pipeline_status != pq.PipelineStatus.OFF:
            return None
        try:
            if self.in_transaction:
                self._raw.execute("ROLLBACK")  # a failed transaction answers nothing else
            row = self._raw.execute("SELECT current_setting(%s)", (name,)).fetchone()
        except psycopg.Error:
            return None
        return str(row[0]) if row else None

    def is_damaged(self, exc: Exception) -> bool:
        return isinstance(exc, (pg_errors.DataCorrupted, pg_errors.IndexCorrupted))


def _limit(raw: psycopg.Connection[Any], name: str, seconds: int) -> None:
    """Set `name` to `seconds` unless the URL (or the role, or the server) already set it."""
    if raw.execute("SELECT current_setting(%s)", (name,)).fetchone() == ("0",):
        raw.execute(f"SET {name} = '{int(seconds)}s'")


def connect(url: str, *, read_only: bool = False, limits: SessionLimits = LIMITS) -> PostgresConnection:
    """A connection to the server and schema the URL names (not yet checked to hold a ledger),
    whose waits are bounded by `limits` (the reading or the writing lock timeout, by `read_only`).

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
        _limit(raw, "lock_timeout", limits.read_lock_timeout_s if read_only else limits.write_lock_timeout_s)
        _limit(raw, "statement_timeout", limits.statement_timeout_s)
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
    return PostgresConnection(raw, where, str(row[0]), url)
