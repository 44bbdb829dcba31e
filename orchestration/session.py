"""Wire a run together: the benchmark's declaration, the memory system and the models a user chose.

`run_dataset` is the one call the CLI makes for `benchledger run ...` and `benchledger retrieval
...`; tests and other tools make it too. Settings are resolved once (`resolved_settings`, which
returns them as `ResolvedSettings`): a caller that resolved them (the CLI does, to refuse bad input
before anything is written) passes that object down, and nothing below resolves it again. The settings' mode says which: a question-answering run
opens an answer and a judge model, a retrieval run opens none. Under the official protocol the
benchmark's own declaration opens them (`Benchmark.official`), filling the official templates read
from the prompts folder (checked before anything is written) or, on resume, from the ledger.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.official import OfficialProtocol
from benchledger.adapters.benchmarks.registry import Benchmark, benchmark_named, retrieval_refusal
from benchledger.adapters.memory.evalstore import check_store_path
from benchledger.adapters.memory.protocol import MemorySystem
from benchledger.adapters.memory.oracle import EvidenceLabels
from benchledger.adapters.memory.registry import load_memory_class, open_memory
from benchledger.adapters.models.base import judge_asks_model
from benchledger.adapters.models.factory import ModelContext, build_models, model_context
from benchledger.adapters.models.openai_chat import ChatClient
from benchledger.adapters.models.probe import probe_endpoint
from benchledger.adapters.models.response_cache import ledger_cache
from benchledger.adapters.models.scheduler import EndpointScheduler
from benchledger.callbacks import Progress, Redact, no_progress, no_redaction
from benchledger.errors import BadInput
from benchledger.ledger.events import RunForecast
from benchledger.ledger.recorder import Recorder
from benchledger.orchestration.prepare import scope_names
from benchledger.orchestration.runner import Models, RunParts, start_run
from benchledger.settings import DECLARED_PROTOCOLS, RunSettings

__all__ = [
    "run_dataset", "run_with", "open_models", "probe_run_endpoint", "open_run_memory", "resolved_settings",
    "ResolvedSettings",
    "official_of", "settings_context", "endpoint_scheduler", "read_official_templates",
]


def official_of(benchmark: Benchmark) -> OfficialProtocol:
    """The benchmark's official protocol declaration (BadInput when it declares none)."""
    if benchmark.official is None:
        raise BadInput(f"{benchmark.name} declares no official protocol of its own; its official protocol is "
                       f"{benchmark.official_protocol}", field="protocol")
    return benchmark.official


def read_official_templates(benchmark: Benchmark, settings: RunSettings, source: Path) -> dict[str, str]:
    """The official templates from the settings' prompts folder (or the release's), checked by SHA-256."""
    return official_of(benchmark).read_templates(settings.prompts_dir or benchmark.default_prompts_dir(source))


class ResolvedSettings(RunSettings):
    """Settings as a run records them, made by `resolved_settings` alone: checked, and resolved against
    the benchmark (and release) they were resolved with. The same fields as `RunSettings`, so they
    dump to the same bytes; a change (`with_changes`) makes plain `RunSettings` again."""


def resolved_settings(benchmark: Benchmark, settings: RunSettings, *,
                      source: Path | None = None) -> ResolvedSettings:
    """The settings as recorded: the protocol resolved against what the benchmark offers; under the
    official protocol the prompts folder resolved and its templates checked (with `source`).

    Settings already resolved are returned as they are: a run resolves its settings once."""
    if isinstance(settings, ResolvedSettings):
        return settings
    if settings.memory_store is None:
        raise BadInput("a run needs an evaluation memory store path (memory_store)", field="memory_store")
    if settings.memory != "http":  # a remote system keeps its data on its own side
        check_store_path(settings.memory_store)
    if settings.mode == "retrieval":
        refusal = retrieval_refusal(benchmark)
        if refusal is not None:
            raise BadInput(refusal, field="benchmark")
        return _resolved(settings, protocol=None, agent_model=None, judge_model=None, judge_models=(),
                         prompts_dir=None)
    protocol = benchmark.check_protocol(settings.protocol)
    update: dict[str, object] = {"protocol": protocol}
    if protocol == "official" and source is not None:
        update["prompts_dir"] = settings.prompts_dir or benchmark.default_prompts_dir(source)
        read_official_templates(benchmark, settings.model_copy(update=update), source)  # refused before any write
    elif protocol != "official":
        update["prompts_dir"] = None
    return _resolved(settings, **update)


