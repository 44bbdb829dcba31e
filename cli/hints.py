"""What to type next: commands the CLI suggests, written so they work as printed.

A suggested command names the ledger the user is working with (`--ledger PATH`) unless it is the
default `benchledger.db`, and quotes anything the shell would split. `interrupted` is how a
command stopped by Ctrl-C ends: one line on stderr saying what was kept and how to go on, and exit
code 130 (the shell's code for an interrupt), never click's bare "Aborted!".
"""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from benchledger.cli.common import AppContext

__all__ = ["suggest", "interrupted", "INTERRUPTED_EXIT_CODE"]

INTERRUPTED_EXIT_CODE = 130
_DEFAULT_LEDGER = Path("benchledger.db")


def suggest(app: AppContext, *args: str) -> str:
    """`benchledger [--ledger PATH] ARGS...` as one shell-quoted line."""
    ledger = [] if app.ledger_path == _DEFAULT_LEDGER else ["--ledger", str(app.ledger_path)]
    return shlex.join(["benchledger", *ledger, *args])


def interrupted(message: str) -> click.exceptions.Exit:
    """Print why and how to go on, and the exit to raise (`raise interrupted(...) from None`)."""
    click.echo(f"interrupted: {message}", err=True)
    return click.exceptions.Exit(INTERRUPTED_EXIT_CODE)
