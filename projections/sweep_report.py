"""A sweep's report: one row per system, one column per benchmark, the headline over epochs.

Pure. The input is every cell of the sweep with its run folded (or None when the cell has no done
run yet); the output is the table `sweep show` prints (and its JSON and CSV):

- a table cell (system x benchmark) holds the epochs' runs of that system on that benchmark. Its
  runs must be like for like by the compare rules (`projections.compare.unlike`: release,
  selection, questions, models, judge and scoring rule, prompts, protocol, k, budget, context
  format), apart from the selection seeds the sweep set per epoch; otherwise the report is refused
  (BadInput naming every difference), as `compare` refuses;
- its value is the mean over epochs of each run's headline number (`Report.score`, what `runs`
  and `show` lead with), the sample sd and a 95% Student-t interval over epochs (n - 1 degrees of
  freedom: two epochs give a wide interval, honestly), beside each run's own interval (the Wilson
  95% interval around its accuracy, when accuracy is the headline);
- it is publishable only when every epoch's run is; each cell's run is listed with its status and
  the conditions it fails;
- per system, the model calls and tokens its runs recorded (answers, its scorer's verdicts, the
  memory's own calls: `projections.prices.run_calls`; a call counts when the endpoint reported
  tokens for it, so offline models count none), and dollars under a price table the reader gives.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from benchledger.errors import BadInput
from benchledger.projections.compare import CompareInput, named_differences, unlike
from benchledger.projections.prices import PriceTable, run_calls, run_costs
from benchledger.projections.stats import mean_spread
from benchledger.tables import render_table

__all__ = ["SWEEP_REPORT_VERSION", "SweepInput", "CellLine", "Aggregate", "SystemRow", "SweepReport", "benchmark_metrics",
           "sweep_report", "render_sweep", "sweep_csv"]

SWEEP_REPORT_VERSION = 1


class SweepInput(NamedTuple):
    """One cell of the sweep as the ledger holds it."""

    cell: str
    benchmark: str
    """The benchmark's label: the report's column."""
    system: str
    """The memory system's label (and the models', when a sweep has several): the report's row."""
    epoch: int
    run_id: str | None
    done: bool
    detail: str
    """completed, or what is left of the cell's run."""
    run: CompareInput | None
    """The run folded with its report, when it is done."""


class CellLine(BaseModel):
    """One cell's run, with its status and the conditions it fails."""

    model_config = ConfigDict(frozen=True)

    cell: str
    benchmark: str
    system: str
    epoch: int
    run_id: str | None
    status: Literal["publishable", "diagnostic", "not done"]
    detail: str
    score: float | None = None
    metric: str | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    """The run's own interval: Wilson 95% around its accuracy (None when its headline is another number)."""
    failing: dict[str, str] = {}
    """Each publishable condition it fails, with the reason."""


class Aggregate(BaseModel):
    """One system on one benchmark, over the sweep's epochs."""

    model_config = ConfigDict(frozen=True)

    metric: str | None
    epochs: int
    """Epochs the sweep plans."""
    done: int
    """Epochs with a done run (the mean is over these)."""
    scores: list[float | None]
    mean: float | None
    sd: float | None
    ci_low: float | None
    """95% Student-t interval over epochs (None with fewer than two)."""
    ci_high: float | None
    status: Literal["publishable", "diagnostic", "incomplete"]


class SystemRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    system: str
    cells: dict[str, Aggregate]
    """benchmark label -> the aggregate."""
    calls: int
    """Model calls its runs recorded with tokens (answers, verdicts, the memory's own)."""
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None = None
    """With a price table: the priced dollars (models it does not price are in `not_priced`)."""
    not_priced: list[str] = []


class SweepReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    sweep: str
    benchmarks: list[str]
    rows: list[SystemRow]
    cells: list[CellLine]
    done: int
    planned: int
    price_table: dict[str, str] | None = None
    version: int = SWEEP_REPORT_VERSION


def _line(cell: SweepInput) -> CellLine:
    if cell.run is None:
        return CellLine(cell=cell.cell, benchmark=cell.benchmark, system=cell.system, epoch=cell.epoch,
                        run_id=cell.run_id, status="not done", detail=cell.detail)
    report = cell.run.report
    wilson = report.metric == "accuracy"
    return CellLine(cell=cell.cell, benchmark=cell.benchmark, system=cell.system, epoch=cell.epoch,
                    run_id=cell.run_id, status=report.status, detail=cell.detail, score=report.score,
                    metric=report.metric, ci_low=report.ci_low if wilson else None,
                    ci_high=report.ci_high if wilson else None,
                    failing={c.name: c.reason for c in report.conditions if not c.met})


def _aggregate(cells: Sequence[SweepInput], varied: Sequence[str]) -> Aggregate:
    runs = [cell.run for cell in cells if cell.run is not None]
    if len(runs) > 1 and (differences := unlike(runs, varied=varied)):
        raise BadInput(f"the epochs of {cells[0].system} on {cells[0].benchmark} are not like for like, so they are "
                       f"not averaged: {named_differences(differences)}", field="sweep")
    scores = [run.report.score for run in runs]
    mean, sd, low, high = mean_spread([s for s in scores if s is not None])
    status: Literal["publishable", "diagnostic", "incomplete"] = \
        "incomplete" if len(runs) < len(cells) else \
        "publishable" if all(run.report.publishable for run in runs) else "diagnostic"
    return Aggregate(metric=runs[0].report.metric if runs else None, epochs=len(cells), done=len(runs),
                     scores=scores, mean=mean, sd=sd, ci_low=low, ci_high=high, status=status)