def _resolved(settings: RunSettings, **update: object) -> ResolvedSettings:
    return ResolvedSettings.model_validate({**dict(settings), **update})


def settings_context(ledger: Recorder | None, settings: RunSettings, *, judge_model: str | None = None,
                     judge_models: tuple[str, ...] | None = None,
                     scheduler: EndpointScheduler | None = None, client: ChatClient | None = None) -> ModelContext:
    """The model names and shared client the settings ask for (replies cached in `ledger`, if any;
    every call paced by `scheduler`, if given)."""
    return model_context(
        agent_model=settings.agent_model, judge_model=judge_model or settings.judge_model,
        judge_models=settings.judge_models if judge_models is None else judge_models,
        calls=settings.model_calls, cache=ledger_cache(ledger) if ledger is not None else None,
        scheduler=scheduler, client=client)


def endpoint_scheduler(settings: RunSettings, *, shared_by: str | None = None) -> EndpointScheduler:
    """The one scheduler a run's answer and judge calls to its endpoint share (`--concurrency` its ceiling).

    On a ledger on PostgreSQL (`shared_by`: its URL) an adaptive run keeps the provider's budget in
    that database (`budget_room.SharedRoom`), shared with every run, worker and machine asking the same
    endpoint with the same key; on a file, in the process."""
    room = None
    if shared_by is not None and settings.pacing == "adaptive" and settings.agent_model is not None:
        import os

        from benchledger.adapters.models.budget_room import SharedRoom, room_name

        room = SharedRoom(shared_by, room_name(settings.base_url, os.environ.get(settings.api_key_env)))
    return EndpointScheduler(settings.concurrency, adaptive=settings.pacing == "adaptive",
                             max_pause=settings.max_retry_after, room=room)


def open_models(ledger: Recorder | None, settings: RunSettings, dataset: Dataset, *, benchmark: Benchmark,
                templates: Mapping[str, str] | None = None, probe: bool = True,
                client: ChatClient | None = None) -> Models:
    """The answer and judge models the settings name (offline ones when none is named).

    Under the official protocol `templates` are the official ones (read from the prompts folder
    when not given), and the benchmark's declaration opens its answer model and its scorers. When
    any of them asks an endpoint, the endpoint is probed first (unless `probe` is False because the
    caller did, see `probe_run_endpoint`): one cheap call that stops the run (exit 2) when it is
    unreachable or refuses the key, before anything is spent. Without a `ledger` nothing is cached.
    Every call the models make to the endpoint is paced by one `EndpointScheduler` (`Models.scheduler`).
    `client` replaces the chat client every model shares (a forecast's, which sends nothing).
    """
    scheduler = endpoint_scheduler(settings, shared_by=getattr(ledger, "server_url", None))
    if settings.protocol in DECLARED_PROTOCOLS:
        official = official_of(benchmark)
        if templates is None:
            templates = read_official_templates(benchmark, settings, Path(dataset.source))
        context = settings_context(ledger, settings, scheduler=scheduler, client=client)
        scorers = official.scorers(context, templates)
        models = Models(answer=official.answer_model(context, templates, dataset), judge=scorers[0],
                        companions=tuple(scorers[1:]), templates=dict(templates), scheduler=scheduler)
    else:
        answer, judge = build_models(
            agent_model=settings.agent_model, judge_model=settings.judge_model,
            protocol="reference" if settings.protocol == "reference" else "typed",
            calls=settings.model_calls, cache=ledger_cache(ledger) if ledger is not None else None,
            prompts=dataset.prompts, scheduler=scheduler, client=client)
        models = Models(answer=answer, judge=judge, scheduler=scheduler)
    if probe and (not models.answer.offline or any(judge_asks_model(judge) for judge in models.judges)):
        probe_endpoint(settings.base_url, settings.api_key_env)
    return models


