"""Dollars from the tokens a run recorded and a price table the user gives when reading it.

A price table is the reader's input, never the run's: `--prices FILE` (on `run`, `show`,
`retrieval`, `compare` and `run --dry-run`) is read when the report is shown, is never recorded in
an event, and no saved view (scorecard, retrieval metrics) holds a dollar, so `verify` and the
views compare the same values whatever table was given. Every figure priced says which table made
it: its path and the SHA-256 of its bytes.

The table is JSON, model -> {"input": USD per million prompt tokens, "output": USD per million
completion tokens} (`orchestration.prices.read_prices` reads and checks it). The tokens are the
ones the endpoint reported, per stage and model: answer, judge (the report's scorer) and the
memory system's own calls per stage (ingest, build, recall; an embedding's tokens are input).
A call is priced under the first of its names the table holds: the model asked, then the model the
endpoint reported (answers and verdicts record the reported name; the asked one is the model the
run, or the scorer, was configured with). A model the table does not hold is named as not priced
and its tokens are left out of the total, never priced as 0; a model that recorded no tokens needs
no price (it costs nothing at any price: an offline model, or an endpoint that reports no usage,
which is then counted as such). A reply claiming a negative token count is counted and its tokens
left out, so no endpoint can take dollars off a total.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from benchledger.projections.state import RunState
from benchledger.tables import SEPARATOR, render_table
from benchledger.values import Usage

__all__ = ["Price", "PriceTable", "Call", "CostRow", "Costs", "price_calls", "run_calls", "run_costs",
           "cost_lines", "usd", "MEMORY_STAGES"]

MEMORY_STAGES = ("ingest", "build", "recall")


class Price(BaseModel):
    """One model's price, in US dollars per million tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    input: float = Field(ge=0)
    """USD per million prompt (input) tokens."""
    output: float = Field(ge=0)
    """USD per million completion (output) tokens."""


class PriceTable(BaseModel):
    """A price table as read from its file, with what names it: its path and the SHA-256 of its bytes."""

    model_config = ConfigDict(frozen=True)

    prices: dict[str, Price]
    path: str
    sha256: str

    def find(self, names: Sequence[str | None]) -> tuple[str, Price] | None:
        """The first of `names` the table prices, with its price."""
        for name in names:
            if name and (price := self.prices.get(name)) is not None:
                return name, price
        return None

    @property
    def label(self) -> str:
        return f"{self.path} (sha256 {self.sha256[:16]})"

    def source(self) -> dict[str, str]:
        return {"path": self.path, "sha256": self.sha256}


class Call(NamedTuple):
    """One recorded model call as pricing sees it."""

    stage: str
    names: tuple[str | None, ...]
    """The call's model names in the order they are looked up (asked, then reported)."""
    usage: Usage
    calls: int = 1
    """How many calls these are (a forecast's per-model total; one for a recorded call)."""


class CostRow(NamedTuple):
    """One stage's calls to one model, priced."""

    stage: str
    model: str
    """The name the table priced it under (the first name the call gave when it is not priced)."""
    calls: int
    prompt_tokens: int
    completion_tokens: int
    no_usage: int
    """Calls that reported no tokens at all (counted, but nothing to price)."""
    negative: int
    """Calls whose reply claimed a negative token count: no count can be, so their tokens are left out
    (an endpoint cannot take dollars off a total)."""
    dollars: float | None
    """None: the table does not price this model and it recorded tokens."""


@dataclass
class Costs:
    """What the priced calls cost, per stage and model, under one table."""

    table: PriceTable
    rows: list[CostRow] = field(default_factory=list)

    @property
    def total(self) -> float:
        """The priced rows' dollars (an unpriced model's tokens are left out: see `not_priced`)."""
        return sum(row.dollars for row in self.rows if row.dollars is not None)

    @property
    def not_priced(self) -> list[str]:
        return sorted({row.model for row in self.rows if row.dollars is None})

    def by_stage(self) -> dict[str, float]:
        """stage -> its priced dollars, in row order (a stage's unpriced models: `not_priced_by_stage`)."""
        out: dict[str, float] = {}
        for row in self.rows:
            out[row.stage] = out.get(row.stage, 0.0) + (row.dollars or 0.0)
        return out

    def not_priced_by_stage(self) -> dict[str, list[str]]:
        """stage -> the models with tokens the table does not price (stages with none are left out)."""
        out: dict[str, list[str]] = {}
        for row in self.rows:
            if row.dollars is None:
                out.setdefault(row.stage, []).append(row.model)
        return out

    def as_json(self) -> dict[str, Any]:
        return {"price_table": self.table.source(), "total_usd": self.total, "not_priced": self.not_priced,
                "by_stage_usd": self.by_stage(), "not_priced_by_stage": self.not_priced_by_stage(),
                "rows": [row._asdict() for row in self.rows]}


