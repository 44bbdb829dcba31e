"""`benchledger verify [RUN] [--expect-head HASH]`: schema, chain, blobs, cached responses, views;
`benchledger verify FILE [--expect-head HASH] [--signer PUBKEY]`: a bundle, checked and re-folded
offline from the file alone (`orchestration.bundle_check`), no ledger opened."""

from __future__ import annotations

from pathlib import Path

import click
from benchledger.cli.common import AppContext, echo_json, json_option, open_ledger, pass_app
from benchledger.cli.render import show_report
from benchledger.errors import BadInput, CheckFailed
from benchledger.orchestration.bundle_check import is_bundle
from benchledger.orchestration.recorded import recorded_run
from benchledger.orchestration.reports import refold_views
from benchledger.projections.pinned import pinned_notes

__all__ = ["COMMANDS"]


@click.command("verify")
@click.argument("run_ref", metavar="[RUN|FILE]", required=False)
@click.option("--expect-head", "expect_head", metavar="HASH", default=None,
              help="A head printed earlier (a report's ledger head): fail unless the ledger still holds it; with "
                   "RUN, also say what was appended to the run after it and which segments its score counts; with "
                   "FILE, the bundle's head.")
@click.option("--signer", "signer", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="PUBKEY",
              help="With FILE: the bundle must be signed by this Ed25519 public key (PEM, as `openssl pkey -pubout` "
                   "writes it), the author's, got from them rather than from the bundle.")
@json_option
@pass_app
def verify(app: AppContext, run_ref: str | None, expect_head: str | None, signer: Path | None, as_json: bool) -> None:
    """Check schema, hash chain, blobs, cached responses and saved views; exit 1 naming the first bad seq.
    Given a bundle FILE (`export RUN --bundle FILE`), check it offline and print its report again."""
    if run_ref is not None and is_bundle(Path(run_ref)):
        _verify_bundle(Path(run_ref), expect_head, signer, as_json)
        return
    if signer is not None:
        raise BadInput("--signer checks who signed a bundle; pass the bundle FILE", field="signer")
    notes: list[str] = []
    with open_ledger(app, create=False) as ledger:
        run_id = ledger.reader.resolve_run(run_ref) if run_ref else None
        result = ledger.reader.verify(run_id, refold=refold_views, expect_head=expect_head)
        if result.ok and run_id is not None and expect_head is not None:
            pinned = recorded_run(ledger.reader, run_id, expect_head=expect_head).pinned
            if pinned is not None:  # always, with expect_head
                notes = pinned_notes(pinned, pinned.state, pinned.state.default_scorer,
                                     ledger.reader.run_writers(run_id))
    if as_json:
        echo_json(result.model_dump())
    if not result.ok:
        where = f" at seq {result.first_bad_seq}" if result.first_bad_seq is not None else ""
        raise CheckFailed(f"verify failed{where}: {result.problem}")
    if not as_json:
        scope = f"run {run_id}" if run_id else "the whole ledger"
        click.echo(f"ok: {result.checked} events of {scope} verified (schema, chain, blobs, cache, "
                   f"views); head {result.head}")
        for line in notes:
            click.echo(line)
        for line in result.stale:
            click.echo(f"note: {line}")


def _verify_bundle(path: Path, expect_head: str | None, signer_key: Path | None, as_json: bool) -> None:
    from benchledger.orchestration.bundle_check import check_bundle
    from benchledger.signing import load_public_key

    signer = load_public_key(signer_key) if signer_key is not None else None
    checked = check_bundle(path, expect_head=expect_head, signer=signer)
    if as_json:
        echo_json({"report": checked.report.model_dump(mode="json"), "checked": checked.checked})
        return
    show_report(checked.report)
    click.echo("")
    click.echo(f"checked {path.name}, offline, from the file alone:")
    for line in checked.checked:
        click.echo(f"  {line}")


COMMANDS = [verify]
