"""Wire a run together: open the memory system and the models a user chose, then start the run.

This is the one call the CLI makes for `benchledger run ...`; tests and other tools can make it too.
"""

from __future__ import annotations

from collections.abc import Callable

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.memory.registry import open_memory
from benchledger.adapters.models.factory import build_models
from benchledger.adapters.models.response_cache import ledger_cache
from benchledger.orchestration.runner import start_run
from benchledger.orchestration.settings import RunSettings

__all__ = ["run_dataset", "open_models", "prompt_hashes_of"]


def open_models(ledger, dataset: Dataset, settings: RunSettings, *, judge_model: str | None = None,
                protocol: str | None = None):
    return build_models(
        agent_model=settings.agent_model, judge_model=judge_model or settings.judge_model,
        protocol=protocol or settings.protocol, base_url=settings.base_url,
        api_key_env=settings.api_key_env, cache=ledger_cache(ledger), timeout=settings.timeout,
        max_attempts=settings.max_attempts, backoff_base=settings.backoff_base, prompts=dataset.prompts,
    )


def prompt_hashes_of(answer_model, judge_model) -> dict[str, str]:
    hashes: dict[str, str] = {}
    for model in (answer_model, judge_model):
        hashes.update(getattr(model, "prompt_hashes", {}) or {})
    return hashes


def run_dataset(ledger, dataset: Dataset, settings: RunSettings, *,
                redact: Callable[[str], str] = lambda s: s,
                progress: Callable[[str, int, int], None] = lambda *a: None) -> str:
    """Run `dataset` against the chosen memory and models; returns the run id."""
    answer_model, judge_model = open_models(ledger, dataset, settings)
    settings.memory_store.parent.mkdir(parents=True, exist_ok=True)
    memory = open_memory(settings.memory, settings.memory_store, **settings.memory_options)
    try:
        return start_run(ledger, dataset, settings, memory, answer_model, judge_model,
                         prompt_hashes=prompt_hashes_of(answer_model, judge_model),
                         redact=redact, progress=progress)
    finally:
        memory.close()
