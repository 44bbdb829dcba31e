"""`benchledger verify [RUN]`: the chain, the append-only guards, and every saved view re-folded."""

from __future__ import annotations

import click
from benchledger.cli.common import AppContext, echo_json, json_option, open_ledger, pass_app
from benchledger.errors import CheckFailed
from benchledger.orchestration.reports import refold_views

__all__ = ["COMMANDS"]


@click.command("verify")
@click.argument("run_ref", metavar="[RUN]", required=False)
@json_option
@pass_app
def verify(app: AppContext, run_ref: str | None, as_json: bool) -> None:
    """Check the hash chain, the append-only guards and the saved views; exit 1 naming the first bad seq."""
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.resolve_run(run_ref) if run_ref else None
        result = ledger.verify(run_id, refold=refold_views)
    if as_json:
        echo_json(result.model_dump())
    if not result.ok:
        raise CheckFailed(f"verify failed at seq {result.first_bad_seq}: {result.problem}")
    if not as_json:
        scope = f"run {run_id}" if run_id else "the whole ledger"
        click.echo(f"ok: {result.checked} events of {scope} verified (chain, guards, views)")


COMMANDS = [verify]
