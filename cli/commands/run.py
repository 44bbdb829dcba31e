"""`benchledger run <benchmark> ...`: run a released benchmark against a memory system.

Each subcommand loads its release (bad input exits 2 before anything is written), then makes one
library call (`ledger.run.session.run_dataset`) and prints the scorecard. A run that aborts still
prints what the ledger holds, then exits 1.
"""

from __future__ import annotations

from pathlib import Path

import click
from benchledger.cli.common import AppContext, open_ledger, pass_app
from benchledger.cli.options import memory_options, model_options, run_options, settings_from_options, split_csv
from benchledger.cli.progress import make_progress
from benchledger.cli.render import report_for, show_report
from benchledger.errors import RunAborted
from benchledger.orchestration.session import run_dataset
from benchledger.redaction import redact, register_secret_env

__all__ = ["COMMANDS", "run", "execute_run"]


@click.group()
def run() -> None:
    """Run a released benchmark against a memory system and record every stage."""


def execute_run(app: AppContext, dataset, opts: dict) -> None:
    """Shared by every benchmark subcommand: settings, the run, the scorecard."""
    settings = settings_from_options(app, opts)
    register_secret_env(settings.api_key_env)
    progress = make_progress(app.log_format)
    with open_ledger(app) as ledger:
        try:
            run_id = run_dataset(ledger, dataset, settings, redact=redact, progress=progress)
        except RunAborted as err:
            if err.run_id:
                show_report(report_for(ledger, err.run_id), out=opts.get("out"))
            raise
        show_report(report_for(ledger, run_id), out=opts.get("out"))


@run.command("groupmem")
@click.argument("corpus_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--domain", required=True, help="Domain folder name (Finance, Technology, ...).")
@click.option("--kinds", multiple=True, help="Question kinds to ask (comma-separated or repeated) [default: all six].")
@click.option("--message-limit", type=click.IntRange(min=0), default=None, help="Ingest only the first N messages (diagnostic).")
@click.option("--question-limit", type=click.IntRange(min=0), default=None, help="Ask only the first N questions of each kind (diagnostic).")
@memory_options
@model_options
@run_options
@pass_app
def run_groupmem(app: AppContext, corpus_dir: Path, domain: str, kinds: tuple[str, ...],
                 message_limit: int | None, question_limit: int | None, **opts) -> None:
    """Run GroupMemBench (CORPUS_DIR holds data/final, questions and prompts) for one domain."""
    from benchledger.adapters.benchmarks.groupmem.loader import load_groupmem

    dataset = load_groupmem(corpus_dir, domain, kinds=split_csv(kinds) or None,
                            message_limit=message_limit, question_limit=question_limit)
    execute_run(app, dataset, opts)


COMMANDS = [run]
