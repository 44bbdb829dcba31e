"""Showing a run's report: the scorecard on stdout, the JSON to --out, written whole or not at all."""

from __future__ import annotations

import json
from pathlib import Path

import click
from benchledger.files import write_atomic
from benchledger.orchestration.reports import report_of
from benchledger.projections.report import Report
from benchledger.projections.state import fold_run
from benchledger.projections.scorecard import render_scorecard

__all__ = ["report_for", "show_report", "write_json_atomic"]


def report_for(ledger, run_id: str, *, scorer_id: str | None = None, scoring_rule: int | None = None) -> Report:
    """The report of a recorded run under its benchmark's conditions."""
    rule = {"scoring_rule": scoring_rule} if scoring_rule is not None else {}
    return report_of(fold_run(run_id, ledger.events(run_id)), scorer_id=scorer_id, **rule)


def write_json_atomic(path: Path, value) -> None:
    """Write `value` as indented JSON, whole or not at all (`benchledger.files.write_atomic`)."""
    write_atomic(path, json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def show_report(report: Report, *, out: Path | None = None, as_json: bool = False) -> None:
    if out is not None:
        write_json_atomic(out, report.model_dump(mode="json"))
    if as_json:
        click.echo(report.model_dump_json(indent=2))
    else:
        click.echo(render_scorecard(report))
