"""`benchledger run <benchmark> SOURCE ...`: run a released benchmark against a memory system.

One subcommand per installed benchmark (`benchledger benchmarks` lists them), built from its
declaration: SOURCE (optional for a benchmark `benchledger fetch` can fetch: the fetched release is
then read), its selection options, and the memory, model and run option blocks. Each loads
its release (bad input exits 2 before anything is written), makes one library call
(`benchledger.orchestration.session.run_dataset`) and prints the scorecard. A run that aborts still
prints what the ledger holds, then exits 1; one stopped by Ctrl-C names the run and the `resume`
command that continues it, then exits 130.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.adapters.memory.registry import load_memory_class
from benchledger.cli.benchmark_commands import BenchmarkGroup, add_benchmark_commands
from benchledger.cli.common import AppContext, open_ledger, pass_app
from benchledger.cli.hints import interrupted, suggest
from benchledger.cli.options import (
    memory_options, model_options, run_options, selection_from_options, selection_options,
    settings_from_options,
)
from benchledger.callbacks import Progress
from benchledger.cli.progress import make_progress
from benchledger.cli.forecast import render_forecast
from benchledger.cli.render import report_for, require_every_question_judged, show_report
from benchledger.adapters.sources.receipt import fetched_run_path
from benchledger.adapters.sources.settings import release_dir
from benchledger.clock import new_run_id
from benchledger.projections.prices import run_costs
from benchledger.projections.scorecard import offline_note
from benchledger.projections.state import fold_run
from benchledger.errors import BadInput, RunAborted
from benchledger.ledger.events import RunForecast
from benchledger.files import check_writable
from benchledger.orchestration.prices import read_prices
from benchledger.orchestration.session import probe_run_endpoint, resolved_settings, run_dataset
from benchledger.redaction import redact, register_secret_env

__all__ = ["COMMANDS", "run", "prepared_run", "source_argument", "source_or_fetched", "interrupted_run"]


@click.group(cls=BenchmarkGroup)
def run() -> None:
    """Run a released benchmark against a memory system and record every stage."""


def source_argument(benchmark: Benchmark) -> Any:
    """SOURCE, optional for a benchmark that can be fetched: then the fetched release is read."""
    kind = click.Path(file_okay=False, path_type=Path) if benchmark.source_is_dir else \
        click.Path(dir_okay=False, path_type=Path)
    fetchable = benchmark.release_source() is not None or benchmark.demo is not None
    return click.argument("source", metavar=f"[{benchmark.source_metavar}]" if fetchable else benchmark.source_metavar,
                          type=kind, required=not fetchable)


def source_or_fetched(benchmark: Benchmark, source: Path | None) -> Path:
    """The path given, or the release `benchledger fetch` laid out for this benchmark."""
    if source is not None:
        return source
    fetched = fetched_run_path(benchmark.command)
    if fetched is None:
        raise BadInput(f"no {benchmark.source_metavar} given and no fetched {benchmark.name} release in "
                       f"{release_dir(benchmark.command)}: run `benchledger fetch {benchmark.command}` first, "
                       f"or pass the {benchmark.source_metavar}")
    return fetched


def _demo_source(benchmark: Benchmark, source: Path | None, opts: dict[str, Any]) -> Path | None:
    """With --demo, the example release shipped in the package, and its selection where none is given."""
    if not opts.pop("demo", False):
        return source
    assert benchmark.demo is not None
    if source is not None:
        raise BadInput(f"--demo runs the {benchmark.name} example shipped with benchledger; give it or "
                       f"{benchmark.source_metavar}, not both")
    from benchledger.examples import example_path

    name, selection = benchmark.demo
    for field, value in selection:
        if opts.get(field) is None:
            opts[field] = value
    return example_path(name)


def prepared_run(app: AppContext, benchmark: Benchmark, source: Path | None, opts: dict[str, Any]):
    """The dataset and resolved settings a `run BENCHMARK` with these parsed options makes (`opts` is
    consumed), refused as `run` refuses bad input: before anything is written. `sweep` builds each
    cell's run with it, so a cell is the run this command would make."""
    source = source_or_fetched(benchmark, _demo_source(benchmark, source, opts))
    if opts.get("out") is not None:
        check_writable(opts["out"])  # before anything is spent
    selection = selection_from_options(benchmark, opts, source)
    dataset = benchmark.load(source, selection)
    # refused before any write, official templates included
    settings = resolved_settings(benchmark, settings_from_options(app, opts), source=source)
    load_memory_class(settings.memory)  # an unknown or ambiguous --memory is refused before a ledger is made
    return dataset, settings


