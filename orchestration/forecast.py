"""A forecast before paying: the calls and tokens each stage of a run would spend, and dollars.

`forecast_run` asks the run's own answer and judge models (the benchmark's released prompts,
passage format and official templates, as the settings choose them) every selected question
through a `ForecastClient` (`adapters.models.forecast_client`), which sends nothing and counts each
call's prompt tokens (characters / 4 per message) and completion limit. The context of each
question is a stand-in for what recall would return, since recalling needs the prepared memory:
`k` documents of the question's scope taken at even intervals through it (so their lengths are the
scope's typical ones), cut at `--token-budget` as packing would. The judge is asked about the
answer the loopback endpoint's deterministic model gives from that context. Offline models make
no calls and cost nothing.

The memory system's own model calls are forecast where the system can say them
(`planned_calls`, see `adapters.memory.protocol`): mem0 counts its calls per stage from its own
grouping of the corpus, a fresh store assumed, and says no tokens, so they are counted and never
priced. Graphiti's depend on what its model finds in each episode and are not forecast; the
scorecard shows every system's, per stage, after a run.

Prices (`--prices FILE`) are the table `orchestration.prices.read_prices` reads (`projections.prices`
prices it). Completion tokens are the calls' limits, so the dollar figure is an upper bound on the
model calls forecast.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from benchledger.adapters.benchmarks.base import Dataset, Document
from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.adapters.memory.protocol import Candidate, PlannedCalls, estimate_tokens
from benchledger.adapters.memory.registry import load_memory_class
from benchledger.adapters.models.base import ModelError
from benchledger.adapters.models.forecast_client import ForecastClient, StageCount
from benchledger.ledger.events import RunForecast, StageForecast
from benchledger.projections.prices import Call, Costs, PriceTable, price_calls
from benchledger.orchestration.session import ResolvedSettings, open_models
from benchledger.values import Usage

__all__ = ["Forecast", "forecast_run", "memory_calls", "sample_context"]


@dataclass
class Forecast:
    """What a run would ask, per stage."""

    questions: int
    stages: dict[str, StageCount] = field(default_factory=dict)
    """answer, judge: their calls and estimated tokens (memory: not forecast)."""
    unparsed: int = 0
    """Questions whose stand-in reply a model could not read (its calls are still counted)."""
    memory: list[PlannedCalls] | None = None
    """The memory system's own calls as it says them (None: it cannot say; never recorded in the event)."""

    def event(self) -> RunForecast:
        """The forecast as the run records it."""
        return RunForecast(questions=self.questions, stages={
            stage: StageForecast(calls=c.calls, prompt_tokens=c.prompt_tokens, completion_tokens=c.completion_tokens)
            for stage, c in self.stages.items()})

    def summary(self) -> str:
        """One line for the first lines of a run."""
        return "forecast: " + "; ".join(
            f"{stage} {c.calls} calls, ~{c.prompt_tokens:,} tokens in, at most {c.completion_tokens:,} out"
            for stage, c in self.stages.items()) + " (estimated; `--dry-run` prints it alone)"

    def costs(self, table: PriceTable) -> Costs:
        """The forecast priced per stage and model (completion tokens at their limits: an upper bound)."""
        return price_calls((Call(stage, (model,), Usage(prompt_tokens=prompt, completion_tokens=completion), calls)
                            for stage, count in self.stages.items()
                            for model, (calls, prompt, completion) in sorted(count.by_model.items())), table)


def sample_context(documents: tuple[Document, ...], k: int, token_budget: int | None) -> list[Candidate]:
    """`k` documents at even intervals through the scope, cut at the token budget."""
    if not documents:
        return []
    step = max(1, len(documents) // k)
    chosen: list[Candidate] = []
    used = 0
    for rank, document in enumerate(documents[::step][:k], start=1):
        used += estimate_tokens(document.text)
        if token_budget is not None and used > token_budget and chosen:
            break
        chosen.append(Candidate.of_document(rank, 1.0 / rank, document))
    return chosen


def forecast_run(dataset: Dataset, settings: ResolvedSettings, benchmark: Benchmark) -> Forecast:
    """Ask every selected question through a client that sends nothing."""
    forecast = Forecast(questions=len(dataset.questions), memory=memory_calls(dataset, settings))
    if settings.mode != "qa":
        return forecast
    client = ForecastClient()
    models = open_models(None, settings, dataset, benchmark=benchmark, probe=False, client=client)
    for question in dataset.questions:
        context = sample_context(dataset.scopes.get(question.scope_key, ()), settings.k, settings.token_budget)
        try:
            client.stage = "answer"
            answer = models.answer.answer(question, context, dataset.prompts)
            client.stage = "judge"
            for judge in models.judges:
                judge.judge(question, answer, dataset.prompts)
        except ModelError:
            forecast.unparsed += 1
    forecast.stages = {stage: client.stages.get(stage, StageCount()) for stage in ("answer", "judge")}
    return forecast


def memory_calls(dataset: Dataset, settings: ResolvedSettings) -> list[PlannedCalls] | None:
    """The memory's own calls as its class says them (every scope built when the run prepares)."""
    planned = getattr(load_memory_class(settings.memory), "planned_calls", None)
    if planned is None:
        return None
    scopes = list(dataset.scopes.values()) if settings.prepare else []
    calls: list[PlannedCalls] = planned(settings.memory_options, scopes, questions=len(dataset.questions),
                                        batch_size=settings.batch_size)
    return calls
