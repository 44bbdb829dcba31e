"""What the memory system's own model calls cost, per stage, from its `MemoryModelCalled` events.

Pure fold: calls, prompt and completion tokens, seconds (summed upstream latency) and failed calls
per stage (ingest, build, recall), plus every model the memory asked for and every model its
endpoint reported. The reference protocols' "neither model is the memory system's own" is checked
against `memory_models_observed`, what the calls show, not only what the configuration declared.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from benchledger.projections.state import RunState

__all__ = ["MEMORY_COSTS_VERSION", "StageCost", "MemoryCosts", "memory_costs", "memory_models_observed"]

MEMORY_COSTS_VERSION = 1


@dataclass
class StageCost:
    """One stage's memory model calls."""

    calls: int = 0
    chat_calls: int = 0
    embedding_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    failed: int = 0
    """Calls answered with an error status or no reply at all."""
    impossible: int = 0
    """Calls whose reply claimed a negative token count: counted as calls, their tokens left out."""


@dataclass
class MemoryCosts:
    by_stage: dict[str, StageCost] = field(default_factory=dict)
    models_asked: list[str] = field(default_factory=list)
    models_reported: list[str] = field(default_factory=list)
    upstreams: list[str] = field(default_factory=list)

    @property
    def calls(self) -> int:
        return sum(cost.calls for cost in self.by_stage.values())


def memory_costs(state: RunState) -> MemoryCosts:
    """The run's memory model calls folded per stage, in stage order."""
    costs = MemoryCosts()
    asked: dict[str, None] = {}
    reported: dict[str, None] = {}
    upstreams: dict[str, None] = {}
    for event in state.memory_calls:
        cost = costs.by_stage.setdefault(event.stage, StageCost())
        cost.calls += 1
        cost.chat_calls += event.endpoint == "chat"
        cost.embedding_calls += event.endpoint == "embeddings"
        if event.usage.impossible:
            cost.impossible += 1
        else:
            cost.prompt_tokens += event.usage.prompt_tokens
            cost.completion_tokens += event.usage.completion_tokens
        cost.seconds += event.latency_ms / 1000
        cost.failed += not 200 <= event.status < 300
        asked.setdefault(event.model_asked)
        if event.model_reported:
            reported.setdefault(event.model_reported)
        upstreams.setdefault(event.upstream)
    order = ("ingest", "build", "recall")
    costs.by_stage = {stage: costs.by_stage[stage] for stage in order if stage in costs.by_stage}
    costs.models_asked, costs.models_reported, costs.upstreams = list(asked), list(reported), list(upstreams)
    return costs


def memory_models_observed(state: RunState) -> set[str]:
    """Every chat model the memory asked for or was answered by, plus the one it declared."""
    seen = {event.model_asked for event in state.memory_calls if event.endpoint == "chat"}
    seen |= {event.model_reported for event in state.memory_calls
             if event.endpoint == "chat" and event.model_reported}
    declared = state.started.config.memory_model if state.started else None
    return seen | ({declared} if declared else set())


def memory_costs_summary(state: RunState) -> dict[str, object] | None:
    """The costs as plain values for a report or the retrieval metrics; None when the memory made no call."""
    costs = memory_costs(state)
    if not costs.calls:
        return None
    return {"by_stage": {stage: _plain(cost) for stage, cost in costs.by_stage.items()},
            "models_asked": costs.models_asked, "models_reported": costs.models_reported,
            "upstreams": costs.upstreams}


def _plain(cost: StageCost) -> dict[str, float]:
    """A stage's costs as plain values; `impossible` only where a call claimed one (so a report
    of an honest endpoint reads as it always has)."""
    plain = vars(cost).copy()
    if not plain["impossible"]:
        del plain["impossible"]
    return plain


def memory_cost_lines(summary: dict[str, object] | None) -> list[str]:
    """The scorecard's lines for the memory's own model calls (none when it made none)."""
    if not summary:
        return []
    by_stage: dict[str, dict[str, float]] = summary["by_stage"]  # type: ignore[assignment]
    upstreams = ", ".join(summary["upstreams"])  # type: ignore[arg-type]
    models = ", ".join(summary["models_reported"] or summary["models_asked"])  # type: ignore[arg-type]
    lines = [f"  memory's own model calls (through benchledger's recording proxy to {upstreams}; models {models}):"]
    for stage, cost in by_stage.items():
        failed = f", {int(cost['failed'])} failed" if cost["failed"] else ""
        if cost.get("impossible"):
            failed += f", {int(cost['impossible'])} claiming negative tokens (left out)"
        lines.append(f"    {stage:<7} {int(cost['calls']):>6} calls ({int(cost['chat_calls'])} chat, "
                     f"{int(cost['embedding_calls'])} embeddings{failed})  {int(cost['prompt_tokens']):,} prompt + "
                     f"{int(cost['completion_tokens']):,} completion tokens  {cost['seconds']:.2f} s")
    return lines
