"""`benchledger --ledger postgresql://... worker [--until-empty]`: take sweep cells from the ledger's queue.

Thin: the queue is `orchestration.sweep_queue` (procrastinate); a cell is run by
`orchestration.sweep.run_one_cell` from the sweep file the job names, prepared exactly as `sweep
run` prepares it (`sweep.cell_preparer`: the cell's `run` arguments parsed by `run` itself). A job whose
file is missing or no longer the one enqueued (its SHA-256 changed) fails with that reason; so does
a cell whose run aborts (the worker then exits 3 once it stops). Each cell's start and end is one
line on stderr.
"""

from __future__ import annotations

from pathlib import Path

import click

from benchledger.cli.common import AppContext, open_ledger, pass_app

__all__ = ["COMMANDS", "worker"]


@click.command("worker")
@click.option("--until-empty", is_flag=True,
              help="Exit once no cell is left to do or held by a live worker (for scripts and tests).")
@click.option("--heartbeat", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              help="Seconds between this worker's heartbeats.")
@click.option("--stalled-after", type=click.FloatRange(min=0.5), default=60.0, show_default=True,
              help="Seconds without a heartbeat after which another worker's cell is put back in the queue.")
@pass_app
@click.pass_context
def worker(ctx: click.Context, app: AppContext, until_empty: bool, heartbeat: float, stalled_after: float) -> None:
    """Run cells of sweeps queued with `sweep run FILE --queue` on this PostgreSQL ledger, one at a time."""
    from benchledger.cli.commands.sweep import cell_preparer
    from benchledger.errors import BadInput, RunAborted
    from benchledger.ledger.urls import display_target
    from benchledger.orchestration.sweep import SweepEvents, run_one_cell
    from benchledger.orchestration.sweep_file import read_sweep
    from benchledger.orchestration.sweep_queue import CellJob, sweep_sha256, work
    from benchledger.redaction import redact

    if app.ledger_url is None:
        raise BadInput("a worker takes cells from a ledger on PostgreSQL: pass --ledger postgresql://...",
                       field="ledger")
    if stalled_after <= heartbeat:
        raise BadInput(f"--stalled-after ({stalled_after}s) must be longer than --heartbeat ({heartbeat}s), or live "
                       "workers' cells would be taken from them", field="stalled_after")
    prepared: dict[str, object] = {}
    not_done: list[str] = []

    def handle(job: CellJob) -> None:
        path = Path(job.sweep_path)
        if not path.is_file() or sweep_sha256(path) != job.sweep_sha256:
            why = (f"the sweep file {path} is missing here or changed since it was queued (every worker needs the "
                   "same file at the same path)")
            click.echo(f"cell {job.cell_id}: refused: {why}", err=True)
            not_done.append(f"{job.cell_id}: {why}")
            raise RunAborted(f"cell {job.cell_id}: {why}")
        sweep_read = read_sweep(path)
        if job.sweep_sha256 not in prepared:  # one preparer per file: it keeps the cells it made
            prepared[job.sweep_sha256] = cell_preparer(ctx, app, path)
        prepare = prepared[job.sweep_sha256]

        def started(cell, action: str, run_id: str) -> None:
            click.echo(f"cell {cell.id}: {'resume' if action == 'resume' else 'run'} {run_id}", err=True)

        def finished(outcome) -> None:
            click.echo(f"cell {outcome.cell.id}: {'done' if outcome.done else 'NOT DONE (' + outcome.detail + ')'}",
                       err=True)

        with open_ledger(app, create=False) as ledger:
            outcome = run_one_cell(ledger, sweep_read, job.cell_id, prepare,  # type: ignore[arg-type]
                                   events=SweepEvents(started=started, finished=finished), redact=redact)
        if outcome.action == "done":
            click.echo(f"cell {job.cell_id}: already done ({outcome.run_id})", err=True)
        elif not outcome.done:
            not_done.append(f"{job.cell_id}: {outcome.detail}")
            raise RunAborted(f"cell {job.cell_id}: {outcome.detail}")

    click.echo(f"worker on {display_target(app.ledger_url)}: taking sweep cells"
               + (" until none is left" if until_empty else " (Ctrl-C stops it)"), err=True)
    try:
        work(app.ledger_url, handle, until_empty=until_empty, heartbeat=heartbeat, stalled_after=stalled_after)
    except KeyboardInterrupt:
        click.echo("worker stopped; a cell it held goes back to the queue once its heartbeat is stale", err=True)
    if not_done:
        from benchledger.errors import RunIncomplete

        raise RunIncomplete(f"{len(not_done)} cell(s) this worker took are not done ({'; '.join(not_done)}); "
                            "`sweep show FILE` says why, `sweep run FILE --queue` queues them again")

COMMANDS = [worker]
