"""`benchledger view [--port N]`: browse the ledger in Datasette, read-only.

Checks the file is a ledger (a missing, empty or foreign file is refused like every other
command), builds the Datasette app (`orchestration.browse`) and serves it on loopback. The first
line on stdout is the URL, so a script can start it and read where it listens.
"""

from __future__ import annotations

import click

from benchledger.cli.common import AppContext, pass_app
from benchledger.orchestration.browse import DATABASE_NAME, bind, build_datasette, check_ledger, serve

__all__ = ["COMMANDS", "view"]


@click.command("view")
@click.option("--port", type=click.IntRange(0, 65535), default=8001, show_default=True,
              help="Port to listen on; 0 picks a free one (printed on start).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@pass_app
def view(app: AppContext, port: int, host: str) -> None:
    """Browse the ledger in Datasette, read-only: documented tables, views over the events, canned queries."""
    check_ledger(app.ledger_path)
    ds = build_datasette(app.ledger_path)
    sock = bind(host, port)
    url = f"http://{host}:{sock.getsockname()[1]}/{DATABASE_NAME}"
    click.echo(f"serving {app.ledger_path} read-only at {url} (Ctrl-C stops it)")
    try:
        serve(ds, sock)
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


COMMANDS = [view]
