"""A SQLite connection to a ledger file, with SQLite's side of `backend.LedgerConnection`.

A subclass of `sqlite3.Connection` (passed as the `factory` of `sqlite3.connect`), so the hot
path calls SQLite directly. Its schema check compares the file's whole schema with what the
applied migrations create in an empty database in memory (`migrations.expected_schema`): tables
with their columns and constraints, SQLite's indexes for UNIQUE constraints, indexes and guard
triggers. `sqlite_sequence` remembers the largest seq ever issued.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from benchledger.errors import LedgerError
from benchledger.ledger import migrations
from benchledger.ledger.mapper import ROW_COLUMNS
from benchledger.ledger.sqlite_errors import storage_error

__all__ = ["SqliteConnection"]

_PREFIX_END = "\U0010ffff"  # sorts after every character, bounding a prefix range scan
_DAMAGED = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


class SqliteConnection(sqlite3.Connection):
    """See the module docstring; `where` is set by the opener (`ledger.connection`)."""

    where = ""
    errors: tuple[type[Exception], ...] = (sqlite3.Error,)
    integrity_errors: tuple[type[Exception], ...] = (sqlite3.IntegrityError,)
    bytes_columns = ROW_COLUMNS.replace("payload", "CAST(payload AS BLOB)")
    blob_encoding = "zlib"
    records_writers = False
    issued_seq_sql = "SELECT seq FROM sqlite_sequence WHERE name = 'events'"

    def check_writers(self, run_id: str | None) -> tuple[int, str] | None:
        return None  # a file records no writer: its permissions are the file's

    def begin_read(self) -> None:
        self.execute("BEGIN")

    def begin_write(self) -> None:
        self.execute("BEGIN IMMEDIATE")

    def chain_columns(self) -> str:
        return migrations.chain_columns(self)

    def check_schema(self) -> str | None:
        expected = migrations.expected_schema(frozenset(migrations.applied(self)))
        found = migrations.schema_of(self)
        for name in migrations.GUARD_TRIGGERS:
            key = ("trigger", name)
            if key not in expected:
                continue
            if key not in found:
                return f"guard trigger {name} is missing: the ledger is no longer protected as append-only"
            if found[key] != expected[key]:
                return f"guard trigger {name} was altered: the ledger is no longer protected as append-only"
        for (type_, name), sql in sorted(expected.items()):
            if (type_, name) not in found:
                return f"{type_} {name} is missing from the ledger's schema"
            if found[(type_, name)] != sql:
                return (f"{type_} {name} differs from the expected schema: its columns, constraints "
                        "or definition were changed")
        for type_, name in sorted(set(found) - set(expected)):
            return f"unexpected {type_} {name} in the ledger's schema"
        return None

    def issued_seq(self) -> int:
        row = self.execute(self.issued_seq_sql).fetchone()
        return int(row[0]) if row else 0

    def check_storage(self) -> str | None:
        found = [message for (message,) in self.execute("PRAGMA quick_check")]
        return None if found == ["ok"] else f"the file is damaged: {found[0]}; restore it from a copy"

    def has_responses(self) -> bool:
        if getattr(self, "_has_responses", False):  # a migration adds the table and nothing removes it
            return True
        found = self.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'responses'"
                             ).fetchone() is not None
        self._has_responses = found
        return found

    def json_text(self, column: str, path: Sequence[str]) -> str:
        return f"json_extract({column}, '$.{'.'.join(path)}')"

    def json_values(self, column: str, path: Sequence[str]) -> str:
        return f"json_each({column}, '$.{'.'.join(path)}')"

    def prefix_match(self, column: str, prefix: str) -> tuple[str, tuple[str, ...]]:
        return f"{column} >= ? AND {column} < ?", (prefix, prefix + _PREFIX_END)

    def storage_error(self, exc: Exception, action: str) -> LedgerError:
        return storage_error(exc, self.where, action)

    def is_damaged(self, exc: Exception) -> bool:
        return isinstance(exc, sqlite3.DatabaseError) and (
            (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF) in _DAMAGED
