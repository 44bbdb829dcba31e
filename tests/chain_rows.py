"""Event rows written by hand, as someone holding a SQLite ledger file could: tests of the chain.

`append_legacy` appends rows under chain version 1 (each linked to the ledger's previous row,
as every benchledger before m003 wrote them); `relinked` recomputes every hash and link of a list
of rows under each row's own chain version, which is the consistent rewrite `verify` cannot see
from inside; `rewrite` puts such rows back into the file with the guard triggers dropped and
restored; `all_rows` reads them.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from benchledger.ledger.chain import CHAIN_RUN, GENESIS, ledger_link, ledger_value, link_hash
from benchledger.ledger.events import Event
from benchledger.ledger.mapper import event_row
from benchledger.ledger.migrations import GUARD_TRIGGERS, chain_columns

COLUMNS = ("seq, run_id, position, type, schema_version, recorded_at, idempotency_key, payload, "
           "prev_hash, hash, chain, link")
AT = "2025-01-01T00:00:00.000000Z"


def raw(path: Path) -> sqlite3.Connection:
    """A connection like the sqlite3 shell's: no pragmas set, autocommit."""
    return sqlite3.connect(path, isolation_level=None)


def all_rows(path: Path) -> list[tuple]:
    return raw(path).execute(f"SELECT {COLUMNS} FROM events ORDER BY seq").fetchall()


def append_legacy(path: Path, run_id: str, events: list[Event], recorded_at: str = AT) -> None:
    """Append events as chain version 1 rows (the ledger must exist, at any migration; its guards
    stay on)."""
    conn = raw(path)
    head = conn.execute(f"SELECT {chain_columns(conn)}, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
    prev = ledger_value(head[0], head[2], head[1]) if head else GENESIS
    (position,) = conn.execute("SELECT COALESCE(MAX(position), 0) FROM events WHERE run_id = ?",
                               (run_id,)).fetchone()
    for event in events:
        type_, version, key, payload = event_row(event)
        position += 1
        hash_ = link_hash(prev, run_id, position, type_, version, recorded_at, key, payload)
        conn.execute("INSERT INTO events (run_id, position, type, schema_version, recorded_at, "
                     "idempotency_key, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     (run_id, position, type_, version, recorded_at, key, payload.decode(), prev, hash_))
        prev = hash_
    conn.close()


def relinked(rows: list[tuple]) -> list[tuple]:
    """The rows (as `COLUMNS`, in order) with every prev_hash, hash and link recomputed."""
    value, heads, out = GENESIS, {}, []
    for seq, run_id, position, type_, version, at, key, payload, _, _, chain, _ in rows:
        prev = heads.get(run_id, GENESIS) if chain == CHAIN_RUN else value
        hash_ = link_hash(prev, run_id, position, type_, version, at, key, payload)
        link = ledger_link(value, hash_) if chain == CHAIN_RUN else None
        value = link or hash_
        heads[run_id] = hash_
        out.append((seq, run_id, position, type_, version, at, key, payload, prev, hash_, chain, link))
    return out


def rewrite(path: Path, rows: list[tuple], *, issued: int | None = None) -> None:
    """Replace every event row with `rows`, guards dropped and put back exactly as they were."""
    conn = raw(path)
    for name in GUARD_TRIGGERS:
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("DELETE FROM events")
    conn.executemany(f"INSERT INTO events ({COLUMNS}) VALUES ({', '.join('?' * 12)})", rows)
    if issued is not None:
        conn.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'events'", (issued,))
    for sql in GUARD_TRIGGERS.values():
        conn.execute(sql)
    conn.close()
