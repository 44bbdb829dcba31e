"""Where a run's chain and the ledger's chain end, and the event row as both writers insert it.

An append (`writer`) and a copy from another ledger (`copies`) both continue the run from its
last row (`run_tail`) and the ledger from its last seq and ledger value (`ledger_tail`), inside
the write transaction that holds the ledger's tail, and insert rows with `INSERT_EVENT` (every
row written now is chain version 2, `ledger.chain`).
"""

from __future__ import annotations

from collections.abc import Callable

from benchledger.ledger.backend import LedgerConnection
from benchledger.ledger.chain import GENESIS, ledger_value

__all__ = ["INSERT_EVENT", "run_tail", "ledger_tail", "asked_ledger_tail"]

INSERT_EVENT = """INSERT INTO events (seq, run_id, position, type, schema_version, recorded_at,
    idempotency_key, payload, prev_hash, hash, chain, link)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 2, ?)"""


def run_tail(conn: LedgerConnection, run_id: str) -> tuple[int, str]:
    """(last position, last hash) of the run: (0, GENESIS) for a new one."""
    last = conn.execute("SELECT position, hash FROM events WHERE run_id = ? ORDER BY position DESC "
                        "LIMIT 1", (run_id,)).fetchone()
    return (int(last[0]), str(last[1])) if last else (0, GENESIS)


def ledger_tail(conn: LedgerConnection) -> tuple[int, str]:
    """(seq after which the next row goes, the ledger value it chains to).

    Past the largest seq ever issued, too: a seq is never used twice, even after the newest
    rows were deleted by hand (so `verify` keeps seeing that they were).
    """
    return asked_ledger_tail(conn)()


def asked_ledger_tail(conn: LedgerConnection, chain_columns: str | None = None) -> Callable[[], tuple[int, str]]:
    """`ledger_tail` in two steps: its queries are sent now, their answers read by the call returned
    (so a pipelining connection sends them with whatever else is asked before it). `chain_columns`
    is `conn.chain_columns()` where the caller knows it already."""
    head_rows = conn.execute(f"SELECT seq, {chain_columns or conn.chain_columns()}, hash FROM events "
                             "ORDER BY seq DESC LIMIT 1")
    issued_rows = conn.execute(conn.issued_seq_sql)

    def answer() -> tuple[int, str]:
        head, issued = head_rows.fetchone(), issued_rows.fetchone()
        seq = max(int(issued[0]) if issued else 0, int(head[0]) if head else 0)
        return seq, ledger_value(head[1], head[3], head[2]) if head else GENESIS

    return answer
