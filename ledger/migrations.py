"""Numbered schema migrations of the ledger file, applied in order and recorded.

A ledger is a plain SQLite file marked by `PRAGMA application_id` and a `meta` row, so sqlite3
and Datasette open it as is. `schema_migrations` lists what was applied; `migrate` applies the
rest inside the caller's write transaction, so several processes opening one new file at once
create it exactly once. A migration is never edited after release: a change is a new number.
Readers never migrate: an older ledger is read under the schema it has (`pending` says what it
lacks) and migrated by the first write.

The guard triggers are part of the schema (`GUARD_TRIGGERS`). They make the database itself
refuse UPDATE and DELETE on `events`, `blobs` and `responses`, and refuse an INSERT that would
collide with an existing row, which is how `INSERT OR REPLACE` is stopped even on a connection
that never set `recursive_triggers` (without it, SQLite deletes the old row on REPLACE without
firing the DELETE trigger). `expected_schema` is what `verify` compares the file's whole schema
with: the same migrations applied to an empty database in memory.

m002 adds the guarded response cache `responses`: one append-only row per request digest, tied
to the chained event that first recorded the response (see `ledger.cache`). m001's unguarded
`cache` table is frozen as it was: its rows have no recording event and are never served.

m003 adds the chain version of each row (`chain`, 1 for every row written before it) and the
ledger-wide `link` of version-2 rows (see `ledger.chain`): rows appended after it link to the
previous row of their run, so a run keeps its hashes when it is copied to another ledger. Rows
already written keep their bytes and verify under their own rule. `chain_columns` says how a
reader selects the two columns from a ledger that may not have them yet.
"""

from __future__ import annotations

import sqlite3
from functools import lru_cache
from typing import NamedTuple

from benchledger import clock
from benchledger.errors import LedgerError

__all__ = [
    "APPLICATION_ID", "FORMAT", "Migration", "MIGRATIONS", "GUARD_TRIGGERS", "applied", "pending",
    "migrate", "initialise", "expected_schema", "chain_columns",
]

APPLICATION_ID = 0x424C4447  # "BLDG"
FORMAT = "benchledger-ledger"

_M001_GUARDS: dict[str, str] = {
    "events_no_update": """CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE refused'); END""",
    "events_no_delete": """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE refused'); END""",
    "events_no_replace": """CREATE TRIGGER events_no_replace BEFORE INSERT ON events
WHEN EXISTS (SELECT 1 FROM events WHERE seq = NEW.seq)
  OR EXISTS (SELECT 1 FROM events WHERE run_id = NEW.run_id AND position = NEW.position)
  OR EXISTS (SELECT 1 FROM events WHERE run_id = NEW.run_id
             AND idempotency_key = NEW.idempotency_key)
BEGIN SELECT RAISE(ABORT, 'events are append-only: this row already exists'); END""",
    "blobs_no_update": """CREATE TRIGGER blobs_no_update BEFORE UPDATE ON blobs
BEGIN SELECT RAISE(ABORT, 'blobs are append-only: UPDATE refused'); END""",
    "blobs_no_delete": """CREATE TRIGGER blobs_no_delete BEFORE DELETE ON blobs
BEGIN SELECT RAISE(ABORT, 'blobs are append-only: DELETE refused'); END""",
    # A blob is content-addressed, so a second insert of the same digest is silently skipped.
    "blobs_insert_if_absent": """CREATE TRIGGER blobs_insert_if_absent BEFORE INSERT ON blobs
WHEN EXISTS (SELECT 1 FROM blobs WHERE digest = NEW.digest)
BEGIN SELECT RAISE(IGNORE); END""",
}

_M002_GUARDS: dict[str, str] = {
    "responses_no_update": """CREATE TRIGGER responses_no_update BEFORE UPDATE ON responses
BEGIN SELECT RAISE(ABORT, 'cached responses are append-only: UPDATE refused'); END""",
    "responses_no_delete": """CREATE TRIGGER responses_no_delete BEFORE DELETE ON responses
BEGIN SELECT RAISE(ABORT, 'cached responses are append-only: DELETE refused'); END""",
    # The first recording of a response wins; a later insert of the same request is skipped.
    "responses_insert_if_absent": """CREATE TRIGGER responses_insert_if_absent BEFORE INSERT ON responses
WHEN EXISTS (SELECT 1 FROM responses WHERE request_digest = NEW.request_digest)
BEGIN SELECT RAISE(IGNORE); END""",
    "cache_frozen_insert": """CREATE TRIGGER cache_frozen_insert BEFORE INSERT ON cache
BEGIN SELECT RAISE(ABORT, 'the m001 cache is frozen: responses are cached in responses'); END""",
    "cache_frozen_update": """CREATE TRIGGER cache_frozen_update BEFORE UPDATE ON cache
BEGIN SELECT RAISE(ABORT, 'the m001 cache is frozen: UPDATE refused'); END""",
    "cache_frozen_delete": """CREATE TRIGGER cache_frozen_delete BEFORE DELETE ON cache
BEGIN SELECT RAISE(ABORT, 'the m001 cache is frozen: DELETE refused'); END""",
}

