"""`benchledger check groupmem PATH`: what a release folder holds before anything is run.

Prints one row per domain (corpus messages and channels, questions per kind), then names each
missing corpus file and each invalid file on its own line. Exits 2 when anything is missing or
invalid, so scripts can gate a run on it.
"""

from __future__ import annotations

from pathlib import Path

import click
from tabulate import tabulate

from benchledger.adapters.benchmarks.groupmem.check import CheckReport, check_groupmem
from benchledger.adapters.benchmarks.groupmem.schema import KINDS
from benchledger.cli.common import echo_json, json_option

__all__ = ["COMMANDS", "check"]


@click.group()
def check() -> None:
    """Check a released benchmark folder: counts, missing files, invalid records."""


def _render(report: CheckReport) -> None:
    rows = [
        [d.domain, "present" if d.corpus_present else "MISSING",
         "-" if d.messages is None else d.messages, "-" if d.channels is None else d.channels,
         *(d.questions[kind] for kind in KINDS), d.total_questions]
        for d in report.domains
    ]
    rows.append(["total", "", "", "", *(sum(d.questions[k] for d in report.domains) for k in KINDS),
                 report.total_questions])
    click.echo(tabulate(rows, headers=["domain", "corpus", "messages", "channels", *KINDS, "total"]))
    for path in report.missing_corpora:
        click.echo(f"missing corpus: {path}")
    for problem in (*report.problems, *(p for d in report.domains for p in d.problems)):
        click.echo(f"invalid: {problem}")
    click.echo("ok" if report.ok else "not ok: the release is incomplete or invalid")


@check.command("groupmem")
@click.argument("path", type=click.Path(file_okay=False, path_type=Path))
@click.option("--domain", default=None, help="Check one domain only [default: every domain found].")
@json_option
@click.pass_context
def check_groupmem_command(ctx: click.Context, path: Path, domain: str | None, as_json: bool) -> None:
    """Count a GroupMemBench release (PATH holds questions/, data/final/, prompts/)."""
    report = check_groupmem(path, domain)
    if as_json:
        echo_json(report.model_dump(mode="json"))
    else:
        _render(report)
    if not report.ok:
        ctx.exit(2)


COMMANDS = [check]
