"""The command tree, loaded a module at a time: `benchledger --help` imports no command.

Every module of `cli.commands` exposes `COMMANDS`. Importing one imports what its commands run
(the settings models, the event classes, the orchestration), most of a second of start-up for
all of them, so `LazyCommands` imports a command's module only when the command is looked up to
run or to show its own help. The top-level listing (`benchledger --help`) reads each command's
name and help from `cli.command_index`, generated from the modules by
`python -m benchledger.cli.lazy_commands` (tests/cli/test_startup.py fails when it is stale). The
index keeps a checksum of each module's source: a module the index does not know, or whose source
changed since (a command added, a help reworded), is imported to be listed, so a stale index makes
`--help` slower, never wrong. Whatever needs the whole tree (`commands`, the option spellings of an
error) loads every module first.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
import zlib
from collections.abc import Iterable
from pathlib import Path

import click

__all__ = ["LazyCommands", "index_source", "INDEX_MODULE"]

COMMANDS_PACKAGE = "benchledger.cli.commands"
INDEX_MODULE = "benchledger.cli.command_index"
_INDEX_FILE = Path(__file__).with_name("command_index.py")

IndexEntry = tuple[str, str, str, bool, bool]
"""(name, help, short_help, hidden, deprecated) of one command, as click keeps them."""


def _index() -> dict[str, tuple[int, tuple[IndexEntry, ...]]]:
    try:
        return dict(importlib.import_module(INDEX_MODULE).INDEX)
    except ImportError:  # an index not generated yet: every module is imported instead
        return {}


def _package_folder() -> Path:
    return Path(importlib.import_module(COMMANDS_PACKAGE).__path__[0])


def _module_names() -> list[str]:
    return sorted(info.name for info in pkgutil.iter_modules([str(_package_folder())]))


def _checksum(module: str) -> int:
    """CRC-32 of the module's source (what the index was made from); -1 when it has none."""
    try:
        return zlib.crc32((_package_folder() / f"{module}.py").read_bytes())
    except OSError:
        return -1


class LazyCommands(click.Group):
    """A click group whose subcommands come from `cli.commands`, each module imported when needed."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._modules = _module_names()
        self._indexed = {module: entries for module, (checksum, entries) in _index().items()
                         if module in self._modules and checksum == _checksum(module)}
        self._where = {entry[0]: module for module, entries in self._indexed.items() for entry in entries}
        self._imported: set[str] = set()

    @property  # type: ignore[override]
    def commands(self) -> dict[str, click.Command]:
        """Every command (every module imported)."""
        self._import(self._modules)
        return self._loaded

    @commands.setter
    def commands(self, value: dict[str, click.Command]) -> None:
        self._loaded = dict(value)

    def _import(self, modules: Iterable[str]) -> None:
        for module in modules:
            if module in self._imported:
                continue
            self._imported.add(module)
            for command in getattr(importlib.import_module(f"{COMMANDS_PACKAGE}.{module}"), "COMMANDS", ()):
                self._loaded[command.name or ""] = command
                self._where.setdefault(command.name or "", module)

    def _unindexed(self) -> list[str]:
        return [module for module in self._modules if module not in self._indexed]

    def list_commands(self, ctx: click.Context | None) -> list[str]:
        self._import(self._unindexed())
        return sorted(set(self._where) | set(self._loaded))

    def get_command(self, ctx: click.Context | None, cmd_name: str) -> click.Command | None:
        if cmd_name not in self._loaded:
            module = self._where.get(cmd_name)
            self._import([module] if module else self._modules)
        return self._loaded.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list as `click.Group` writes it, from the index where it knows a command."""
        self._import(self._unindexed())
        shown: dict[str, click.Command] = {}
        for entries in self._indexed.values():
            for name, help_, short_help, hidden, deprecated in entries:
                shown[name] = click.Command(name, help=help_ or None, short_help=short_help or None,
                                            hidden=hidden, deprecated=deprecated)
        shown.update((name, command) for name, command in self._loaded.items()
                     if self._where.get(name) not in self._indexed)
        commands = [(name, shown[name]) for name in sorted(shown) if not shown[name].hidden]
        if not commands:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in commands)
        rows = [(name, command.get_short_help_str(limit)) for name, command in commands]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _entry(command: click.Command) -> IndexEntry:
    """What the listing shows of a command: its help's first paragraph (all click's short help reads)."""
    first = inspect.cleandoc(command.help).split("\n\n", 1)[0] if command.help else ""
    return (command.name or "", " ".join(first.split()), command.short_help or "", bool(command.hidden),
            bool(command.deprecated))


def index_source() -> str:
    """The source of `cli.command_index` for the command modules as they are now."""
    lines = [
        '"""Each module of `cli.commands`, a checksum of its source, and the name and help of the commands',
        "it declares, so `benchledger --help` lists them without importing them (`cli.lazy_commands`).",
        "",
        "Generated: `python -m benchledger.cli.lazy_commands` writes it again.",
        '"""',
        "",
        "INDEX: dict[str, tuple[int, tuple[tuple[str, str, str, bool, bool], ...]]] = {",
    ]
    for module in _module_names():
        commands = getattr(importlib.import_module(f"{COMMANDS_PACKAGE}.{module}"), "COMMANDS", ())
        entries = "".join(f"\n        {_entry(command)!r}," for command in commands)
        lines.append(f"    {module!r}: ({_checksum(module)}, ({entries}\n    )),")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    _INDEX_FILE.write_text(index_source(), encoding="utf-8")
    print(f"wrote {_INDEX_FILE}", file=sys.stderr)
