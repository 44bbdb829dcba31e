"""Scope leases: several runs may share one memory scope; only the last one out purges it.

Scopes are deterministic (`benchmark:<name>:<subset>:<fingerprint>`), so two runs of the same
corpus into the same memory store meet in one scope. Without leases the first run to finish would
purge it while the other still recalls, and that run's later questions would be answered from an
empty context and scored as wrong. Each run holds a lease on its scopes (a row in a small SQLite
file beside the memory store, with the holder's host and pid); purging releases the run's lease
and removes the scope only when no live holder remains. A holder whose process is gone (a crash)
no longer counts. Leases are local to one machine: runs on several hosts sharing one remote memory
server are not coordinated.
"""

from __future__ import annotations

import os
import socket
import sqlite3
from pathlib import Path

from benchledger.clock import now_iso

__all__ = ["ScopeLeases"]


def _alive(host: str, pid: int) -> bool:
    if host != socket.gethostname():
        return True  # cannot tell from here: assume it still runs
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ScopeLeases:
    def __init__(self, memory_store: Path) -> None:
        path = Path(str(memory_store) + ".leases")
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(path, isolation_level=None, timeout=30)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("""CREATE TABLE IF NOT EXISTS scope_leases (
            scope TEXT NOT NULL, run_id TEXT NOT NULL, host TEXT NOT NULL, pid INTEGER NOT NULL,
            acquired_at TEXT NOT NULL, PRIMARY KEY (scope, run_id))""")

    def acquire(self, scope: str, run_id: str) -> None:
        self._conn.execute(
            "INSERT OR REPLACE INTO scope_leases VALUES (?, ?, ?, ?, ?)",
            (scope, run_id, socket.gethostname(), os.getpid(), now_iso()))

    def release(self, scope: str, run_id: str) -> list[str]:
        """Drop this run's lease; return the other runs still holding the scope (alive ones)."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            self._conn.execute("DELETE FROM scope_leases WHERE scope = ? AND run_id = ?", (scope, run_id))
            others = []
            for other, host, pid in self._conn.execute(
                    "SELECT run_id, host, pid FROM scope_leases WHERE scope = ?", (scope,)).fetchall():
                if _alive(host, pid):
                    others.append(other)
                else:
                    self._conn.execute("DELETE FROM scope_leases WHERE scope = ? AND run_id = ?", (scope, other))
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        return sorted(others)

    def close(self) -> None:
        self._conn.close()
