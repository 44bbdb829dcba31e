"""Wire a run together: the benchmark's declaration, the memory system and the models a user chose.

`run_dataset` is the one call the CLI makes for `benchledger run ...` and `benchledger retrieval
...`; tests and other tools make it too. The settings' mode says which: a question-answering run
opens an answer and a judge model, a retrieval run opens none.
"""

from __future__ import annotations

from benchledger.adapters.benchmarks.base import Dataset, Prompts
from benchledger.adapters.benchmarks.registry import Benchmark, benchmark_named
from benchledger.adapters.memory.evalstore import check_store_path
from benchledger.adapters.memory.protocol import MemorySystem
from benchledger.adapters.memory.registry import open_memory
from benchledger.adapters.models.factory import build_models
from benchledger.adapters.models.probe import probe_endpoint
from benchledger.adapters.models.response_cache import ledger_cache
from benchledger.callbacks import Progress, Redact, no_progress, no_redaction
from benchledger.errors import BadInput
from benchledger.ledger.events import Endpoint
from benchledger.ledger.recorder import Recorder
from benchledger.orchestration.runner import Models, RunParts, start_run
from benchledger.redaction import strip_url_credentials
from benchledger.settings import RunSettings

__all__ = [
    "run_dataset", "run_with", "open_models", "open_run_memory", "resolved_settings", "endpoint_of",
]


def resolved_settings(benchmark: Benchmark, settings: RunSettings) -> RunSettings:
    """The settings as recorded: the protocol resolved against what the benchmark offers."""
    if settings.memory_store is None:
        raise BadInput("a run needs an evaluation memory store path (memory_store)", field="memory_store")
    if settings.memory != "http":  # a remote system keeps its data on its own side
        check_store_path(settings.memory_store)
    if settings.mode == "retrieval":
        if not benchmark.retrieval:
            raise BadInput(f"{benchmark.name} labels no evidence, so it has no retrieval run", field="benchmark")
        return settings.model_copy(update={"protocol": None, "agent_model": None, "judge_model": None})
    return settings.model_copy(update={"protocol": benchmark.check_protocol(settings.protocol)})


def endpoint_of(settings: RunSettings) -> Endpoint:
    """Where the settings send model calls, as the ledger records it (no credentials)."""
    return Endpoint(base_url=strip_url_credentials(settings.base_url) if settings.base_url else None,
                    api_key_env=settings.api_key_env)


def open_models(ledger: Recorder, settings: RunSettings, prompts: Prompts | None, *,
                judge_model: str | None = None) -> Models:
    """The answer and judge models the settings name (offline ones when none is named).

    When either asks an endpoint, the endpoint is probed first: one cheap call that stops the run
    (exit 2) when it is unreachable or refuses the key, before anything is spent.
    """
    answer, judge = build_models(
        agent_model=settings.agent_model, judge_model=judge_model or settings.judge_model,
        protocol=settings.protocol or "typed", base_url=settings.base_url,  # type: ignore[arg-type]
        api_key_env=settings.api_key_env, cache=ledger_cache(ledger), timeout=settings.timeout,
        max_attempts=settings.max_attempts, backoff_base=settings.backoff_base, prompts=prompts,
    )
    if not (answer.offline and judge.offline):
        probe_endpoint(settings.base_url, settings.api_key_env)
    return Models(answer=answer, judge=judge)


def open_run_memory(settings: RunSettings) -> MemorySystem:
    """The memory system under test on its evaluation store."""
    assert settings.memory_store is not None
    settings.memory_store.parent.mkdir(parents=True, exist_ok=True)
    return open_memory(settings.memory, settings.memory_store, **settings.memory_options)


def run_dataset(ledger: Recorder, dataset: Dataset, settings: RunSettings, *,
                redact: Redact = no_redaction, progress: Progress = no_progress, run_id: str | None = None) -> str:
    """Run `dataset` against the memory (and models, in qa mode) the settings name; returns the run id.

    `run_id` names the new run (default: a fresh id), so a caller knows it even if the run is interrupted.
    """
    benchmark = benchmark_named(dataset.benchmark)
    settings = resolved_settings(benchmark, settings)
    models = open_models(ledger, settings, dataset.prompts) if settings.mode == "qa" else None
    memory = open_run_memory(settings)
    try:
        return run_with(ledger, dataset, settings, memory, models=models, redact=redact, progress=progress,
                        run_id=run_id)
    finally:
        memory.close()


def run_with(ledger: Recorder, dataset: Dataset, settings: RunSettings, memory: MemorySystem, *,
             models: Models | None = None, redact: Redact = no_redaction, progress: Progress = no_progress,
             run_id: str | None = None) -> str:
    """Run `dataset` against a memory system (and models) the caller opened; returns the run id.

    The lower-level entry for tools and tests that hold their own memory system object. In qa mode
    without `models`, the models the settings name are opened. `settings.memory_store` still names
    where the scope leases live.
    """
    benchmark = benchmark_named(dataset.benchmark)
    settings = resolved_settings(benchmark, settings)
    if settings.mode == "qa" and models is None:
        models = open_models(ledger, settings, dataset.prompts)
    parts = RunParts(dataset=dataset, benchmark=benchmark, settings=settings, memory=memory,
                     models=models if settings.mode == "qa" else None, redact=redact, progress=progress)
    return start_run(ledger, parts, run_id=run_id)
