"""`benchledger benchmarks`: which benchmarks are installed, what they select, how they can run."""

from __future__ import annotations

import click

from benchledger.adapters.benchmarks.registry import BenchmarkEntry, available_benchmarks, retrieval_refusal
from benchledger.cli.common import echo_json, json_option
from benchledger.tables import render_table
from benchledger.projections.publishable import condition_name

__all__ = ["COMMANDS", "benchmarks"]


def _as_dict(entry: BenchmarkEntry) -> dict[str, object]:
    b = entry.loaded
    return {
        "command": entry.name, "qualified": entry.qualified, "shared": entry.shared, "target": entry.module,
        "distribution": entry.distribution, "error": entry.error,
        **({} if b is None else {
            "name": b.name, "kind": b.kind, "summary": b.summary, "source": b.source_metavar, "kind_label": b.kind_label,
            "kinds": list(b.kinds), "protocols": list(b.protocols), "default_protocol": b.default_protocol,
            "retrieval": retrieval_refusal(b) is None, "selection": list(b.selection_model.model_fields),
            "conditions": [condition_name(c) for c in b.conditions],
        }),
    }


@click.command()
@json_option
def benchmarks(as_json: bool) -> None:
    """List the benchmarks installed (entry points in group benchledger.benchmarks).

    A command two distributions both register is listed once per distribution as COMMAND@DISTRIBUTION,
    the name to run it by."""
    entries = available_benchmarks()
    if as_json:
        echo_json([_as_dict(entry) for entry in entries])
        return
    rows = []
    for entry in entries:
        b = entry.loaded
        command = entry.qualified if entry.shared else entry.name
        if b is None:
            rows.append((command, "-", "-", "-", "-", "-", entry.distribution or "-", f"cannot load: {entry.error}"))
            continue
        rows.append((command, b.name, b.kind, f"{b.source_metavar}", ", ".join(b.protocols),
                     "yes" if retrieval_refusal(b) is None else "no", entry.distribution or "-", b.summary))
    click.echo(render_table(rows, ["command", "name", "kind", "source", "protocols", "retrieval", "distribution",
                                   "what it is"], align=["left"] * 8, drop=("distribution", "source", "protocols")))


COMMANDS = [benchmarks]
