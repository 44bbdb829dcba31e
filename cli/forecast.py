"""`run ... --dry-run`: the forecast as a table a person reads before paying."""

from __future__ import annotations

from typing import Any

from benchledger.orchestration.forecast import Forecast, Price
from benchledger.tables import SEPARATOR, render_table

__all__ = ["render_forecast"]


def render_forecast(forecast: Forecast, prices: dict[str, Price] | None) -> str:
    """Per stage and model: calls, estimated prompt tokens, completion limits; dollars when priced."""
    rows: list[Any] = []
    calls = prompt = completion = 0
    for stage, count in forecast.stages.items():
        for model, (n, p, c) in sorted(count.by_model.items()):
            rows.append([stage, model, n, f"{p:,}", f"{c:,}"])
        calls, prompt, completion = calls + count.calls, prompt + count.prompt_tokens, completion + count.completion_tokens
    if not rows:
        rows.append(["answer, judge", "offline", 0, "0", "0"])
    rows += [SEPARATOR, ["total", "", calls, f"{prompt:,}", f"{completion:,}"]]
    lines = [f"forecast for {forecast.questions} question(s): nothing was asked and nothing was written",
             render_table(rows, ["stage", "model", "calls", "prompt tokens (est.)", "completion tokens (at most)"],
                          indent="  "),
             "  memory: the memory system's own model calls are not forecast (the scorecard shows them after a run)",
             "  tokens are estimated as characters / 4 of the prompts the run's models build, over a stand-in "
             "context of k documents of each question's scope"]
    if forecast.unparsed:
        lines.append(f"  {forecast.unparsed} question(s) stopped early: a model could not read the stand-in reply")
    if prices is not None:
        dollars, missing = forecast.dollars(prices)
        lines.append(f"  cost at most ${dollars:,.2f}" + (f" (not priced: {', '.join(missing)})" if missing else ""))
    return "\n".join(lines)
