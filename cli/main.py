"""The `benchledger` command group and the one place typed errors become exit codes.

Every module in `cli.commands` exposes `COMMANDS`; the group finds them there, the same way for
every family, and imports a module only when one of its commands is looked up
(`cli.lazy_commands`), so `benchledger --help` and a command that needs no model or memory import
none of what the others need. For the same reason this module imports the library inside the
functions that use it. A `BenchledgerError` becomes one line on stderr with its exit code (2 for
bad usage or bad input, 1 for a failed check or an aborted run); the message already says what to
do next.

The options of the whole tool (`--ledger`, `--log-format`, `-v`) may also be written after the
command name (`benchledger show latest --ledger runs.db`): they are moved in front of it before
click parses the line, so they mean the same wherever they stand (after `--` nothing is moved).
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from benchledger.cli.lazy_commands import LazyCommands

if TYPE_CHECKING:
    from benchledger.errors import BenchledgerError

__all__ = ["cli"]


_VALUED_GLOBALS = ("--ledger", "--log-format")
_FLAG_GLOBAL = re.compile(r"-v+|--verbose")


def hoist_global_options(args: list[str]) -> list[str]:
    """The command line with every global option after the command name moved before it."""
    command_at = None
    i = 0
    while i < len(args):  # find the command name: the first token that is not a global option or its value
        token = args[i]
        if token in _VALUED_GLOBALS:
            i += 2
            continue
        if token == "--" or not token.startswith("-"):
            command_at = i
            break
        i += 1
    if command_at is None or args[command_at] == "--":
        return args
    hoisted, rest = [], []
    i = command_at + 1
    while i < len(args):
        token = args[i]
        if token == "--":
            rest += args[i:]
            break
        if token in _VALUED_GLOBALS and i + 1 < len(args):
            hoisted += args[i:i + 2]
            i += 2
            continue
        if token.startswith(tuple(f"{name}=" for name in _VALUED_GLOBALS)) or _FLAG_GLOBAL.fullmatch(token):
            hoisted.append(token)
        else:
            rest.append(token)
        i += 1
    return [*args[:command_at], *hoisted, args[command_at], *rest]


def _parameters(group: click.Group) -> list[tuple[click.Command, click.Parameter]]:
    found: list[tuple[click.Command, click.Parameter]] = []
    for command in group.commands.values():
        if isinstance(command, click.Group):
            found += _parameters(command)
        found += [(command, param) for param in command.params]
    return found


def _option_spellings(group: click.Group, typed: Sequence[str] = ()) -> dict[str, str]:
    """Every parameter's name -> how the user spells it (`domain` -> `option --domain`, `runs` ->
    `argument RUN...`), over the whole command tree. A name that commands spell differently
    (`kinds`: --kinds, --categories, ...; `source`: CORPUS_DIR, FILE, ROOT) is the flag among
    `typed` (the command line) where one is, else named by what it is."""
    flags: dict[str, list[str]] = {}
    metavars: dict[str, set[str]] = {}
    for command, param in _parameters(group):
        if isinstance(param, click.Option) and param.name and param.opts[0].startswith("--"):
            flags.setdefault(param.name, [])
            if param.opts[0] not in flags[param.name]:
                flags[param.name].append(param.opts[0])
        elif isinstance(param, click.Argument) and param.name:
            metavars.setdefault(param.name, set()).add(param.make_metavar(click.Context(command)))
    spellings: dict[str, str] = {}
    for name, spelled in flags.items():
        given = [flag for flag in spelled if any(t == flag or t.startswith(flag + "=") for t in typed)]
        spellings[name] = f"option {(given or spelled)[0]}"
    for name, shown in metavars.items():
        spellings.setdefault(name, f"argument {shown.pop()}" if len(shown) == 1
                             else f"argument {name.upper().removesuffix('_REF')}")
    return spellings


def _as_the_user_spells_it(err: BenchledgerError, group: click.Group, typed: Sequence[str] = ()) -> str:
    """The error's line, naming a setting by the option the user types (`option --k`), not by the
    model field behind it (`field 'k'`); a field that is no option (one in a file) stays a field."""
    from benchledger.errors import BadInput

    if isinstance(err, BadInput) and err.field and not err.file:
        spellings = _option_spellings(group, typed)
        flag = "--" + err.field.replace("_", "-")  # a field named after its flag (`until` of --until)
        spelled = spellings.get(err.field.replace("-", "_")) or next(
            (shown for shown in spellings.values() if shown == f"option {flag}"), None)
        if spelled:
            return f"{spelled}: {err.detail}"
    return str(err)


class BenchledgerGroup(LazyCommands):
    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["benchledger.typed"] = tuple(args)  # so an error names the option as it was typed
        return super().parse_args(ctx, hoist_global_options(list(args)))

    def invoke(self, ctx: click.Context):
        from benchledger.cli.hints import INTERRUPTED_EXIT_CODE
        from benchledger.cli.render import inert, inert_output
        from benchledger.cli.streams import guard_standard_streams
        from benchledger.errors import BenchledgerError
        from benchledger.redaction import redact

        guard_standard_streams()  # a closed pipe (`| head`) drops output; it never stops paid work
        try:
            with inert_output():  # nothing from a corpus, model, memory or ledger reaches the terminal raw
                return super().invoke(ctx)
        except KeyboardInterrupt:
            # A command with its own way on says it (run, resume, rejudge, audit); every other one
            # (fetch, push, pull, ...) is safe to run again: what it finished is kept and skipped.
            click.echo(f"interrupted: `{shlex.join(['benchledger', *sys.argv[1:]])}` stopped; what it finished "
                       "is kept: run the same command again to go on", err=True)
            raise click.exceptions.Exit(INTERRUPTED_EXIT_CODE) from None
        except BenchledgerError as err:
            # one line, whatever the ledger's text held (a run id with a newline in it stays on it)
            line = _as_the_user_spells_it(err, self, ctx.meta.get("benchledger.typed", ()))
            exc = click.ClickException(inert(redact(line)).replace("\n", "\\u000a"))
            exc.exit_code = err.exit_code  # type: ignore[misc]  # click reads it per instance
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
    from benchledger.cli.common import AppContext
    from benchledger.cli.logging_setup import configure_logging
    from benchledger.tables import fitted_to, output_width

    configure_logging(log_format, verbose)
    ctx.with_resource(fitted_to(output_width()))  # every table this command prints fits the terminal
    ctx.obj = AppContext.for_ledger(ledger_target, log_format=log_format, verbosity=verbose)

if __name__ == "__main__":  # pragma: no cover
    sys.exit(cli())
