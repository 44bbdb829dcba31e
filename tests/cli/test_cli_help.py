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


def _options(command: click.Command) -> set[str]:
    return {opt for param in command.params if isinstance(param, click.Option) for opt in param.opts}


def test_each_run_benchmark_offers_only_its_own_options_and_protocols():
    from benchledger.adapters.benchmarks.registry import available_benchmarks

    run = cli.commands["run"]
    seen = 0
    for entry in available_benchmarks():
        benchmark = entry.loaded
        if benchmark is None:
            continue
        command = run.commands[benchmark.command]
        options = _options(command)
        assert ("--judge-models" in options) == ("judge_models" in benchmark.model_options_offered), benchmark.name
        assert ("--prompts-dir" in options) == ("prompts_dir" in benchmark.model_options_offered), benchmark.name
        (protocol,) = [p for p in command.params if p.name == "protocol"]
        assert list(protocol.type.choices) == list(benchmark.protocols), benchmark.name
        text = CliRunner().invoke(cli, ["run", benchmark.command, "--help"], catch_exceptions=False).output
        for other in {"reference", "typed", "official"} - set(benchmark.protocols):
            assert f"{other}:" not in text, f"{benchmark.name} help describes the {other} protocol it does not offer"
        seen += 1
    assert seen >= 4
    assert "--judge-models" not in _options(run.commands["groupmem"])
    assert "--judge-models" in _options(run.commands["memora"])


def test_defaults_are_worded_one_way_in_every_help():
    """`[default: X]` everywhere; never a word standing for a value ("current") that the reader must guess."""
    for path, command in walk(cli):
        text = CliRunner().invoke(cli, [*path, "--help"], catch_exceptions=False).output
        flat = " ".join(text.split())
        assert "[default: current]" not in flat, " ".join(path)
        assert "default is" not in flat.lower(), " ".join(path)
