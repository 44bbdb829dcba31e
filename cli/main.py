"""The `benchledger` command group and the one place typed errors become exit codes.

Every module in `cli.commands` exposes `COMMANDS`; they are registered here, the same way for
every family. A `BenchledgerError` becomes one line on stderr with its exit code (2 for bad usage
or bad input, 1 for a failed check or an aborted run); the message already says what to do next.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click
import benchledger.cli.commands as command_modules
from benchledger.cli.common import AppContext
from benchledger.cli.logging_setup import configure_logging
from benchledger.errors import BenchledgerError
from benchledger.redaction import redact

__all__ = ["cli"]


class BenchledgerGroup(click.Group):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except BenchledgerError as err:
            exc = click.ClickException(redact(str(err)))
            exc.exit_code = err.exit_code
            raise exc from err


@click.group(cls=BenchledgerGroup)
@click.option("--ledger", "ledger_target", envvar="BENCHLEDGER_LEDGER", default="benchledger.db",
              show_default=True, metavar="PATH|URL",
              help="Ledger file, or a postgresql:// URL for a ledger shared on a server "
                   "(also $BENCHLEDGER_LEDGER).")
@click.option("--log-format", type=click.Choice(["console", "json"]), default="console",
              show_default=True, help="console for people, json for machines (structlog).")
@click.option("-v", "--verbose", count=True, help="More log output (-vv for debug).")
@click.version_option(package_name="benchledger")
@click.pass_context
def cli(ctx: click.Context, ledger_target: str, log_format: str, verbose: int) -> None:
    """Run memory benchmarks and keep every stage on an append-only ledger."""
    configure_logging(log_format, verbose)
    ctx.obj = AppContext.for_ledger(ledger_target, log_format=log_format, verbosity=verbose)


def _register_commands() -> None:
    for info in sorted(pkgutil.iter_modules(command_modules.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{command_modules.__name__}.{info.name}")
        for command in getattr(module, "COMMANDS", ()):
            cli.add_command(command)


_register_commands()

if __name__ == "__main__":  # pragma: no cover
    sys.exit(cli())
