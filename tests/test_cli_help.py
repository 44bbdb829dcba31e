"""Every command and subcommand has help text, and every option says what it does."""

from __future__ import annotations

import click
from click.testing import CliRunner

from benchledger.cli.main import cli


def walk(group: click.Group, prefix=()):
    for name, command in group.commands.items():
        yield prefix + (name,), command
        if isinstance(command, click.Group):
            yield from walk(command, prefix + (name,))


def test_every_command_has_help_and_every_option_is_documented():
    commands = list(walk(cli))
    assert len(commands) >= 20
    for path, command in commands:
        assert command.help and command.help.strip(), f"{' '.join(path)} has no help text"
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{' '.join(path)} {param.opts[0]} has no help"
        result = CliRunner().invoke(cli, [*path, "--help"], catch_exceptions=False)
        assert result.exit_code == 0 and "Usage:" in result.output
