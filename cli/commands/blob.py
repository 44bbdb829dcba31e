"""`benchledger blob DIGEST`: print a stored body (a packed context, a raw model output, a prompt).

Bodies are kept zlib-compressed and content-addressed in the ledger's `blobs` table; events name
them by SHA-256 (`context_hash`, `raw_hash`, the prompt hashes of RunStarted). Into a file or a
pipe this writes the raw bytes unchanged, so `benchledger blob D > context.txt` is the body exactly
as stored; on a terminal it is made inert like every other output (`cli.render.inert`).
"""

from __future__ import annotations

import re
import sys

import click

from benchledger.cli.render import unfiltered

from benchledger.cli.common import AppContext, open_ledger, pass_app
from benchledger.errors import BadInput, LedgerError
from benchledger.ledger.blobs import BadBlob

__all__ = ["COMMANDS", "blob"]

_DIGEST = re.compile(r"[0-9a-f]{64}")


@click.command("blob")
@click.argument("digest")
@pass_app
def blob(app: AppContext, digest: str) -> None:
    """Print a stored body by its SHA-256 digest (context_hash, raw_hash, prompt hashes in the events)."""
    digest = digest.strip().lower()
    with open_ledger(app, create=False) as ledger:
        if not _DIGEST.fullmatch(digest):
            raise BadInput("a blob digest is 64 hex characters (the SHA-256 an event names, e.g. context_hash)",
                           field="digest")
        try:
            body = ledger.reader.get_blob(digest)
        except BadBlob:
            raise  # stored but does not check (changed, or a bomb): exit 1, not "no blob"
        except LedgerError:
            raise BadInput(f"no blob {digest} in {app.ledger_path}; events name their blobs (see "
                           "`benchledger question RUN QID --json` or `benchledger events RUN`)",
                           field="digest") from None
    stdout = sys.stdout if sys.stdout.isatty() else unfiltered(sys.stdout)
    click.echo(body, nl=False, file=stdout)  # bytes go to the binary stream


COMMANDS = [blob]
