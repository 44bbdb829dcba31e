"""`benchledger check-memory URL`: the memory contract against a live HTTP memory server.

A plug-in author's first question is "does my server keep the protocol?". This asks the server
who it is (`/v1/info`), then runs every test of the contract the built-in systems pass
(`benchledger.testing.memory_contract`) against it, each on fresh scopes of its own that it purges
after (`benchledger.testing.live`), and prints one row per test (passed, failed, not run), then
each failure's assertion as pytest reported it and why a test was not run. The table and the failures under it are plain text meant to be
pasted into a bug report. Exit 0 when no test failed, 1 when one did (or the server cannot be
reached), 2 for a bad URL or when pytest, which runs the contract, is not installed.
"""

from __future__ import annotations

import textwrap

import click

from benchledger.adapters.memory.http_client import HttpMemory
from benchledger.adapters.memory.protocol import MemorySystemError
from benchledger.cli.common import AppContext, pass_app
from benchledger.errors import BadInput, CheckFailed
from benchledger.redaction import register_secret_env
from benchledger.tables import render_table

__all__ = ["COMMANDS", "check_memory"]

_DETAIL_LINES = 12
"""Lines of each failure's report printed under the table (its assertion, values, the contract's line)."""
_WIDTH = 80
"""Every line fits 80 columns: a long assertion is wrapped, never cut."""


@click.command("check-memory")
@click.argument("url")
@click.option("--token-env", default=None,
              help="Environment variable holding the server's bearer token (never printed or kept).")
@pass_app
def check_memory(app: AppContext, url: str, token_env: str | None) -> None:
    """Run the memory contract against a live HTTP memory server, a fresh scope per test."""
    if token_env is not None:
        register_secret_env(token_env)
    try:
        from benchledger.testing.live import check_memory as run_contract
    except ModuleNotFoundError as err:
        if err.name != "pytest":
            raise
        raise BadInput("check-memory runs the memory contract under pytest, which is not installed: "
                       "pip install 'benchledger[testing]'") from None
    try:
        probe = HttpMemory(app.memory_store_dir / "check-memory.unused", url=url, token_env=token_env)
    except MemorySystemError as err:
        raise CheckFailed(f"cannot check the memory at {url}: {err}") from None
    identity = f"{probe.remote_name} {probe.version}"
    shown_url = probe.shown_url
    probe.close()
    results = run_contract(url, token_env=token_env)
    failed = [r for r in results if r.outcome == "failed"]
    not_run = [r for r in results if r.outcome == "not run"]
    click.echo(f"memory contract against {identity} at {shown_url}")
    click.echo("each test on fresh scopes of its own, purged after it")
    click.echo(render_table([(r.test, r.outcome) for r in results], ("test", "result"), align=["left", "left"]))
    click.echo(f"{len(results) - len(failed) - len(not_run)} passed, {len(failed)} failed, "
               f"{len(not_run)} not run")
    for result in [*failed, *not_run]:
        click.echo(f"\n{result.test} ({result.outcome}):")
        lines = [line for line in result.detail.splitlines() if line.strip()]
        shown = [line for line in lines if line.startswith(("E ", ">")) or "memory_contract.py:" in line]
        for line in (shown or lines or [result.message])[:_DETAIL_LINES]:
            click.echo("\n".join(textwrap.wrap(line, width=_WIDTH, initial_indent="    ",
                                                subsequent_indent="      ")))
    if failed:
        raise CheckFailed(f"{len(failed)} of {len(results)} contract tests failed against {shown_url}: "
                          + ", ".join(r.test for r in failed))


COMMANDS = [check_memory]
