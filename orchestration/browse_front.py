"""The view's front door: what a person sees first in `benchledger view`.

Datasette's own home page lists databases; ours opens on the runs (`/` redirects to the canned
`runs` query, scores as percentages), every run id links to that run's events, in order, and a small
stylesheet lets long cells wrap so the canned queries need no horizontal scroll at 1400 px. It is
a Datasette plugin (routes, a stylesheet, cell rendering, limits' errors as 400s) registered once per process, since
Datasette's plugin manager is global; it serves only what `build_datasette` configured.
"""

from __future__ import annotations

import html
from urllib.parse import quote
import sqlite3
from pathlib import Path
from typing import Any

from benchledger.projections.ledger_sql import KINDS_SQL, ZLIB_TEXT, view_statements, zlib_text

__all__ = ["front_door_plugin", "ledger_kinds", "STYLESHEET"]

STYLESHEET = """
/* long cells wrap instead of widening the table past the window */
table.rows-and-columns { font-size: 0.88em; }
table.rows-and-columns td { max-width: 26em; overflow-wrap: anywhere; white-space: normal; vertical-align: top; }
table.rows-and-columns td.type-int, table.rows-and-columns td.type-float { white-space: nowrap; }
table.rows-and-columns th { white-space: normal; overflow-wrap: anywhere; }
.table-wrapper { overflow-x: auto; }
section.content { max-width: 1360px; }
"""

_REGISTERED: dict[str, Any] = {}


def ledger_kinds(ledger_path: Path) -> list[str]:
    """The question kinds of the ledger's question-answering runs, read once at start (read-only)."""
    conn = sqlite3.connect(f"{Path(ledger_path).resolve().as_uri()}?mode=ro", uri=True)
    try:
        conn.create_function(ZLIB_TEXT, 1, zlib_text, deterministic=True)
        for statement in view_statements():
            conn.execute(statement)
        return [row[0] for row in conn.execute(KINDS_SQL) if row[0] is not None]
    finally:
        conn.close()


def front_door_plugin(ds: Any, database: str) -> None:
    """Register the front door's routes, stylesheet and run links with Datasette (once)."""
    from datasette import hookimpl
    from datasette.plugins import pm
    from datasette.utils.asgi import Response

    class FrontDoor:
        __name__ = "benchledger_front_door"  # Datasette lists plugins by module name

        @hookimpl
        def register_routes(self) -> list[tuple[str, Any]]:
            async def home(request: Any) -> Any:
                return Response.redirect(f"/{database}/runs")

            async def stylesheet(request: Any) -> Any:
                return Response(STYLESHEET, content_type="text/css; charset=utf-8")

            return [(r"^/$", home), (r"^/-/benchledger\.css$", stylesheet)]

        @hookimpl
        def handle_exception(self, datasette: Any, request: Any, exception: Exception) -> Any:
            # Datasette's CSV export lets a query over its time or size limit escape as a 500; it is a refusal
            from datasette.database import QueryInterrupted

            if isinstance(exception, QueryInterrupted):
                return Response.text("refused: the query ran past the view's time limit\n", status=400)
            if isinstance(exception, sqlite3.OperationalError):
                return Response.text(f"refused: {exception}\n", status=400)
            return None

        @hookimpl
        def render_cell(self, value: Any, column: str, table: Any, database: Any) -> Any:
            from markupsafe import Markup

            if column != "run_id" or not isinstance(value, str) or not value:
                return None
            link = f"/{database}/events?run_id={quote(value, safe='')}&_sort=seq"
            return Markup(f'<a href="{html.escape(link, quote=True)}">{html.escape(value)}</a>')

    if "front_door" not in _REGISTERED:
        plugin = FrontDoor()
        pm.register(plugin, name="benchledger-front-door")
        _REGISTERED["front_door"] = plugin
