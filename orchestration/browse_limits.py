"""What one request to `benchledger view` may cost: the view's limits, stated once.

Datasette bounds time (`sql_time_limit_ms`) and rows (`max_returned_rows`) but not bytes: one
`select zeroblob(9e8)`, a `printf('%.*c', ...)` over a recursive CTE, or a facet over a payload
column made a served ledger grow to gigabytes. Here every layer has a ceiling:

- SQLite: no string or blob longer than `CELL_BYTES` (`SQLITE_LIMIT_LENGTH`, so SQLite itself
  refuses to build it) and a process-wide `hard_heap_limit` for its sorts and temp tables;
- Python: a cursor that stops a result set at `RESULT_BYTES` of JSON with an error
  Datasette shows as the query's error (a refusal, never a half page presented as whole);
- HTTP: Datasette's own settings (threads, page sizes, CSV size, facet time, cell truncation in
  HTML) and uvicorn's `limit_concurrency`, so many slow readers cannot each hold a result.

`tests/orchestration/test_view_bounds.py` fires the heaviest of these at a served ledger and holds
its peak resident memory under `PEAK_RSS_BYTES`.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

__all__ = ["CELL_BYTES", "RESULT_BYTES", "SQLITE_HEAP_BYTES", "CONCURRENCY", "PEAK_RSS_BYTES",
           "DATASETTE_SETTINGS", "connect_bounded", "ResultTooLarge"]

MiB = 1024 * 1024
CELL_BYTES = 4 * MiB
RESULT_BYTES = 8 * MiB
SQLITE_HEAP_BYTES = 256 * MiB
CONCURRENCY = 8
PEAK_RSS_BYTES = 512 * MiB

DATASETTE_SETTINGS: dict[str, Any] = {
    "default_page_size": 50,
    "max_returned_rows": 1000,
    "num_sql_threads": 2,
    "sql_time_limit_ms": 3000,
    "facet_time_limit_ms": 500,
    "facet_suggest_time_limit_ms": 50,
    "suggest_facets": False,
    "max_csv_mb": 32,
    "truncate_cells_html": 600,
    "allow_download": False,
    "default_cache_ttl": 0,
}


class ResultTooLarge(sqlite3.OperationalError):
    """A result set past RESULT_BYTES; an OperationalError so Datasette shows it as the query's error."""


def _cell_bytes(row: Any) -> int:
    """What a row costs in Datasette's JSON (a tuple or its sqlite3.Row): text as JSON escapes it (a
    control or non-ASCII character is six bytes there), blobs as base64, a little per cell."""
    values = tuple(row)
    size = 16 * len(values)
    for value in values:
        if isinstance(value, str):
            size += len(value) if value.isascii() and value.isprintable() else len(json.dumps(value))
        elif isinstance(value, bytes):
            size += 4 * len(value) // 3
    return size


class BoundedCursor(sqlite3.Cursor):
    """A cursor whose rows, together, stay under RESULT_BYTES of cell data."""

    _spent = 0

    def _count(self, row: Any) -> Any:
        if row is not None:
            self._spent += _cell_bytes(row)
            if self._spent > RESULT_BYTES:
                raise ResultTooLarge(
                    f"the result is over the view's {RESULT_BYTES // MiB} MiB limit: select fewer rows or "
                    "columns, or read one blob with `benchledger blob DIGEST`")
        return row

    def execute(self, sql: str, parameters: Any = (), /) -> BoundedCursor:
        self._spent = 0
        super().execute(sql, parameters)
        return self

    def fetchone(self) -> Any:
        return self._count(super().fetchone())

    def fetchmany(self, size: int | None = None) -> list[Any]:
        size = self.arraysize if size is None else size
        rows = []
        for _ in range(size):
            row = self.fetchone()
            if row is None:
                break
            rows.append(row)
        return rows

    def fetchall(self) -> list[Any]:
        return list(iter(self.fetchone, None))

    def __next__(self) -> Any:
        return self._count(super().__next__())


class BoundedConnection(sqlite3.Connection):
    """A connection whose cursors are bounded and whose strings and blobs stop at CELL_BYTES."""

    def cursor(self, factory: Any = BoundedCursor) -> Any:
        return super().cursor(factory)

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        return self.cursor().execute(sql, parameters)


def connect_bounded(path: Path) -> BoundedConnection:
    """The ledger opened read-only (`mode=ro`, sees the WAL), bounded as this module states."""
    conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False,
                           factory=BoundedConnection)
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, CELL_BYTES)
    conn.execute(f"PRAGMA hard_heap_limit = {SQLITE_HEAP_BYTES}")
    conn.execute("PRAGMA temp_store = FILE")
    return conn
