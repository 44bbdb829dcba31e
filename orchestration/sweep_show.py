"""`sweep show`: each cell's run read from the ledger, verified and folded, for the sweep's report.

Each done cell's run is read as `compare` reads a run (`recorded_run`: verified, folded, its
headline scorer chosen; its report under its benchmark; its context format measured from the
recorded candidates), so the report's like-for-like check (`projections.sweep_report`) is the
compare rules over the same facts. A cell without a done run is listed as not done.
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.registry import benchmark_named
from benchledger.ledger.recorder import EventReader
from benchledger.orchestration.compare import context_format, memory_role
from benchledger.orchestration.recorded import recorded_run
from benchledger.orchestration.reports import report_of
from benchledger.orchestration.sweep import cell_done, cell_runs
from benchledger.orchestration.sweep_file import Sweep, seed_fields
from benchledger.projections.compare import CompareInput
from benchledger.projections.prices import PriceTable
from benchledger.projections.sweep_report import SweepInput, SweepReport, sweep_report

__all__ = ["sweep_inputs", "show_sweep"]


def sweep_inputs(reader: EventReader, sweep: Sweep) -> list[SweepInput]:
    """Every cell of the sweep with its newest tagged run, folded when it is done."""
    runs = cell_runs(reader, sweep.name)
    inputs = []
    for cell in sweep.cells:
        found = runs.get(cell.id, [])
        if not found:
            inputs.append(SweepInput(cell.id, cell.benchmark, cell.system, cell.epoch, None, False, "no run yet", None))
            continue
        recorded = recorded_run(reader, found[0])
        done, detail = cell_done(recorded.state)
        run = CompareInput(recorded.state, report_of(recorded.state), context_format(reader, recorded.state),
                           role=memory_role(recorded.state)) if done else None
        inputs.append(SweepInput(cell.id, cell.benchmark, cell.system, cell.epoch, recorded.run_id, done, detail, run))
    return inputs


def show_sweep(reader: EventReader, sweep: Sweep, *, prices: PriceTable | None = None) -> SweepReport:
    """The sweep's report (BadInput when a cell's epochs are not like for like)."""
    varied = {cell.benchmark: seed_fields(benchmark_named(cell.args[0])) for cell in sweep.cells}
    return sweep_report(sweep.name, sweep_inputs(reader, sweep), varied=varied, prices=prices)