def price_calls(calls: Iterable[Call], table: PriceTable) -> Costs:
    """Group the calls per stage and model (in first-seen order) and price each group."""
    groups: dict[tuple[str, str], list[int]] = {}
    priced: dict[tuple[str, str], Price | None] = {}
    for call in calls:
        found = table.find(call.names)
        model = found[0] if found else next((n for n in call.names if n), "(no model named)")
        key = (call.stage, model)
        tally = groups.setdefault(key, [0, 0, 0, 0, 0])
        priced[key] = found[1] if found else None
        tally[0] += call.calls
        if call.usage.impossible:
            tally[4] += call.calls
            continue
        tally[1] += call.usage.prompt_tokens
        tally[2] += call.usage.completion_tokens
        tally[3] += 0 if call.usage.prompt_tokens or call.usage.completion_tokens else call.calls
    rows = []
    for (stage, model), (n, prompt, completion, no_usage, negative) in groups.items():
        price = priced[(stage, model)]
        if price is not None:
            dollars: float | None = (prompt * price.input + completion * price.output) / 1_000_000
        else:
            dollars = 0.0 if not (prompt or completion) else None
        rows.append(CostRow(stage, model, n, prompt, completion, no_usage, negative, dollars))
    return Costs(table=table, rows=rows)


def run_calls(state: RunState, scorer_id: str | None = None) -> list[Call]:
    """Every model call the run recorded with its tokens: answers, the scorer's verdicts, the memory's own."""
    cfg = state.started.config if state.started else None
    scorer = scorer_id if scorer_id is not None else state.default_scorer
    judge_model = state.scorers[scorer].judge_model if scorer in state.scorers else (cfg.judge_model if cfg else None)
    calls: list[Call] = []
    for question in state.questions.values():
        if question.answered is not None:
            calls.append(Call("answer", (cfg.agent_model if cfg else None, question.answered.model),
                              question.answered.usage))
    for question in state.questions.values():
        if scorer in question.judged:
            verdict = question.judged[scorer]
            calls.append(Call("judge", (judge_model, verdict.model), verdict.usage))
    order = {stage: i for i, stage in enumerate(MEMORY_STAGES)}
    for event in sorted(state.memory_calls, key=lambda e: order.get(e.stage, len(order))):
        calls.append(Call(f"memory {event.stage}", (event.model_asked, event.model_reported), event.usage))
    return calls


def run_costs(state: RunState, table: PriceTable, scorer_id: str | None = None) -> Costs:
    """The run's recorded calls priced under `table` (never stored: see the module docstring)."""
    return price_calls(run_calls(state, scorer_id), table)


def usd(dollars: float) -> str:
    """Dollars as shown: four decimals, six under a cent (an embedding run costs fractions of one)."""
    return f"${dollars:,.6f}" if 0 < dollars < 0.01 else f"${dollars:,.4f}"


def cost_lines(costs: Costs) -> list[str]:
    """The lines a report shows under its scorecard or metrics when a price table was given."""
    rows: list[Any] = [[row.stage, row.model, row.calls, f"{row.prompt_tokens:,}", f"{row.completion_tokens:,}",
                        "not priced" if row.dollars is None else usd(row.dollars)] for row in costs.rows]
    lines = [f"  cost at the prices in {costs.table.label} (the reader's table: not recorded in the run):"]
    if not rows:
        return lines + ["    no model call recorded tokens: nothing to price"]
    rows += [SEPARATOR, ["total", "", sum(r.calls for r in costs.rows), "", "", usd(costs.total)]]
    lines.append(render_table(rows, ["stage", "model", "calls", "prompt tokens", "completion tokens", "USD"],
                              align=["left", "left", "right", "right", "right", "right"], indent="    "))
    if costs.not_priced:
        lines.append(f"    not priced (not in the table; their tokens are left out of the total): "
                     f"{', '.join(costs.not_priced)}")
    if negative := sum(row.negative for row in costs.rows):
        lines.append(f"    {negative} call(s) reported a negative token count: their tokens are left out")
    if unreported := sum(row.no_usage for row in costs.rows):
        lines.append(f"    {unreported} call(s) reported no tokens: nothing was priced for them")
    return lines