def _execute_run(app: AppContext, benchmark: Benchmark, source: Path | None, opts: dict[str, Any]) -> None:
    dataset, settings = prepared_run(app, benchmark, source, opts)
    prices = read_prices(opts["prices"]) if opts.get("prices") is not None else None
    from benchledger.orchestration.forecast import forecast_run  # models and clients: not at start-up

    if opts.get("dry_run"):
        click.echo(render_forecast(forecast_run(dataset, settings, benchmark), prices))
        return
    register_secret_env(settings.api_key_env)
    models = probe_run_endpoint(settings, dataset, benchmark=benchmark)  # before a ledger file is made
    forecast = _first_lines_forecast(dataset, settings, benchmark)
    progress = make_progress(app.log_format)
    if models is not None and (models.answer.offline or any(judge.offline for judge in models.judges)):
        progress = _SaidFirst(offline_note(agent_offline=models.answer.offline), progress)
    run_id = new_run_id()
    with open_ledger(app) as ledger:
        try:
            run_dataset(ledger, dataset, settings, redact=redact, progress=progress, run_id=run_id, probed=True,
                        forecast=forecast)
        except RunAborted as err:
            if err.run_id:
                if isinstance(progress, _SaidFirst):
                    progress.say()
                show_report(report_for(ledger, err.run_id), out=opts.get("out"))
            raise
        except KeyboardInterrupt:
            raise interrupted_run(app, ledger, run_id, resumable=True) from None
        if isinstance(progress, _SaidFirst):
            progress.say()  # a run that reported no progress still says it was offline
        report = report_for(ledger, run_id)
        costs = run_costs(fold_run(run_id, ledger.reader.events(run_id)), prices, report.scorer_id) if prices else None
        show_report(report, out=opts.get("out"), costs=costs)
        if settings.keep:
            _say_what_was_kept(app, ledger, run_id, settings)
    require_every_question_judged(report, next_step=f"benchledger resume {run_id}", run_failures=True)


class _SaidFirst:
    """A progress that says `note` once, on stderr, before the run's first progress line.

    The offline note is the run's first line, but only once the run has begun: a refusal before
    anything is recorded (a bad ledger, an oracle without labels) stays the one line it is."""

    def __init__(self, note: str, progress: Progress) -> None:
        self.note, self.progress, self.said = note, progress, False

    def say(self) -> None:
        if not self.said:
            self.said = True
            click.echo(self.note, err=True)

    def __call__(self, stage: str, done: int, total: int, /, **detail: int) -> None:
        self.say()
        self.progress(stage, done, total, **detail)


def _first_lines_forecast(dataset, settings, benchmark: Benchmark) -> RunForecast | None:
    """The forecast a run prints first and records with its start; None when no model is asked.

    A forecast never stops a run: if the protocol's models cannot be asked through the counting
    client, the run goes on unforecast and says so."""
    from benchledger.orchestration.forecast import forecast_run  # models and clients: not at start-up

    try:
        forecast = forecast_run(dataset, settings, benchmark)
    except Exception as err:  # noqa: BLE001 - the forecast is advice; the run is what was asked for
        click.echo(f"forecast: not available for this protocol ({type(err).__name__})", err=True)
        return None
    if not any(stage.calls for stage in forecast.stages.values()):
        return None
    click.echo(forecast.summary(), err=True)
    return forecast.event()


def _say_what_was_kept(app: AppContext, ledger, run_id: str, settings) -> None:
    """With --keep: which scopes stayed in which store, how to reuse them and how to remove them."""
    state = fold_run(run_id, ledger.reader.events(run_id, types=["CorpusFingerprinted", "ScopePurged"]))
    kept = [name for key, name in (state.corpus.scopes.items() if state.corpus else ()) if key not in state.purged]
    if not kept:
        return
    shown = kept[0] if len(kept) == 1 else f"{len(kept)} scopes ({kept[0]}, ...)"
    click.echo(f"kept {shown} in {settings.memory_store}: `--no-prepare` reuses it after the same check; "
               f"`{suggest(app, 'purge', run_id)}` removes it", err=True)


def interrupted_run(app: AppContext, ledger, run_id: str, *, resumable: bool) -> Exception:
    """The Ctrl-C exit of `run` and `retrieval`: the run id, and how to go on."""
    if ledger.reader.head(run_id) is None:
        return interrupted("the run stopped before anything was recorded; start it again")
    if not resumable:
        return interrupted(f"run {run_id} stopped; what finished is on the ledger (`{suggest(app, 'show', run_id)}`); "
                           "a retrieval run is not resumed: start it again")
    return interrupted(f"run {run_id} stopped; what finished is on the ledger. Continue it with: "
                       f"{suggest(app, 'resume', run_id)}")


def _run_command(benchmark: Benchmark) -> click.Command:
    def command(app: AppContext, source: Path | None, **opts: Any) -> None:
        _execute_run(app, benchmark, source, opts)

    command.__doc__ = (f"Run {benchmark.name} ({benchmark.summary}) from {benchmark.source_metavar}; "
                       f"protocols: {', '.join(benchmark.protocols)}.")
    if benchmark.demo is not None:
        command = click.option("--demo", is_flag=True,
                               help=f"Run the {benchmark.demo[0]} example release shipped inside benchledger "
                                    "(offline, no key; a labelled, diagnostic baseline).")(command)
    decorated = pass_app(source_argument(benchmark)(selection_options(benchmark)(memory_options(
        model_options(benchmark)(run_options(command))))))
    return click.command(benchmark.command)(decorated)


add_benchmark_commands(run, _run_command)

COMMANDS = [run]
