"""The ledger in Datasette, read-only: `benchledger view`.

The ledger file is opened with SQLite's `mode=ro` (it sees appends still in the WAL, which
`immutable` would not) and `PRAGMA query_only`, so nothing the browser does can write to it. On
each connection the payload views of `projections.ledger_sql` are created as TEMP views (in
memory, never in the file) and `zlib_text(body)` is registered to read blob bodies; Datasette
lists them beside the tables (it reads `sqlite_master` only, so `LedgerDatabase` adds the temp
schema). Titles and descriptions for every table, view and column, and the canned queries, come
from the same module. Datasette is an optional extra (`pip install -e '.[view]'`).
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

from benchledger.errors import BadInput, NotALedger
from benchledger.orchestration.browse_front import front_door_plugin, ledger_kinds
from benchledger.orchestration.browse_limits import CONCURRENCY, DATASETTE_SETTINGS, connect_bounded
from benchledger.projections.ledger_sql import (
    CANNED_QUERIES, ZLIB_TEXT, accuracy_pivot, documentation, view_statements, zlib_text,
)

__all__ = ["DATABASE_NAME", "metadata", "build_datasette", "serve", "bind", "login_url"]

DATABASE_NAME = "ledger"


def _datasette():
    try:
        import datasette.app
        import datasette.database
    except ImportError:
        raise BadInput("benchledger view needs Datasette: pip install -e '.[view]' (or pip install "
                       "'benchledger[view]')") from None
    return datasette.app, datasette.database


def metadata(ledger_path: Path) -> dict[str, Any]:
    """Datasette metadata: titles and descriptions of every table, view and column; the canned queries."""
    tables = {name: {"title": title, "description": description, "columns": columns}
              for name, (title, description, columns) in documentation().items()}
    tables["events"]["sort_desc"] = "seq"
    canned = {**CANNED_QUERIES, "accuracy_pivot": accuracy_pivot(ledger_kinds(ledger_path))}
    queries = {name: {"title": q.title, "description": q.description, "sql": q.sql, "hide_sql": True}
               for name, q in canned.items()}
    return {
        "title": "benchledger",
        "extra_css_urls": ["/-/benchledger.css"],
        "description": f"The ledger {ledger_path.name}, read-only. Events are append-only and hash-chained; the "
                       "views unpack their payloads into columns; the queries answer the usual questions.",
        "databases": {DATABASE_NAME: {
            "description": "Tables of the store, views over the events (each column documented from the event "
                           "models), and canned queries. Nothing here can change the file.",
            "tables": tables, "queries": queries}},
    }


def build_datasette(ledger_path: Path, *, locked: bool = False):
    """A Datasette instance serving the ledger read-only (no other database), bounded as
    `browse_limits` states; `locked`: only the root actor (Datasette's `--root` login) sees a page."""
    app, database = _datasette()
    ledger_path = Path(ledger_path)

    class LedgerDatabase(database.Database):  # type: ignore[name-defined]  # datasette is untyped
        """The ledger opened read-only, with the payload views as TEMP views on every connection."""

        def connect(self, write: bool = False):
            if write:
                raise PermissionError("the ledger is served read-only")
            conn = connect_bounded(ledger_path)
            self._all_file_connections.append(conn)
            conn.create_function(ZLIB_TEXT, 1, zlib_text, deterministic=True)
            for statement in view_statements():
                conn.execute(statement)
            conn.execute("PRAGMA query_only = 1")
            return conn

        async def view_names(self):
            result = await self.execute("SELECT name FROM sqlite_master WHERE type = 'view' UNION ALL "
                                        "SELECT name FROM sqlite_temp_master WHERE type = 'view'")
            return [row[0] for row in result.rows]

        async def get_table_definition(self, table, type_="table"):
            if type_ == "view":
                rows = list(await self.execute("SELECT sql FROM sqlite_temp_master WHERE type = 'view' AND name = ?",
                                               [table]))
                if rows:
                    return rows[0][0] + ";"
            return await super().get_table_definition(table, type_)

    meta = metadata(ledger_path)
    if locked:
        meta["allow"] = {"id": "root"}  # every page needs the one-time login `view --expose` prints
    ds = app.Datasette(metadata=meta, settings=DATASETTE_SETTINGS)
    front_door_plugin(ds, DATABASE_NAME)
    ds.remove_database("_memory")
    ds.add_database(LedgerDatabase(ds, path=str(ledger_path), is_mutable=True), name=DATABASE_NAME)
    return ds


def login_url(ds, host: str, port: int) -> str:
    """Datasette's one-time root login (its `--root`): opening it sets the cookie every page then needs."""
    return f"http://{host}:{port}/-/auth-token?token={ds._root_token}"


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: a free one); BadInput naming the port if it is taken."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        raise BadInput(f"cannot listen on {host}:{port}: {err.strerror or err}; pass another --port",
                       field="port") from None
    sock.listen(128)
    return sock


def serve(ds, sock: socket.socket) -> None:
    """Serve until interrupted (Ctrl-C or SIGTERM)."""
    import uvicorn

    asyncio.run(ds.invoke_startup())
    server = uvicorn.Server(uvicorn.Config(ds.app(), log_level="warning", lifespan="off",
                                           limit_concurrency=CONCURRENCY))
    server.run(sockets=[sock])


def check_ledger(path: Path) -> None:
    """NotALedger unless path is an existing ledger (the browser never creates one)."""
    from benchledger.ledger.store import Ledger

    with Ledger.open(path, create=False):
        pass
    if not path.exists():  # pragma: no cover - Ledger.open refuses it first
        raise NotALedger(f"no ledger at {path}")
