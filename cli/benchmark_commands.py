"""One subcommand per installed benchmark, for the groups that offer one (`run`, `retrieval`).

A command registered by a single distribution is added under its own name. A name two distributions
both register is added once per distribution under `COMMAND@DISTRIBUTION`, and the bare name becomes a
command that refuses with one line naming the choices (exit 2), so neither silently wins.
"""

from __future__ import annotations

from collections.abc import Callable

import click

from benchledger.adapters.benchmarks.registry import Benchmark, available_benchmarks, benchmark_named

__all__ = ["add_benchmark_commands"]


def _refusing(name: str) -> click.Command:
    def refuse(args: tuple[str, ...]) -> None:
        benchmark_named(name)  # raises the one-line BadInput naming each distribution

    return click.Command(name, callback=refuse, params=[click.Argument(["args"], nargs=-1)],
                         help=f"{name!r} is registered by several distributions: run one as NAME@DISTRIBUTION.",
                         context_settings={"ignore_unknown_options": True, "allow_extra_args": True})


def add_benchmark_commands(group: click.Group, make: Callable[[Benchmark], click.Command],
                           offered: Callable[[Benchmark], bool] = lambda benchmark: True) -> None:
    """Add `make(benchmark)` to `group` for each installed benchmark that is `offered`."""
    for entry in available_benchmarks():
        if entry.loaded is None or not offered(entry.loaded):
            continue
        if not entry.shared:
            group.add_command(make(entry.loaded))
            continue
        group.add_command(make(entry.loaded), entry.qualified)
        group.add_command(_refusing(entry.name))
