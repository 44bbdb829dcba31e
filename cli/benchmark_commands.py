"""One subcommand per installed benchmark, for the groups that offer one (`run`, `retrieval`).

A command registered by a single distribution is added under its own name. A name two distributions
both register is added once per distribution under `COMMAND@DISTRIBUTION`, and the bare name becomes a
command that refuses with one line naming the choices (exit 2), so neither silently wins.

The subcommands are made when the group's commands are first looked up (`BenchmarkGroup`), not when
the module is imported: finding and loading the installed benchmarks (entry points, each adapter's
pins) is most of the start-up of a command that needs none of them (`benchledger --help`, `show`).
"""

from __future__ import annotations

from collections.abc import Callable

import click

from benchledger.adapters.benchmarks.registry import Benchmark, available_benchmarks, benchmark_named

__all__ = ["BenchmarkGroup", "add_benchmark_commands"]


class BenchmarkGroup(click.Group):
    """A click group whose benchmark subcommands are added on the first read of its commands.

    click itself reads and writes the subcommands through `commands` (listing, resolving, help), so
    that attribute is where the deferred additions run, once.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._pending: list[Callable[[click.Group], None]] = []
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    @property  # type: ignore[override]
    def commands(self) -> dict[str, click.Command]:
        pending, self._pending = self._pending, []
        for add in pending:  # each adds through `commands` again: nothing is pending by then
            add(self)
        return self._commands

    @commands.setter
    def commands(self, value: dict[str, click.Command]) -> None:
        self._commands = value

    def defer(self, add: Callable[[click.Group], None]) -> None:
        """Run `add(self)` when the commands are first read."""
        self._pending.append(add)


def _refusing(name: str) -> click.Command:
    def refuse(args: tuple[str, ...]) -> None:
        benchmark_named(name)  # raises the one-line BadInput naming each distribution

    return click.Command(name, callback=refuse, params=[click.Argument(["args"], nargs=-1)],
                         help=f"{name!r} is registered by several distributions: run one as NAME@DISTRIBUTION.",
                         context_settings={"ignore_unknown_options": True, "allow_extra_args": True})


def add_benchmark_commands(group: click.Group, make: Callable[[Benchmark], click.Command],
                           offered: Callable[[Benchmark], bool] = lambda benchmark: True) -> None:
    """Add `make(benchmark)` to `group` for each installed benchmark that is `offered` (when its
    commands are first read, for a `BenchmarkGroup`)."""
    def add(target: click.Group) -> None:
        for entry in available_benchmarks():
            if entry.loaded is None or not offered(entry.loaded):
                continue
            if not entry.shared:
                target.add_command(make(entry.loaded))
                continue
            target.add_command(make(entry.loaded), entry.qualified)
            target.add_command(_refusing(entry.name))

    if isinstance(group, BenchmarkGroup):
        group.defer(add)
    else:
        add(group)
