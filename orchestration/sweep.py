"""Plan and run a sweep on one ledger: every cell an ordinary run, resumable from the ledger.

What is done is read from the ledger, never from a file beside it: a cell's run carries its
`SweepTag` in its recorded settings, so `cell_runs` finds each cell's run by reading the runs'
`RunStarted`. A cell is **done** when its run completed with every planned question judged by its
own scorer and no run-level failure left open; a cell with a run that is not done (interrupted,
aborted, finished with failures) is **resumed** exactly as `benchledger resume` resumes it
(`orchestration.resume.resume_run`: planned minus recorded, nothing asked twice); a cell with no run
is **started** as `benchledger run` starts it (`session.run_dataset`, with the forecast recorded at
its start as the run command records it). `run_sweep` does that to every cell not done, in plan order.

The cell's dataset and settings come from the caller (`Prepare`): the CLI parses the cell's
`run` arguments with the `run` command's own options, so nothing here builds settings of its own.

Cells run one after another in the caller's thread, or up to `parallel` at once, each in a
thread of its own with its own connection to the ledger (`open_recorder`). Two cells on one
memory system never run at once: they share its evaluation store and, for one benchmark, its
scope. A parallel sweep stopped with Ctrl-C stops where it is (its threads are daemons): the
runs it left are resumed by the next `sweep run`, as a killed process's are.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Literal, NamedTuple

import structlog

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.callbacks import Progress, Redact, no_progress, no_redaction
from benchledger.clock import new_run_id
from benchledger.errors import RunAborted
from benchledger.ledger.events import RunStarted
from benchledger.ledger.recorder import EventReader, Recorder
from benchledger.orchestration.session import ResolvedSettings, run_dataset
from benchledger.orchestration.sweep_file import Cell, Sweep
from benchledger.projections.state import RunState, fold_run

__all__ = ["CellRun", "Prepare", "CellStatus", "CellOutcome", "SweepEvents", "cell_runs", "cell_done",
           "sweep_status", "run_sweep", "run_one_cell", "plan_sweep", "PlannedCell", "Action"]

log = structlog.get_logger("benchledger.sweep")

Action = Literal["done", "resume", "start"]


class CellRun(NamedTuple):
    """What a cell runs: its dataset and its settings, resolved as `run` resolves them."""

    dataset: Dataset
    settings: ResolvedSettings
    benchmark: Benchmark


Prepare = Callable[[Cell], CellRun]
"""A cell -> its dataset and settings (the CLI: the cell's `run` arguments parsed by `run` itself)."""


class CellStatus(NamedTuple):
    """Where a cell stands on the ledger."""

    cell: Cell
    action: Action
    """done: nothing to do; resume: its run is not done; start: it has no run yet."""
    run_id: str | None
    detail: str
    """completed, or what is left (`12 of 40 questions not judged`, `aborted: ...`), or `no run yet`."""


class CellOutcome(NamedTuple):
    """What one `sweep run` did to a cell."""

    cell: Cell
    action: Action
    run_id: str | None
    done: bool
    detail: str


class SweepEvents(NamedTuple):
    """How `run_sweep` tells its caller what it does (the CLI's one progress display)."""

    started: Callable[[Cell, Action, str], None] = lambda cell, action, run_id: None
    finished: Callable[[CellOutcome], None] = lambda outcome: None
    progress: Callable[[Cell], Progress] = lambda cell: no_progress


def _tag_of(event: object) -> tuple[str, str] | None:
    if not isinstance(event, RunStarted) or event.config.settings.sweep is None:
        return None
    return event.config.settings.sweep.sweep, event.config.settings.sweep.cell


def cell_runs(reader: EventReader, sweep: str) -> dict[str, list[str]]:
    """cell id -> the runs tagged with it on this ledger, newest first."""
    found: dict[str, list[str]] = {}
    for summary in reader.runs():
        for stored in reader.events(summary.run_id, types=["RunStarted"]):
            tag = _tag_of(stored.event)
            if tag is not None and tag[0] == sweep:
                found.setdefault(tag[1], []).append(summary.run_id)
    return found


def _not_judged(state: RunState) -> int:
    scorer = next(iter(state.scorers), None)
    return sum(1 for q in state.questions.values() if q.status(scorer) != "judged")


def cell_done(state: RunState) -> tuple[bool, str]:
    """(done, why not): completed, every question judged by the run's own scorer, no open run failure."""
    if state.finished is None:
        return False, "interrupted (no RunFinished)"
    if state.finished.status != "completed":
        return False, f"{state.finished.status}: {state.finished.reason}"
    left = _not_judged(state)
    if left:
        return False, f"{left} of {len(state.questions)} questions not judged"
    if state.unresolved_run_failures:
        return False, "failed at " + ", ".join(sorted({f.stage for f in state.unresolved_run_failures}))
    return True, "completed"


def _status(reader: EventReader, cell: Cell, runs: Sequence[str]) -> CellStatus:
    if not runs:
        return CellStatus(cell, "start", None, "no run yet")
    run_id = runs[0]
    done, detail = cell_done(fold_run(run_id, reader.events(run_id)))
    return CellStatus(cell, "done" if done else "resume", run_id, detail)


def sweep_status(reader: EventReader, sweep: Sweep) -> list[CellStatus]:
    """Every cell of the sweep, in plan order, with what the ledger holds of it."""
    runs = cell_runs(reader, sweep.name)
    return [_status(reader, cell, runs.get(cell.id, ())) for cell in sweep.cells]


class Forecasts:
    """Each cell's forecast (`orchestration.forecast.forecast_run`), asked once per benchmark, model
    choice and seed: the answer and judge calls do not depend on the memory system (its own calls,
    which do, are asked of each system's class) nor repeat between epochs with one seed."""

    def __init__(self) -> None:
        self._made: dict[tuple[str, str, int], object] = {}

    def of(self, cell: Cell, cell_run: CellRun):
        from dataclasses import replace

        from benchledger.orchestration.forecast import forecast_run, memory_calls

        key = (cell.benchmark, cell.model, cell.seed)
        if key not in self._made:
            self._made[key] = forecast_run(cell_run.dataset, cell_run.settings, cell_run.benchmark)
        return replace(self._made[key], memory=memory_calls(cell_run.dataset, cell_run.settings))  # type: ignore[type-var]

    def event(self, cell: Cell, cell_run: CellRun):
        """The forecast `run` records with its start (None when no model is asked or it cannot be made)."""
        try:
            forecast = self.of(cell, cell_run)
        except Exception as err:  # noqa: BLE001 - the forecast is advice, as in `run`; the run is what was asked for
            log.info("forecast not available", error=type(err).__name__)
            return None
        return forecast.event() if any(stage.calls for stage in forecast.stages.values()) else None


def _run_cell(ledger: Recorder, status: CellStatus, prepare: Prepare, events: SweepEvents,
              redact: Redact, forecasts: Forecasts) -> CellOutcome:
    cell, progress = status.cell, events.progress(status.cell)
    if status.action == "resume":
        from benchledger.orchestration.resume import resume_run

        assert status.run_id is not None
        run_id = status.run_id
        events.started(cell, "resume", run_id)
        try:
            resume_run(ledger, run_id, redact=redact, progress=progress)
        except RunAborted as err:
            return CellOutcome(cell, "resume", run_id, False, str(err))
    else:
        cell_run = prepare(cell)
        settings = cell_run.settings.model_copy(update={"sweep": cell.tag})
        run_id = new_run_id()
        events.started(cell, "start", run_id)
        try:
            run_dataset(ledger, cell_run.dataset, settings, redact=redact, progress=progress, run_id=run_id,
                        forecast=forecasts.event(cell, cell_run))
        except RunAborted as err:
            return CellOutcome(cell, "start", run_id, False, str(err))
    done, detail = cell_done(fold_run(run_id, ledger.reader.events(run_id)))
    return CellOutcome(cell, status.action, run_id, done, detail)


def run_one_cell(ledger: Recorder, sweep: Sweep, cell_id: str, prepare: Prepare, *,
                 events: SweepEvents = SweepEvents(), redact: Redact = no_redaction) -> CellOutcome:
    """One cell of `sweep`, as `run_sweep` runs it: nothing when done, resumed when its run is not,
    started when it has none (a queue's worker runs cells one job at a time this way)."""
    cell = next((c for c in sweep.cells if c.id == cell_id), None)
    if cell is None:
        raise RunAborted(f"sweep {sweep.name} has no cell {cell_id}: its file changed since the cell was queued")
    status = _status(ledger.reader, cell, cell_runs(ledger.reader, sweep.name).get(cell.id, ()))
    if status.action == "done":
        return CellOutcome(cell, "done", status.run_id, True, status.detail)
    outcome = _run_cell(ledger, status, prepare, events, redact, Forecasts())
    events.finished(outcome)
    return outcome


def _memory_of(cell: Cell) -> str:
    return cell.args[cell.args.index("--memory") + 1]


def run_sweep(ledger: Recorder, sweep: Sweep, prepare: Prepare, *, events: SweepEvents = SweepEvents(),
              limit: int | None = None, parallel: int | None = None, redact: Redact = no_redaction,
              open_recorder: Callable[[], AbstractContextManager[Recorder]] | None = None) -> list[CellOutcome]:
    """Run every cell not done (at most `limit` of them), `parallel` at once (default: the file's);
    returns what each cell run did, in plan order. A cell that aborts is reported and the others go on."""
    todo = [status for status in sweep_status(ledger.reader, sweep) if status.action != "done"][:limit]
    at_once = min(parallel or sweep.file.parallel, len(todo))
    forecasts = Forecasts()
    if at_once <= 1 or open_recorder is None:
        outcomes = []
        for status in todo:
            outcomes.append(_run_cell(ledger, status, prepare, events, redact, forecasts))
            events.finished(outcomes[-1])
        return outcomes
    return _run_parallel(todo, prepare, events, redact, forecasts, at_once, open_recorder)


def _run_parallel(todo: list[CellStatus], prepare: Prepare, events: SweepEvents, redact: Redact,
                  forecasts: Forecasts, at_once: int,
                  open_recorder: Callable[[], AbstractContextManager[Recorder]]) -> list[CellOutcome]:
    waiting = list(todo)
    busy: set[str] = set()
    lock = threading.Condition()
    results: queue.Queue[tuple[int, CellOutcome | BaseException]] = queue.Queue()

    def take() -> tuple[int, CellStatus] | None:
        with lock:
            while True:
                if not waiting:
                    return None
                for status in waiting:
                    if _memory_of(status.cell) not in busy:
                        waiting.remove(status)
                        busy.add(_memory_of(status.cell))
                        return todo.index(status), status
                lock.wait()

    def work() -> None:
        while (taken := take()) is not None:
            index, status = taken
            try:
                with open_recorder() as own:
                    results.put((index, _run_cell(own, status, prepare, events, redact, forecasts)))
            except BaseException as err:  # noqa: BLE001 - handed to the caller's thread, raised there
                results.put((index, err))
            finally:
                with lock:
                    busy.discard(_memory_of(status.cell))
                    lock.notify_all()

    for _ in range(at_once):
        threading.Thread(target=work, daemon=True, name="sweep-cell").start()
    outcomes: dict[int, CellOutcome] = {}
    for _ in todo:
        index, result = results.get()
        if isinstance(result, BaseException):
            raise result
        outcomes[index] = result
        events.finished(result)
    return [outcomes[index] for index in sorted(outcomes)]



class PlannedCell(NamedTuple):
    """A cell as `sweep plan` shows it: where it stands, and what its run is forecast to ask."""

    status: CellStatus
    forecast: object
    """The cell's `orchestration.forecast.Forecast` (its whole run: a resume asks only what is left)."""


def plan_sweep(reader: EventReader | None, sweep: Sweep, prepare: Prepare) -> list[PlannedCell]:
    """Every cell with its status on the ledger (None: no ledger yet, nothing done) and its forecast
    (`run --dry-run`'s), asking nothing."""
    forecasts = Forecasts()
    statuses = sweep_status(reader, sweep) if reader is not None else \
        [CellStatus(cell, "start", None, "no run yet") for cell in sweep.cells]
    return [PlannedCell(status, forecasts.of(status.cell, prepare(status.cell))) for status in statuses]
