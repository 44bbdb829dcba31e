"""`benchledger memories`: which memory systems are installed, their versions, where they come from."""

from __future__ import annotations

import click

from benchledger.adapters.memory.registry import available_memories
from benchledger.cli.common import echo_json, json_option
from benchledger.tables import render_table

__all__ = ["COMMANDS", "memories"]


@click.command()
@json_option
def memories(as_json: bool) -> None:
    """List the memory systems installed (entry points in group benchledger.memory).

    A name two distributions both register is listed once per distribution as NAME@DISTRIBUTION, the
    name to choose it by with --memory."""
    infos = available_memories()
    if as_json:
        echo_json([{"name": listed, "version": info.version, "module": info.module,
                    "distribution": info.distribution, "error": info.error} for listed, info in infos.items()])
        return
    rows = [
        (listed, info.version or "-", info.module, info.distribution or "-",
         f"cannot load: {info.error}" if info.error else "ok")
        for listed, info in infos.items()
    ]
    click.echo(render_table(rows, ["name", "version", "module", "distribution", "status"], align=["left"] * 5,
                            drop=("module", "distribution")))


COMMANDS = [memories]
