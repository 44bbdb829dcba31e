"""`benchledger sweep plan|run|show FILE`: benchmarks x memory systems x models x epochs, on one ledger.

Thin: the file is read by `orchestration.sweep_file`, the cells planned and run by
`orchestration.sweep`, the report folded by `projections.sweep_report`. What this module adds is
how a cell becomes a run: its `benchledger run` arguments are parsed by the `run` command's own
options and turned into settings by the same function `run` uses (`run.prepared_run`), so a cell
is the run `run` would make, tagged with its sweep and cell. Every cell is prepared (and each
model choice's endpoint probed) before the ledger is opened, so a bad cell is refused before
anything is written or spent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from benchledger.cli.common import AppContext, echo_json, open_ledger, pass_app
from benchledger.cli.hints import interrupted, suggest
from benchledger.cli.options import prices_option

__all__ = ["COMMANDS", "sweep"]

_file_argument = click.argument("sweep_file", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path))


@click.group()
def sweep() -> None:
    """Run a matrix of benchmarks x memory systems x models x epochs, each cell an ordinary run."""


def cell_preparer(ctx: click.Context, app: AppContext, sweep_path: Path):
    """cell -> its CellRun, made as `benchledger run` makes a run from these arguments (memoised)."""
    from benchledger.adapters.benchmarks.registry import benchmark_named
    from benchledger.cli.commands.run import prepared_run, run
    from benchledger.errors import BadInput
    from benchledger.orchestration.sweep import CellRun
    from benchledger.redaction import register_secret_env

    made: dict[str, CellRun] = {}

    def prepare(cell) -> CellRun:
        if cell.id in made:
            return made[cell.id]
        refused = f"cell {cell.id}: `{cell.command()}` is refused"
        command = run.get_command(ctx, cell.args[0])
        assert command is not None, "the sweep file names installed benchmarks only"
        try:
            parsed = command.make_context(f"run {cell.args[0]}", list(cell.args[1:]), parent=ctx)
        except click.UsageError as err:
            raise BadInput(f"{refused}: {err.format_message()}", file=str(sweep_path)) from None
        opts: dict[str, Any] = dict(parsed.params)
        source = opts.pop("source", None)
        benchmark = benchmark_named(cell.args[0])
        try:
            dataset, settings = prepared_run(app, benchmark, source, opts)
        except BadInput as err:
            raise BadInput(f"{refused}: {err}", file=str(sweep_path)) from None
        register_secret_env(settings.api_key_env)
        made[cell.id] = CellRun(dataset, settings, benchmark)
        return made[cell.id]

    return prepare


@sweep.command("plan")
@_file_argument
@pass_app
@click.pass_context
def plan_command(ctx: click.Context, app: AppContext, sweep_file: Path) -> None:
    """Print the sweep's cells, the calls each is forecast to make, and which are done on the ledger."""
    from benchledger.orchestration.sweep import plan_sweep
    from benchledger.orchestration.sweep_file import read_sweep
    from benchledger.tables import render_table

    sweep_read = read_sweep(sweep_file)
    prepare = cell_preparer(ctx, app, sweep_file)
    for cell in sweep_read.cells:
        prepare(cell)
    if app.ledger_url is None and not app.ledger_path.exists():  # planning writes nothing, a ledger least of all
        planned = plan_sweep(None, sweep_read, prepare)
    else:
        with open_ledger(app, create=False) as ledger:
            planned = plan_sweep(ledger.reader, sweep_read, prepare)
    rows = []
    for status, forecast in planned:
        stages = getattr(forecast, "stages", {})
        memory = getattr(forecast, "memory", None)
        rows.append([status.cell.number, status.cell.id,
                     f"done ({status.run_id})" if status.action == "done" else
                     f"resume {status.run_id}: {status.detail}" if status.action == "resume" else "to run",
                     *(stages[s].calls if s in stages else 0 for s in ("answer", "judge")),
                     "not forecast" if memory is None else sum(p.calls for p in memory)])
    done = sum(1 for p in planned if p.status.action == "done")
    file = sweep_read.file
    click.echo(f"sweep {sweep_read.name}: {len(planned)} cells ({len(file.benchmarks)} benchmark(s) x "
               f"{len(file.memories)} memory system(s) x {len(file.models)} model choice(s) x {file.epochs} epoch(s)); "
               f"{done} done, {len(planned) - done} to run or resume")
    click.echo(render_table(rows, ["#", "cell", "on the ledger", "answer calls", "judge calls", "memory calls"],
                            align=["right", "left", "left", "right", "right", "right"], indent="  "))
    click.echo("  calls: the forecast of the cell's whole run (`run --dry-run`), nothing asked; a resume asks only "
               "what its run has not recorded")
    click.echo("  each cell is the run this command makes (tagged with the sweep and cell):")
    for cell in sweep_read.cells:
        click.echo(f"  {cell.number}. {cell.command()}")


