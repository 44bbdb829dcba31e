"""`benchledger check groupmem|mem2actbench PATH`: what a release folder holds before anything is run.

GroupMemBench: one row per domain (corpus messages and channels, questions per kind), then each
missing corpus file and each invalid file on its own line. Mem2ActBench: one row per split (tasks,
sessions, tasks per level, temporal conflicts, gold arguments per grounding type), then each known
defect of the release on its own line (they leave it usable; a run counts them). Exits 2 when
anything is missing or invalid, so scripts can gate a run on it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from tabulate import tabulate

from benchledger.adapters.benchmarks.groupmem.check import CheckReport, check_groupmem
from benchledger.adapters.benchmarks.groupmem.schema import KINDS
from benchledger.adapters.benchmarks.mem2actbench.check import Mem2ActCheck, check_mem2actbench
from benchledger.adapters.benchmarks.mem2actbench.schema import GROUNDING_TYPES, LEVELS
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
    _show(ctx, check_groupmem(path, domain), as_json, _render)


def _show(ctx: click.Context, report: Any, as_json: bool, render: Callable[[Any], None]) -> None:
    """The report as JSON or rendered; exit 2 when it is not ok."""
    if as_json:
        echo_json(report.model_dump(mode="json"))
    else:
        render(report)
    if not report.ok:
        ctx.exit(2)


def _render_mem2act(report: Mem2ActCheck) -> None:
    rows = [[s.split, "present" if s.present else "MISSING", s.tasks, s.sessions, *(s.levels.get(lv, 0) for lv in LEVELS),
             s.temporal_conflicts, *(s.grounding.get(kind, 0) for kind in GROUNDING_TYPES), s.sessions_with_tool_calls]
            for s in report.splits]
    click.echo(tabulate(rows, headers=["split", "files", "tasks", "sessions", *LEVELS, "conflicts", *GROUNDING_TYPES,
                                       "sessions with tool calls"]))
    for split in report.splits:
        if split.problem:
            click.echo(f"invalid: {split.problem}")
        for defect in split.defects:
            click.echo(f"defect: {defect}")
    defects = sum(len(s.defects) for s in report.splits)
    click.echo(("ok" + (f" ({defects} known defect(s), counted on every run's scorecard)" if defects else ""))
               if report.ok else "not ok: a split is missing or invalid")


@check.command("mem2actbench")
@click.argument("path", type=click.Path(file_okay=False, path_type=Path))
@json_option
@click.pass_context
def check_mem2actbench_command(ctx: click.Context, path: Path, as_json: bool) -> None:
    """Count a Mem2ActBench release (PATH holds toolmembench_small/ and Mem2ActBench/) and name its defects."""
    _show(ctx, check_mem2actbench(path), as_json, _render_mem2act)


COMMANDS = [check]
