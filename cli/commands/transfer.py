"""`benchledger push RUN --to PATH|URL` and `pull RUN --from PATH|URL`: copy a run between ledgers.

`push` copies a run of the `--ledger` ledger into another; `pull` copies one of another ledger
into the `--ledger` one. Either way it is one library call (`benchledger.ledger.transfer.
copy_run`): the run is verified in the source, copied byte for byte (its hashes kept), verified
in the target, and its head must be the same in both, which the command prints. Pushing a run
the target already holds changes nothing.
"""

from __future__ import annotations

import click
from benchledger.cli.common import AppContext, echo_json, json_option, open_ledger, pass_app, run_argument
from benchledger.ledger.store import Ledger
from benchledger.ledger.transfer import CopyResult, copy_run

__all__ = ["COMMANDS"]


def _report(result: CopyResult, as_json: bool) -> None:
    if as_json:
        echo_json(result.model_dump())
        return
    done = (f"copied {result.copied} of its {result.events} events" if result.copied
            else f"already held all {result.events} events: nothing copied")
    click.echo(f"run {result.run_id} from {result.source} to {result.target}: {done}; verified in both, "
               f"head {result.head}")


def _copy_command(name: str, flag: str, other_help: str, doc: str, *, outward: bool) -> click.Command:
    """`push` (outward: from this ledger into the other) or `pull` (from the other into this one)."""

    @click.command(name, help=doc)
    @run_argument
    @click.option(flag, "other", required=True, metavar="PATH|URL", help=other_help)
    @json_option
    @pass_app
    def command(app: AppContext, run_ref: str, other: str, as_json: bool) -> None:
        if outward:
            with open_ledger(app, create=False) as source, Ledger.open(other) as target:
                result = copy_run(source, target, run_ref)
        else:
            with Ledger.open(other, create=False) as source, open_ledger(app) as target:
                result = copy_run(source, target, run_ref)
        _report(result, as_json)

    return command


push = _copy_command("push", "--to", "The ledger to copy the run into: a file, or a postgresql:// URL.",
                     "Copy a run of this ledger into another (verified on both sides, hashes kept).",
                     outward=True)
pull = _copy_command("pull", "--from", "The ledger to copy the run from: a file, or a postgresql:// URL.",
                     "Copy a run of another ledger into this one (verified on both sides, hashes kept).",
                     outward=False)

COMMANDS = [push, pull]