def _probe(cells, prepare) -> None:
    """Each model choice's endpoint, once, before the ledger is opened (as `run` probes before it)."""
    from benchledger.orchestration.session import probe_run_endpoint

    seen: set[str] = set()
    for cell in cells:
        if cell.model not in seen:
            seen.add(cell.model)
            cell_run = prepare(cell)
            probe_run_endpoint(cell_run.settings, cell_run.dataset, benchmark=cell_run.benchmark)


@sweep.command("run")
@_file_argument
@click.option("--parallel", type=click.IntRange(1, 64), default=None,
              help="Cells run at once [default: the file's `parallel`, else 1]; cells on one memory system never "
                   "run at the same time.")
@click.option("--cells", "limit", type=click.IntRange(min=1), default=None,
              help="Run at most N of the cells not yet done, then stop (the next `sweep run` goes on).")
@click.option("--queue", "to_queue", is_flag=True,
              help="On a PostgreSQL ledger: enqueue the cells not done as jobs for `benchledger worker` on any "
                   "machine, instead of running them here.")
@pass_app
@click.pass_context
def run_command(ctx: click.Context, app: AppContext, sweep_file: Path, parallel: int | None,
                limit: int | None, to_queue: bool) -> None:
    """Run every cell not yet done as an ordinary run; an interrupted cell is resumed as `resume` would."""
    if to_queue:
        _enqueue(ctx, app, sweep_file, limit)
        return
    from benchledger.cli.progress import SweepProgress
    from benchledger.cli.render import report_for
    from benchledger.errors import RunIncomplete
    from benchledger.ledger.store import Ledger
    from benchledger.orchestration.sweep import SweepEvents, run_sweep, sweep_status
    from benchledger.orchestration.sweep_file import read_sweep
    from benchledger.orchestration.sweep_show import show_sweep
    from benchledger.projections.sweep_report import render_sweep
    from benchledger.redaction import redact

    sweep_read = read_sweep(sweep_file)
    prepare = cell_preparer(ctx, app, sweep_file)
    for cell in sweep_read.cells:  # every cell refused or made before anything is written
        prepare(cell)
    _probe(sweep_read.cells, prepare)
    if any(prepare(cell).settings.agent_model is None for cell in sweep_read.cells):
        click.echo("offline: cells whose [[models]] name no `agent` use the deterministic offline models "
                   "(a labelled, diagnostic baseline)", err=True)
    total = len(sweep_read.cells)
    display = SweepProgress(app.log_format, len(sweep_read.cells))
    at_once = parallel or sweep_read.file.parallel
    current: dict[str, str] = {}

    def started(cell, action: str, run_id: str) -> None:
        current[cell.id] = run_id
        click.echo(f"[{cell.number}/{total}] {cell.id}: {'resume' if action == 'resume' else 'run'} {run_id}", err=True)

    def progress(cell):
        return display.for_cell(cell.number)

    with open_ledger(app) as ledger:
        def finished(outcome) -> None:
            current.pop(outcome.cell.id, None)
            shown = ""
            if outcome.run_id is not None and outcome.done:
                report = report_for(ledger, outcome.run_id)
                shown = f" {report.metric} {100 * report.score:.1f}%, {report.status}" if report.score is not None else ""
            click.echo(f"[{outcome.cell.number}/{total}] {outcome.cell.id}: "
                       + (f"done{shown}" if outcome.done else f"NOT DONE ({outcome.detail})"), err=True)

        skipped = sum(1 for s in sweep_status(ledger.reader, sweep_read) if s.action == "done")
        if skipped:
            click.echo(f"{skipped} of {total} cells already done on the ledger: skipped", err=True)
        try:
            outcomes = run_sweep(ledger, sweep_read, prepare, limit=limit, parallel=at_once, redact=redact,
                                 events=SweepEvents(started=started, finished=finished, progress=progress),
                                 open_recorder=lambda: Ledger.open(app.ledger_target))
        except KeyboardInterrupt:
            where = ", ".join(f"{cell} (run {run_id})" for cell, run_id in current.items()) or "between cells"
            raise interrupted(f"sweep {sweep_read.name} stopped in {where}; what finished is on the ledger. Continue "
                              f"it with: {suggest(app, 'sweep', 'run', str(sweep_file))}") from None
        left = [s for s in sweep_status(ledger.reader, sweep_read) if s.action != "done"]
        click.echo(render_sweep(show_sweep(ledger.reader, sweep_read)))
    again = suggest(app, "sweep", "run", str(sweep_file))
    failed = [o for o in outcomes if not o.done]
    if failed:
        raise RunIncomplete(f"{len(failed)} of {len(outcomes)} cells run are not done ("
                            + "; ".join(f"{o.cell.id}: {o.detail}" for o in failed) + f"); resume them with `{again}`")
    if left:
        click.echo(f"{len(left)} cell(s) left to run: `{again}` goes on", err=True)


