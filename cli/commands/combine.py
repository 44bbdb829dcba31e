"""`benchledger combine RUN RUN ...`: one benchmark's report over several runs.

For GroupMemBench, one run per domain with the same memory system, protocol and models gives the
micro-averaged total the paper reports, under both verdict rules, each named. Each run's own
status line comes first, so a combination never hides a diagnostic run.
"""

from __future__ import annotations

import click

from benchledger.cli.common import AppContext, echo_json, json_option, open_ledger, pass_app
from benchledger.orchestration.recorded import recorded_run
from benchledger.orchestration.reports import combined_report
from benchledger.tables import render_table

__all__ = ["COMMANDS"]


@click.command("combine")
@click.argument("run_refs", metavar="RUN...", nargs=-1, required=True)
@json_option
@pass_app
def combine(app: AppContext, run_refs: tuple[str, ...], as_json: bool) -> None:
    """Report several runs of one benchmark together (GroupMemBench: the four domains' total)."""
    with open_ledger(app, create=False) as ledger:
        states = [recorded_run(ledger.reader, run_ref).state for run_ref in run_refs]
    section, reports = combined_report(states)
    if as_json:
        echo_json({"combined": section.model_dump(mode="json"),
                   "runs": [{"run_id": r.run_id, "subset": r.subset, "status": r.status, "scorer_id": r.scorer_id}
                            for r in reports]})
        return
    click.echo(render_table([(r.status.upper(), f"{r.benchmark} / {r.subset}", r.run_id, r.scorer_id)
                             for r in reports], ("status", "benchmark / subset", "run", "scorer"), align=["left"] * 4))
    click.echo("")
    click.echo(section.title)
    for line in section.lines:
        click.echo(f"  {line}".rstrip())


COMMANDS = [combine]
