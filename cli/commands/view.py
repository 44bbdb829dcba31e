"""`benchledger view [--port N]`: browse the ledger in Datasette, read-only.

Checks the file is a ledger (a missing, empty or foreign file is refused like every other
command), builds the Datasette app (`orchestration.browse`, bounded by `browse_limits`) and
serves it on loopback. The first line on stdout is the URL, so a script can start it and read where
it listens. Another address exposes every prompt, reply and gold answer of the ledger to whoever
can reach it: it is refused unless `--expose` is given, and then every page needs Datasette's
one-time root login, whose URL (a secret: the terminal never shows it) is written to a file only
its owner can read, removed when the view stops; stderr carries one warning line naming what is exposed.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from benchledger.cli.common import AppContext, is_loopback, pass_app, sigterm_as_interrupt
from benchledger.errors import BadInput
from benchledger.orchestration.browse import DATABASE_NAME, bind, build_datasette, check_ledger, login_url, serve

__all__ = ["COMMANDS", "view"]


@click.command("view")
@click.option("--port", type=click.IntRange(0, 65535), default=8001, show_default=True,
              help="Port to listen on; 0 picks a free one (printed on start).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@click.option("--expose", is_flag=True,
              help="Serve on a non-loopback --host; every page then needs a one-time login (its URL is written to "
                   "a file only you can read, whose path is printed).")
@pass_app
def view(app: AppContext, port: int, host: str, expose: bool) -> None:
    """Browse the ledger in Datasette, read-only: documented tables, views over the events, canned queries."""
    exposed = not is_loopback(host)
    if exposed and not expose:
        raise BadInput(f"--host {host} would let anyone who can reach this machine read every run, prompt, reply "
                       f"and gold answer in {app.ledger_path}; pass --expose to serve it behind a one-time login",
                       field="host")
    check_ledger(app.ledger_path)
    ds = build_datasette(app.ledger_path, locked=exposed)
    sock = bind(host, port)
    bound = sock.getsockname()[1]
    url = f"http://{host}:{bound}/{DATABASE_NAME}"
    click.echo(f"serving {app.ledger_path} read-only at {url} (Ctrl-C stops it)")
    login = _write_login(login_url(ds, host, bound)) if exposed else None
    if login is not None:
        click.echo(f"warning: {host}:{bound} exposes every run, prompt, reply and gold answer in {app.ledger_path} "
                   "to whoever reaches it and logs in", err=True)
        click.echo(f"log in once with the URL in {login} (readable by you only; the link is spent on use)")
    try:
        with sigterm_as_interrupt():
            serve(ds, sock)
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
        if login is not None:
            login.unlink(missing_ok=True)


def _write_login(url: str) -> Path:
    """The login URL in a fresh file of mode 0600 (mkstemp creates it so), never on the terminal."""
    handle, name = tempfile.mkstemp(prefix="benchledger-view-login-", suffix=".txt")
    with os.fdopen(handle, "w") as out:
        out.write(url + "\n")
    return Path(name)


COMMANDS = [view]