def probe_run_endpoint(settings: ResolvedSettings, dataset: Dataset, *, benchmark: Benchmark) -> Models | None:
    """Probe the endpoint the run's models would ask, before a ledger is opened or created; the models
    it opened to do so (None in retrieval mode), so the caller can say which are the offline ones.

    The CLI calls it first, so a dead endpoint or a refused key leaves no ledger file behind; it
    then passes `probed=True` to `run_dataset`.
    """
    if settings.mode == "qa":
        return open_models(None, settings, dataset, benchmark=benchmark)
    return None


def open_run_memory(settings: RunSettings, dataset: Dataset | None = None) -> MemorySystem:
    """The memory system under test on its evaluation store.

    A system whose class says `reads_evidence_labels` (the `oracle`, the one labelled exception,
    always diagnostic) is handed the dataset's evidence labels; no other system ever sees them.
    """
    assert settings.memory_store is not None
    settings.memory_store.parent.mkdir(parents=True, exist_ok=True)
    options: dict[str, object] = dict(settings.memory_options)
    if getattr(load_memory_class(settings.memory), "reads_evidence_labels", False) and dataset is not None:
        if not any(q.evidence for q in dataset.questions):
            raise BadInput(f"--memory {settings.memory} recalls the evidence labels, and {dataset.benchmark} "
                           "labels no evidence for these questions", field="memory")
        scopes = scope_names(dataset)
        options["labels"] = EvidenceLabels.of(dataset.release.evidence_level, (
            (scopes[q.scope_key], q.text, q.evidence) for q in dataset.questions))
    return open_memory(settings.memory, settings.memory_store, **options)


def run_dataset(ledger: Recorder, dataset: Dataset, settings: RunSettings, *,
                redact: Redact = no_redaction, progress: Progress = no_progress, run_id: str | None = None,
                probed: bool = False, forecast: RunForecast | None = None) -> str:
    """Run `dataset` against the memory (and models, in qa mode) the settings name; returns the run id.

    `run_id` names the new run (default: a fresh id), so a caller knows it even if the run is
    interrupted. `probed` says the caller already probed the endpoint (`probe_run_endpoint`);
    `forecast` is recorded with the run's start (`orchestration.forecast`). `ResolvedSettings` are
    used as they are; other settings are resolved here, once.
    """
    benchmark = benchmark_named(dataset.benchmark)
    resolved = resolved_settings(benchmark, settings, source=Path(dataset.source))
    models = open_models(ledger, resolved, dataset, benchmark=benchmark, probe=not probed) \
        if resolved.mode == "qa" else None
    memory = open_run_memory(resolved, dataset)
    try:
        return _start(ledger, dataset, benchmark, resolved, memory, models=models, redact=redact,
                      progress=progress, run_id=run_id, forecast=forecast)
    finally:
        memory.close()


def run_with(ledger: Recorder, dataset: Dataset, settings: RunSettings, memory: MemorySystem, *,
             models: Models | None = None, redact: Redact = no_redaction, progress: Progress = no_progress,
             run_id: str | None = None, forecast: RunForecast | None = None) -> str:
    """Run `dataset` against a memory system (and models) the caller opened; returns the run id.

    The lower-level entry for tools and tests that hold their own memory system object. In qa mode
    without `models`, the models the settings name are opened. `settings.memory_store` still names
    where the scope leases live. Settings are resolved as `run_dataset` resolves them.
    """
    benchmark = benchmark_named(dataset.benchmark)
    resolved = resolved_settings(benchmark, settings, source=Path(dataset.source))
    if resolved.mode == "qa" and models is None:
        models = open_models(ledger, resolved, dataset, benchmark=benchmark)
    return _start(ledger, dataset, benchmark, resolved, memory, models=models, redact=redact, progress=progress,
                  run_id=run_id, forecast=forecast)


def _start(ledger: Recorder, dataset: Dataset, benchmark: Benchmark, settings: ResolvedSettings,
           memory: MemorySystem, *, models: Models | None, redact: Redact, progress: Progress,
           run_id: str | None, forecast: RunForecast | None) -> str:
    parts = RunParts(dataset=dataset, benchmark=benchmark, settings=settings, memory=memory,
                     models=models if settings.mode == "qa" else None, redact=redact, progress=progress,
                     forecast=forecast)
    return start_run(ledger, parts, run_id=run_id)
