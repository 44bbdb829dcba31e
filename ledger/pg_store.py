"""Opening a PostgreSQL ledger, setting one up (`init_postgres`), and its one writer per run.

`open_postgres(url)` gives `Ledger` what `Ledger.open` builds for a file: a reader over a
read-only session (`default_transaction_read_only`), a writer whose connection is opened at
the first write, and the run's writer lock. The schema must already hold a ledger at the
current migration: a writer role cannot create or migrate one (it does not own the schema),
and a shared ledger should not appear by accident where a URL was mistyped, so opening never
creates; `benchledger ledger init URL` (as the schema's owner) does, in one transaction under
an advisory lock, and grants the writer and reader roles it is given exactly their rights.

One writer per run is a session-level advisory lock named after the schema, the run id and the
ledger's `writer_secret` (which only writer roles may read, so no one else can compute the key
and hold a run up; `pg_identity`), taken with `pg_try_advisory_lock` on a connection of its own: it is free again when the block
ends, or when that session ends however the process ends. As with the file lock, a second hold
of the same run from this process is refused too (PostgreSQL would let one session take its own
lock twice).

Writes go in pipeline mode (`PostgresConnection.pipeline`): an append asks for the tail lock, the
batch's recorded keys and the run's and ledger's tails together and reads the answers once, then
sends its rows, blobs, responses and views with the commit: two round trips for a batch of any
size (three when the run's seal must be replayed, `ledger.known_tails`), where each statement
was one before. The server checks every row as it did (its triggers run on each insert).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

from psycopg import errors as pg_errors

from benchledger.errors import BadInput, LedgerError, NotALedger, RunBusy
from benchledger.ledger import pg_schema
from benchledger.ledger.backend import LedgerConnection
from benchledger.ledger.migrations import FORMAT, Migration
from benchledger.ledger.pg_connection import PostgresConnection, connect, lock_key
from benchledger.ledger.reader import SqlEventReader
from benchledger.ledger.runs import resolve_run
from benchledger.ledger.writer import SqlEventWriter

__all__ = ["open_postgres", "init_postgres", "grant_run", "AdvisoryRunLocks"]


def _tables(conn: PostgresConnection) -> set[str]:
    return {name for (name,) in conn.execute(
        "SELECT relname FROM pg_class WHERE relkind IN ('r', 'p', 'v') AND relnamespace = "
        "(SELECT oid FROM pg_namespace WHERE nspname = current_schema())")}


def _applied(conn: PostgresConnection) -> set[int] | None:
    """The migrations the schema records, or None when it holds no ledger (NotALedger if foreign)."""
    tables = _tables(conn)
    if not tables:
        return None
    mark = None
    if {"meta", "schema_migrations"} <= tables:
        row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        mark = row[0] if row else None
    if mark != FORMAT:
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise NotALedger(f"schema {conn.schema} at {conn.where} holds tables ({shown}) but no benchledger "
                         "ledger; name another schema with options=-csearch_path=NAME")
    return {int(number) for (number,) in conn.execute("SELECT number FROM schema_migrations")}


def _pending(conn: PostgresConnection, applied: set[int]) -> list[Migration]:
    newest = max(migration.number for migration in pg_schema.MIGRATIONS)
    if applied and max(applied) > newest:
        raise LedgerError(f"the ledger at {conn.where} was written by a newer benchledger (schema "
                          f"migration {max(applied)}, this version knows up to {newest}); upgrade benchledger")
    return [migration for migration in pg_schema.MIGRATIONS if migration.number not in applied]


def _open_checked(url: str, *, read_only: bool) -> PostgresConnection:
    """A connection to a schema holding an up-to-date ledger; NotALedger / LedgerError otherwise."""
    conn = connect(url, read_only=read_only)
    try:
        applied = _applied(conn)
        if applied is None:
            raise NotALedger(f"no ledger in schema {conn.schema} at {conn.where}; create one with "
                             "`benchledger ledger init URL` as the schema's owner")
        if pending := _pending(conn, applied):
            raise LedgerError(f"the ledger at {conn.where} lacks migration {pending[0].name}; apply it with "
                              "`benchledger ledger init URL` as the schema's owner")
    except BaseException as exc:
        conn.close()
        if isinstance(exc, conn.errors):
            raise conn.storage_error(exc, "open") from None
        raise
    return conn


class AdvisoryRunLocks:
    """The run writer locks of one `Ledger` on a server; see the module docstring."""

    def __init__(self, url: str, schema: str) -> None:
        self._url, self._schema = url, schema
        self._conn: PostgresConnection | None = None
        self._held: set[str] = set()
        self._guard = threading.Lock()
        self._secret: str | None = None

    def _key(self, conn: PostgresConnection, run_id: str) -> int:
        if self._secret is None:
            row = conn.execute("SELECT secret FROM writer_secret").fetchone()
            self._secret = str(row[0]) if row else ""
        return lock_key(f"benchledger:run:{self._schema}:{self._secret}:{run_id}")

    @contextmanager
    def hold(self, run_id: str) -> Iterator[None]:
        """Hold the run's writer lock for the block; RunBusy if anyone else holds it."""
        with self._guard:
            if run_id in self._held:
                raise RunBusy(f"run {run_id} is being written by this process; wait for it to finish, "
                              "then try again")
            conn = self._conn = self._conn or connect(self._url)
            try:
                (taken,) = conn.execute("SELECT pg_try_advisory_lock(?::bigint)",
                                        (self._key(conn, run_id),)).fetchone()
            except conn.errors as exc:
                raise conn.storage_error(exc, f"lock run {run_id} in") from None
            if not taken:
                raise RunBusy(f"run {run_id} is being written by another process (on this machine or "
                              "another); wait for it to finish (or stop it), then try again")
            self._held.add(run_id)
        try:
            yield
        finally:
            with self._guard:
                self._held.discard(run_id)
                try:
                    conn.execute("SELECT pg_advisory_unlock(?::bigint)", (self._key(conn, run_id),))
                except conn.errors:
                    pass  # the session is gone, and its locks with it

    def close(self) -> None:
        with self._guard:
            if self._conn is not None:
                self._conn.close()  # releases any lock still held
                self._conn = None


