"""Showing a run's report: the scorecard on stdout, the JSON to --out, written whole or not at all."""

from __future__ import annotations

import json
from pathlib import Path

import click
from benchledger.errors import RunIncomplete
from benchledger.files import write_atomic
from benchledger.orchestration.reports import report_of
from benchledger.projections.report import Report
from benchledger.projections.state import fold_run
from benchledger.projections.scorecard import render_scorecard

__all__ = ["report_for", "show_report", "write_json_atomic", "require_every_question_judged"]


def report_for(ledger, run_id: str, *, scorer_id: str | None = None, scoring_rule: int | None = None) -> Report:
    """The report of a recorded run under its benchmark's conditions."""
    rule = {"scoring_rule": scoring_rule} if scoring_rule is not None else {}
    return report_of(fold_run(run_id, ledger.events(run_id)), scorer_id=scorer_id, **rule)


def write_json_atomic(path: Path, value) -> None:
    """Write `value` as indented JSON, whole or not at all (`benchledger.files.write_atomic`)."""
    write_atomic(path, json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def require_every_question_judged(report: Report, *, next_step: str) -> None:
    """RunIncomplete (exit 3) unless every planned question was judged: a run with operational
    failures is never done, and the line says how to finish it."""
    if report.judged >= report.total and report.run_status == "completed":
        return
    missing = report.total - report.judged
    raise RunIncomplete(f"run {report.run_id}: {missing} of {report.total} planned question(s) not judged "
                        f"({report.failed} failed); finish it with `{next_step}`")


def show_report(report: Report, *, out: Path | None = None, as_json: bool = False) -> None:
    if out is not None:
        write_json_atomic(out, report.model_dump(mode="json"))
    if as_json:
        click.echo(report.model_dump_json(indent=2))
    else:
        click.echo(render_scorecard(report))
