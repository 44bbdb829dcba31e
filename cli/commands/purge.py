"""`benchledger purge RUN`: remove the memory scopes a run kept (`--keep`), recorded on its ledger."""

from __future__ import annotations

import click
from benchledger.cli.common import AppContext, open_ledger, pass_app, run_argument
from benchledger.orchestration.purge import purge_run
from benchledger.redaction import redact

__all__ = ["COMMANDS"]


@click.command("purge")
@run_argument
@pass_app
def purge(app: AppContext, run_ref: str) -> None:
    """Purge the memory scopes a run kept; a scope another live run holds is left for it."""
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.reader.resolve_run(run_ref)
        events = purge_run(ledger, run_id, redact=redact)
    if not events:
        click.echo(f"run {run_id}: every scope was already purged")
    for event in events:
        if event.kept_for_runs:
            click.echo(f"kept {event.scope} for run(s) {', '.join(event.kept_for_runs)}")
        else:
            click.echo(f"purged {event.scope}: {event.documents_removed} documents")


COMMANDS = [purge]
