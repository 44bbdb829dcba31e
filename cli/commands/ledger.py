"""`benchledger ledger init PATH|URL [--writer ROLE] [--reader ROLE]`: create or migrate a ledger;
`benchledger ledger grant URL RUN ROLE`: let another role add to a run you own on a shared one.

For a `postgresql://` URL, run it as the schema's owner role: it applies the migrations in one
transaction and grants each `--writer` role the right to append (and each `--reader` role the
right to read), nothing more (`benchledger.ledger.pg_store`). A file path creates or migrates a
SQLite ledger, as the first write to it would.

On a shared ledger a run belongs to the role that started it, and the server refuses any other
role's rows in it (docs/shared-ledger.md); `grant`, run as the owner, lets one role resume or
rejudge it (as a segment of its own, recorded with that role as its writer).
"""

from __future__ import annotations

import click
from benchledger.ledger.store import display_target, grant_run, init_ledger, is_url

__all__ = ["COMMANDS"]


@click.group("ledger")
def ledger() -> None:
    """Set up a ledger: a SQLite file, or a schema on a PostgreSQL server shared by a team."""


@ledger.command("init")
@click.argument("target", metavar="PATH|URL")
@click.option("--writer", "writers", multiple=True, metavar="ROLE",
              help="A PostgreSQL role to grant appending (and reading) to; repeatable.")
@click.option("--reader", "readers", multiple=True, metavar="ROLE",
              help="A PostgreSQL role to grant reading to; repeatable.")
def init(target: str, writers: tuple[str, ...], readers: tuple[str, ...]) -> None:
    """Create or migrate the ledger at PATH or URL (on a server: as the schema's owner role)."""
    applied = init_ledger(target, writers=writers, readers=readers)
    shown = display_target(target)
    state = f"applied {', '.join(applied)}" if applied else "already up to date"
    click.echo(f"ledger at {shown}: {state}")
    for role in writers:
        click.echo(f"granted {role}: read, append events, blobs and responses, save views")
    for role in readers:
        click.echo(f"granted {role}: read")
    if is_url(target) and not writers:
        click.echo("no --writer role granted: only the owner can append (see the README's role set-up)")


@ledger.command("grant")
@click.argument("target", metavar="URL")
@click.argument("run_ref", metavar="RUN")
@click.argument("role")
def grant(target: str, run_ref: str, role: str) -> None:
    """Let ROLE add to RUN (resume or rejudge it) on the shared ledger at URL; run as the run's owner."""
    run_id = grant_run(target, run_ref, role)
    click.echo(f"run {run_id} at {display_target(target)}: role {role} may now add to it")


COMMANDS = [ledger]