def _row(system: str, cells: Sequence[SweepInput], benchmarks: Sequence[str], varied: Mapping[str, Sequence[str]],
         prices: PriceTable | None) -> SystemRow:
    calls = prompt = completion = 0
    cost, unpriced = 0.0, set()
    for cell in cells:
        if cell.run is None:
            continue
        state, scorer = cell.run.state, cell.run.report.scorer_id
        for call in run_calls(state, scorer):
            if call.usage.impossible or not (call.usage.prompt_tokens or call.usage.completion_tokens):
                continue
            calls, prompt, completion = calls + call.calls, prompt + call.usage.prompt_tokens, \
                completion + call.usage.completion_tokens
        if prices is not None:
            costs = run_costs(state, prices, scorer)
            cost += costs.total
            unpriced.update(costs.not_priced)
    aggregates = {benchmark: _aggregate([c for c in cells if c.benchmark == benchmark], varied.get(benchmark, ()))
                  for benchmark in benchmarks if any(c.benchmark == benchmark for c in cells)}
    return SystemRow(system=system, cells=aggregates, calls=calls, prompt_tokens=prompt, completion_tokens=completion,
                     cost_usd=cost if prices is not None else None, not_priced=sorted(unpriced))


def sweep_report(sweep: str, cells: Sequence[SweepInput], *, varied: Mapping[str, Sequence[str]] | None = None,
                 prices: PriceTable | None = None) -> SweepReport:
    """The sweep's table (see the module docstring); `varied`: per benchmark label, the selection fields
    the sweep set per epoch (its seeds), which may differ between a cell's epochs."""
    benchmarks = list(dict.fromkeys(cell.benchmark for cell in cells))
    systems = list(dict.fromkeys(cell.system for cell in cells))
    rows = [_row(system, [c for c in cells if c.system == system], benchmarks, varied or {}, prices)
            for system in systems]
    return SweepReport(sweep=sweep, benchmarks=benchmarks, rows=rows, cells=[_line(cell) for cell in cells],
                       done=sum(1 for cell in cells if cell.run is not None), planned=len(cells),
                       price_table=prices.source() if prices is not None else None)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _shown(aggregate: Aggregate | None) -> str:
    if aggregate is None or aggregate.mean is None:
        return "not run" if aggregate is None else f"0 of {aggregate.epochs} epochs done"
    text = _pct(aggregate.mean)
    if aggregate.sd is not None:
        text += f" sd {100 * aggregate.sd:.1f} [{_pct(aggregate.ci_low)}, {_pct(aggregate.ci_high)}]"
    text += f" n={aggregate.done}" + (f" of {aggregate.epochs}" if aggregate.done < aggregate.epochs else "")
    return text + ("" if aggregate.status == "publishable" else f" {aggregate.status}")


def benchmark_metrics(report: SweepReport) -> dict[str, str | None]:
    """benchmark label -> what its headline measures (from its first cell that says), for the table's headers."""
    return {b: next((r.cells[b].metric for r in report.rows if b in r.cells and r.cells[b].metric), None)
            for b in report.benchmarks}


def render_sweep(report: SweepReport) -> str:
    """The report as text: the table, the usage per system, then every cell's run."""
    metrics = benchmark_metrics(report)
    table = render_table([[row.system, *(_shown(row.cells.get(b)) for b in report.benchmarks)] for row in report.rows],
                         ["system", *(f"{b} ({metrics[b] or 'headline'})" for b in report.benchmarks)], indent="  ")
    priced = report.price_table is not None
    usage = render_table([[row.system, row.calls, f"{row.prompt_tokens:,}", f"{row.completion_tokens:,}",
                           *([f"${row.cost_usd:,.4f}" + (f" (not priced: {', '.join(row.not_priced)})"
                                                         if row.not_priced else "")] if priced else [])]
                          for row in report.rows],
                         ["system", "model calls", "tokens in", "tokens out", *(["USD"] if priced else [])], indent="  ")
    cells = render_table([[line.cell, (line.run_id or "-")[:12], line.status,
                           _pct(line.score) + (f" [{_pct(line.ci_low)}, {_pct(line.ci_high)}]" if line.ci_low is not None
                                               else ""),
                           ", ".join(line.failing) if line.status != "not done" else line.detail]
                          for line in report.cells],
                         ["cell", "run", "status", "score [run's 95% CI]", "failing conditions"], indent="  ",
                         align=["left", "left", "left", "right", "left"], drop=("run",))
    return "\n".join([
        f"sweep {report.sweep}: {report.done} of {report.planned} cells done",
        table,
        "  mean over epochs of each run's headline; sd and a 95% Student-t interval over epochs [low, high]",
        "", usage, "", cells])


def sweep_csv(report: SweepReport) -> str:
    """One row per system and benchmark."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["system", "benchmark", "metric", "epochs", "done", "mean", "sd", "ci_low", "ci_high", "scores",
                     "status", "calls", "prompt_tokens", "completion_tokens", "cost_usd"])
    for row in report.rows:
        for benchmark, agg in row.cells.items():
            writer.writerow([row.system, benchmark, agg.metric or "", agg.epochs, agg.done,
                             *("" if v is None else repr(v) for v in (agg.mean, agg.sd, agg.ci_low, agg.ci_high)),
                             " ".join("" if s is None else repr(s) for s in agg.scores), agg.status, row.calls,
                             row.prompt_tokens, row.completion_tokens, "" if row.cost_usd is None else row.cost_usd])
    return out.getvalue()
