"""`run ... --dry-run`: the forecast as a table a person reads before paying."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from benchledger.projections.prices import PriceTable, usd
from benchledger.tables import SEPARATOR, render_table

if TYPE_CHECKING:  # importing the forecast (the models behind it) is the cost of every start-up
    from benchledger.orchestration.forecast import Forecast

__all__ = ["render_forecast"]


def render_forecast(forecast: Forecast, prices: PriceTable | None) -> str:
    """Per stage and model: calls, estimated prompt tokens, completion limits; dollars when priced."""
    costs = forecast.costs(prices) if prices is not None else None
    dollars = {(row.stage, row.model): row.dollars for row in costs.rows} if costs is not None else {}
    priced = [] if costs is None else [""]
    rows: list[Any] = []
    calls = prompt = completion = 0
    for stage, count in forecast.stages.items():
        for model, (n, p, c) in sorted(count.by_model.items()):
            dollars_of = dollars.get((stage, model))
            rows.append([stage, model, n, f"{p:,}", f"{c:,}",
                         *([] if costs is None else ["not priced" if dollars_of is None else usd(dollars_of)])])
        calls, prompt, completion = calls + count.calls, prompt + count.prompt_tokens, completion + count.completion_tokens
    if not rows:
        rows.append(["answer, judge", "offline", 0, "0", "0", *priced])
    rows += [SEPARATOR, ["total", "", calls, f"{prompt:,}", f"{completion:,}",
                         *([] if costs is None else [usd(costs.total)])]]
    headers = ["stage", "model", "calls", "prompt tokens (est.)", "completion tokens (at most)",
               *([] if costs is None else ["USD (at most)"])]
    lines = [f"forecast for {forecast.questions} question(s): nothing was asked and nothing was written",
             render_table(rows, headers, indent="  "),
             *_memory_lines(forecast, priced=costs is not None),
             "  tokens are estimated as characters / 4 of the prompts the run's models build, over a stand-in "
             "context of k documents of each question's scope"]
    if forecast.unparsed:
        lines.append(f"  {forecast.unparsed} question(s) stopped early: a model could not read the stand-in reply")
    if costs is not None:
        missing = costs.not_priced
        lines.append(f"  cost at most ${costs.total:,.2f} at the prices in {costs.table.label}"
                     + (f" (not priced, left out: {', '.join(missing)})" if missing else "")
                     + ("; the memory's own calls are left out (their tokens are not forecast)"
                        if forecast.memory else ""))
    return "\n".join(lines)


def _memory_lines(forecast: Forecast, *, priced: bool) -> list[str]:
    if forecast.memory is None:
        return ["  memory: the memory system's own model calls are not forecast (the scorecard shows them after a run)"]
    if not forecast.memory:
        return ["  memory: the memory system says it makes no model call for this run"]
    rows = [[f"memory {p.stage}", p.model, p.endpoint, f"{p.calls:,}" if p.calls == p.at_most
             else f"{p.calls:,} or more" if p.at_most is None else f"{p.calls:,} to {p.at_most:,}"]
            for p in forecast.memory]
    return ["  memory: the memory system's own model calls, as it says them (a fresh store; tokens not "
            "forecast" + (", so not priced" if priced else "") + "):",
            render_table(rows, ["stage", "model", "api", "calls"], align=["left", "left", "left", "right"],
                         indent="    ")]