def _pipelined(conn: LedgerConnection) -> AbstractContextManager[object]:
    assert isinstance(conn, PostgresConnection)
    return conn.pipeline()


def open_postgres(url: str) -> tuple[SqlEventWriter, SqlEventReader, str, Callable[[], None]]:
    """(writer, reader, where, on_close) of the ledger at the URL, for `Ledger`."""
    conn = _open_checked(url, read_only=True)
    locks = AdvisoryRunLocks(url, conn.schema)
    writer = SqlEventWriter(lambda: _open_checked(url, read_only=False), locks.hold, pipelined=_pipelined)
    return writer, SqlEventReader(conn), conn.where, locks.close


def _identifier(conn: PostgresConnection, name: str) -> str:
    (quoted,) = conn.execute("SELECT quote_ident(?)", (name,)).fetchone()
    return str(quoted)


def init_postgres(url: str, *, writers: tuple[str, ...] = (), readers: tuple[str, ...] = ()) -> list[str]:
    """Create or migrate the ledger in the URL's schema, and grant the roles their rights.

    Runs as the role the URL names, which must own the schema (or may create in it); all in one
    transaction under an advisory lock, so two inits at once apply each migration once. Returns
    the names of the migrations applied (empty when the ledger was up to date).
    """
    conn = connect(url)
    try:
        conn.execute("BEGIN")
        conn.execute("SELECT pg_advisory_xact_lock(?::bigint)", (lock_key(pg_schema.init_lock_key(conn.schema)),))
        applied = _applied(conn) or set()
        names = []
        for migration in _pending(conn, applied):
            for statement in migration.statements:
                conn.execute(statement)
            for statement, params in pg_schema.migration_rows(migration):
                conn.execute(statement, params)
            names.append(migration.name)
        schema = _identifier(conn, conn.schema)
        for role in writers:
            for statement in pg_schema.writer_grants(schema, _identifier(conn, role)):
                conn.execute(statement)
        for role in readers:
            for statement in pg_schema.reader_grants(schema, _identifier(conn, role)):
                conn.execute(statement)
        conn.execute("COMMIT")
        return names
    except conn.errors as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        if isinstance(exc, pg_errors.UndefinedObject):  # a role to grant to does not exist
            raise BadInput(f"{conn.storage_error(exc, 'set up')}; create the role first (see the README's "
                           "role set-up)", field="writer/reader") from None
        raise conn.storage_error(exc, "set up") from None
    finally:
        conn.close()


def grant_run(url: str, run_ref: str, role: str) -> str:
    """Let `role` add to a run (a resume or a rejudge of it): run as the run's owner, the role that
    started it; the server refuses anyone else (`pg_identity`). Returns the run's id."""
    conn = _open_checked(url, read_only=False)
    try:
        run_id = resolve_run(conn, run_ref)
        conn.execute("INSERT INTO run_grants (run_id, grantee, granted_by, granted_at) VALUES (?, ?, '', '') "
                     "ON CONFLICT (run_id, grantee) DO NOTHING", (run_id, role))
        return run_id
    except conn.errors as exc:
        raise conn.storage_error(exc, f"grant run {run_ref} in") from None
    finally:
        conn.close()