GUARD_TRIGGERS: dict[str, str] = {**_M001_GUARDS, **_M002_GUARDS}
"""Every guard trigger of the current schema, by name."""


class Migration(NamedTuple):
    number: int
    name: str
    statements: tuple[str, ...]


_M001 = (
    """CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)""",
    """CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    position INTEGER NOT NULL CHECK (position >= 1),
    type TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    recorded_at TEXT NOT NULL,
    idempotency_key TEXT,
    payload TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    UNIQUE (run_id, position),
    UNIQUE (run_id, idempotency_key)
)""",
    # Lets `runs` find each run's start and finish without scanning its events.
    """CREATE INDEX events_run_markers ON events (run_id, type, position)
    WHERE type IN ('RunStarted', 'RunFinished')""",
    """CREATE TABLE blobs (
    digest TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    encoding TEXT NOT NULL,
    body BLOB NOT NULL
)""",
    """CREATE TABLE cache (
    key TEXT PRIMARY KEY,
    response TEXT NOT NULL,
    model TEXT NOT NULL,
    created_at TEXT NOT NULL
)""",
    """CREATE TABLE views (
    run_id TEXT NOT NULL,
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    position INTEGER NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run_id, name, version)
)""",
    *_M001_GUARDS.values(),
)

_M002 = (
    """CREATE TABLE responses (
    request_digest TEXT PRIMARY KEY,
    response TEXT NOT NULL,
    response_digest TEXT NOT NULL,
    model TEXT NOT NULL,
    run_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    recorded_at TEXT NOT NULL
)""",
    *_M002_GUARDS.values(),
)

_M003 = (
    "ALTER TABLE events ADD COLUMN chain INTEGER NOT NULL DEFAULT 1 CHECK (chain IN (1, 2))",
    "ALTER TABLE events ADD COLUMN link TEXT CHECK ((chain = 2) = (link IS NOT NULL))",
)

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "m001_initial", _M001),
    Migration(2, "m002_guarded_response_cache", _M002),
    Migration(3, "m003_run_chains", _M003),
)


def applied(conn: sqlite3.Connection) -> set[int]:
    """Numbers of the migrations recorded in this file (empty for a new file)."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if not exists:
        return set()
    return {number for (number,) in conn.execute("SELECT number FROM schema_migrations")}


def initialise(conn: sqlite3.Connection) -> None:
    """Mark a new, empty database as a ledger. Call inside the caller's write transaction."""
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("""CREATE TABLE schema_migrations (
    number INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)""")


def pending(conn: sqlite3.Connection, path: str) -> list[Migration]:
    """The migrations this file lacks, in order; LedgerError for a file from a newer benchledger."""
    done = applied(conn)
    newest = max(migration.number for migration in MIGRATIONS)
    if done and max(done) > newest:
        raise LedgerError(
            f"{path} was written by a newer benchledger (schema migration {max(done)}, this "
            f"version knows up to {newest}); upgrade benchledger to open it"
        )
    return [migration for migration in MIGRATIONS if migration.number not in done]


def migrate(conn: sqlite3.Connection, path: str) -> list[str]:
    """Apply the migrations this file lacks, in order; return their names.

    Call inside the caller's write transaction (BEGIN IMMEDIATE), so it is all or nothing.
    """
    names = []
    for migration in pending(conn, path):
        for statement in migration.statements:
            conn.execute(statement)
        conn.execute(
            "INSERT INTO schema_migrations (number, name, applied_at) VALUES (?, ?, ?)",
            (migration.number, migration.name, clock.now_iso()),
        )
        if migration.number == 1:
            conn.execute("INSERT INTO meta (key, value) VALUES ('format', ?)", (FORMAT,))
            conn.execute("INSERT INTO meta (key, value) VALUES ('created_at', ?)",
                         (clock.now_iso(),))
        names.append(migration.name)
    return names


@lru_cache(maxsize=8)
def expected_schema(numbers: frozenset[int]) -> dict[tuple[str, str], str | None]:
    """(type, name) -> normalised SQL of every schema object the given migrations create.

    Built by applying them to an empty database in memory, so it holds exactly what the file
    should: tables with their columns and constraints, SQLite's own indexes for UNIQUE
    constraints, `sqlite_sequence`, indexes and triggers.
    """
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        initialise(conn)
        for migration in MIGRATIONS:
            if migration.number in numbers:
                for statement in migration.statements:
                    conn.execute(statement)
        return schema_of(conn)
    finally:
        conn.close()


def chain_columns(conn: sqlite3.Connection) -> str:
    """`chain, link` as a select list: the columns, or constants on a ledger m003 has not reached."""
    return "chain, link" if 3 in applied(conn) else "1 AS chain, NULL AS link"


def schema_of(conn: sqlite3.Connection) -> dict[tuple[str, str], str | None]:
    """(type, name) -> normalised SQL of every schema object (statistics tables left out)."""
    return {(type_, name): " ".join(sql.split()) if sql else None
            for type_, name, sql in conn.execute("SELECT type, name, sql FROM sqlite_master")
            if not name.startswith("sqlite_stat")}
