"""`benchledger retrieval <benchmark> SOURCE`: evidence recall of a memory system, with no model call.

One subcommand per installed benchmark that labels evidence, and one per action benchmark that refuses
in one line before it reads anything (`registry.retrieval_refusal`: a recalled memory is not an
action, so an action benchmark has no retrieval score). Each other one loads its release (bad input
exits 2 before anything is written), makes one library call (`run_dataset` in retrieval mode,
which records the run on the ledger like any run) and prints recall@k, recall_all@k and NDCG@k
overall and per category, folded back from the stored events, then the benchmark's official
retrieval numbers where it declares them; `--json` prints the same numbers with the run id.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from benchledger.adapters.benchmarks.registry import Benchmark, retrieval_refusal
from benchledger.adapters.memory.registry import load_memory_class
from benchledger.cli.benchmark_commands import BenchmarkGroup, add_benchmark_commands
from benchledger.cli.commands.run import interrupted_run, source_argument, source_or_fetched
from benchledger.clock import new_run_id
from benchledger.cli.common import AppContext, echo_json, json_option, open_ledger, pass_app
from benchledger.errors import BadInput
from benchledger.cli.options import (
    concurrency_option, k_option, keep_option, memory_options, prices_option, selection_from_options, selection_options,
    settings_from_options, token_budget_option,
)
from benchledger.cli.progress import make_progress
from benchledger.cli.render import render_metrics
from benchledger.orchestration.prices import read_prices
from benchledger.orchestration.session import resolved_settings, run_dataset
from benchledger.orchestration.reports import retrieval_of
from benchledger.projections.prices import cost_lines, run_costs
from benchledger.projections.state import fold_run
from benchledger.redaction import redact

__all__ = ["COMMANDS", "retrieval"]


@click.group(cls=BenchmarkGroup)
def retrieval() -> None:
    """Score how well a memory system recalls the released evidence (no answer or judge model)."""


def _execute(app: AppContext, benchmark: Benchmark, source: Path | None, opts: dict[str, Any]) -> None:
    found = source_or_fetched(benchmark, source)
    dataset = benchmark.load(found, selection_from_options(benchmark, opts, found))
    settings = resolved_settings(benchmark, settings_from_options(app, opts, mode="retrieval"))
    load_memory_class(settings.memory)  # an unknown or ambiguous --memory is refused before a ledger is made
    prices = read_prices(opts["prices"]) if opts.get("prices") is not None else None
    run_id = new_run_id()
    with open_ledger(app) as ledger:
        try:
            run_dataset(ledger, dataset, settings, redact=redact, progress=make_progress(app.log_format),
                        run_id=run_id)
        except KeyboardInterrupt:
            raise interrupted_run(app, ledger, run_id, resumable=False) from None
        events = ledger.reader.events(run_id)
        metrics = retrieval_of(events)
        costs = run_costs(fold_run(run_id, events), prices) if prices is not None else None
    if opts["as_json"]:
        echo_json({**metrics, "run_id": run_id, **({"costs": costs.as_json()} if costs is not None else {})})
        return
    click.echo(f"run {run_id}: {dataset.benchmark} {dataset.subset}, memory {settings.memory}, "
               f"{len(dataset.questions)} questions")
    click.echo(render_metrics(metrics, settings.k))
    if costs is not None:
        click.echo("\n".join(cost_lines(costs)))


def _refusing_command(benchmark: Benchmark, refusal: str) -> click.Command:
    def refuse(args: tuple[str, ...]) -> None:
        raise BadInput(refusal, field="benchmark")

    return click.Command(benchmark.command, callback=refuse, params=[click.Argument(["args"], nargs=-1)],
                         help=f"Refused: {refusal}",
                         context_settings={"ignore_unknown_options": True, "allow_extra_args": True})


def _retrieval_command(benchmark: Benchmark) -> click.Command:
    refusal = retrieval_refusal(benchmark)
    if refusal is not None:
        return _refusing_command(benchmark, refusal)

    def command(app: AppContext, source: Path | None, **opts: Any) -> None:
        _execute(app, benchmark, source, opts)

    command.__doc__ = f"Evidence recall on {benchmark.name} {benchmark.source_metavar} (no model call)."
    decorated = pass_app(source_argument(benchmark)(selection_options(benchmark)(memory_options(
        k_option(token_budget_option(concurrency_option(keep_option(prices_option(json_option(command))))))))))
    return click.command(benchmark.command)(decorated)


add_benchmark_commands(retrieval, _retrieval_command,
                       offered=lambda benchmark: benchmark.retrieval or benchmark.kind == "action")

COMMANDS = [retrieval]