def _enqueue(ctx: click.Context, app: AppContext, sweep_file: Path, limit: int | None) -> None:
    """`sweep run --queue`: every cell not done (at most `limit`) as a job of the ledger's queue."""
    from benchledger.errors import BadInput
    from benchledger.orchestration.sweep import sweep_status
    from benchledger.orchestration.sweep_file import read_sweep
    from benchledger.orchestration.sweep_queue import CellJob, enqueue_cells, sweep_sha256

    if app.ledger_url is None:
        raise BadInput("--queue needs a ledger on PostgreSQL (--ledger postgresql://...): workers on other machines "
                       "share it; on a SQLite file, `sweep run FILE --parallel N` runs cells at once here",
                       field="queue")
    sweep_read = read_sweep(sweep_file)
    prepare = cell_preparer(ctx, app, sweep_file)
    for cell in sweep_read.cells:  # every cell refused or made before anything is queued
        prepare(cell)
    path = sweep_file.resolve()
    digest = sweep_sha256(path)
    with open_ledger(app, create=False) as ledger:
        todo = [s.cell for s in sweep_status(ledger.reader, sweep_read) if s.action != "done"][:limit]
    added, kept = enqueue_cells(app.ledger_url, [CellJob(str(path), digest, cell.id, cell.memory) for cell in todo])
    click.echo(f"sweep {sweep_read.name}: {len(sweep_read.cells) - len(todo)} cell(s) done, {added} queued, "
               f"{kept} already queued or running")
    click.echo(f"  run cells on any machine with this file at {path}: benchledger --ledger URL worker --until-empty")
    click.echo(f"  then: {suggest(app, 'sweep', 'show', str(sweep_file))}")


@sweep.command("show")
@_file_argument
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print one CSV row per system and benchmark.")
@click.option("--chart", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also draw the table as a bar chart to this .svg or .png (needs the chart extra).")
@prices_option
@pass_app
def show_command(app: AppContext, sweep_file: Path, as_json: bool, as_csv: bool, chart: Path | None,
                 prices: Path | None) -> None:
    """The sweep's report: one row per system, one column per benchmark (its headline), mean, sd and 95%
    interval over epochs, calls and cost per system, each cell publishable or diagnostic and why."""
    from benchledger.errors import BadInput
    from benchledger.orchestration.prices import read_prices
    from benchledger.orchestration.sweep_file import read_sweep
    from benchledger.orchestration.sweep_show import show_sweep
    from benchledger.projections.sweep_report import render_sweep, sweep_csv

    if as_json and as_csv:
        raise BadInput("give --json or --csv, not both", field="csv")
    sweep_read = read_sweep(sweep_file)
    table = read_prices(prices) if prices is not None else None
    with open_ledger(app, create=False) as ledger:
        report = show_sweep(ledger.reader, sweep_read, prices=table)
    if chart is not None:
        from benchledger.orchestration.sweep_chart import draw_sweep_chart

        click.echo(f"chart written to {draw_sweep_chart(report, chart)}", err=True)
    if as_json:
        echo_json(report.model_dump(mode="json"))
    elif as_csv:
        click.echo(sweep_csv(report), nl=False)
    else:
        click.echo(render_sweep(report))


COMMANDS = [sweep]
