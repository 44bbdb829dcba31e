"""Resume: continue an interrupted run from its events ("planned minus recorded").

Resume reads the corpus again and refuses it if its fingerprint changed (naming both), probes the
memory system for the prepared scope and prepares it again when anything is missing (it never
scores against an empty index), then runs exactly the stages the ledger does not hold: questions
that only have Failed events are retried under a new attempt number, recorded stages are skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import structlog
from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.loaders import reload_dataset
from benchledger.adapters.memory.registry import open_memory
from benchledger.errors import BadInput, CorpusChanged
from benchledger.ledger.events import RunResumed
from benchledger.orchestration.prepare import scope_names
from benchledger.orchestration.ownership import run_writer
from benchledger.orchestration.rejudge import dataset_from_plan
from benchledger.orchestration.runner import execute
from benchledger.orchestration.session import open_models
from benchledger.orchestration.settings import RunSettings
from benchledger.projections.state import RunState, fold_run

__all__ = ["ResumeOutcome", "settings_of", "resume_run", "resume_memory_options", "later_scorers_behind"]

log = structlog.get_logger("benchledger.resume")


class ResumeOutcome:
    def __init__(self, run_id: str, attempt: int, reprepared: bool, pending: int) -> None:
        self.run_id, self.attempt, self.reprepared, self.pending = run_id, attempt, reprepared, pending


def settings_of(state: RunState, **overrides) -> RunSettings:
    """The RunSettings a run was started with, as recorded on RunStarted."""
    cfg = state.started.config
    extra = cfg.extra
    # A remote system is recorded under its own name ("http:sqlite"); it is reopened through `http`.
    memory = "http" if cfg.memory.startswith("http:") else cfg.memory
    values = dict(
        memory=memory, memory_store=Path(extra.get("memory_store", "memory.sqlite")),
        memory_options=dict(cfg.memory_options), k=cfg.k, token_budget=cfg.token_budget,
        protocol=cfg.protocol,
        agent_model=None if cfg.offline_models and cfg.agent_model.startswith("offline-") else cfg.agent_model,
        judge_model=None if cfg.judge_model.startswith("offline-") else cfg.judge_model,
        base_url=cfg.base_url, api_key_env=extra.get("api_key_env", "OPENAI_API_KEY"),
        concurrency=cfg.concurrency, keep=cfg.keep, timeout=float(extra.get("timeout", 60.0)),
        max_attempts=int(extra.get("max_attempts", 6)), backoff_base=float(extra.get("backoff_base", 0.5)),
        batch_size=int(extra.get("batch_size", 1000)),
    )
    values.update({k: v for k, v in overrides.items() if v is not None})
    return RunSettings(**values)


def _pending(state: RunState) -> int:
    """Questions the run's own scorer (the first; resume judges with it) has not judged."""
    scorer = next(iter(state.scorers), None)
    return sum(1 for q in state.questions.values() if q.status(scorer) != "judged")


def _scope_complete(memory, dataset: Dataset) -> bool:
    names = scope_names(dataset)
    for key, docs in dataset.scopes.items():
        held = memory.state(names[key])
        if held.documents < len(docs) or held.pending_chunks:
            return False
    return True


def _resume_run(ledger, run_id: str, *, redact: Callable[[str], str] = lambda s: s,
               progress: Callable[[str, int, int], None] = lambda *a: None, **overrides) -> ResumeOutcome:
    state = fold_run(run_id, ledger.events(run_id))
    if state.started is None or state.corpus is None:
        raise BadInput(f"run {run_id} has no recorded plan to resume from", field="run")
    state.require_answers("resume (run `benchledger retrieval` again instead)")
    on_disk = reload_dataset(state.started.config)
    if on_disk.adapter_version != state.corpus.adapter_version:
        raise CorpusChanged(
            f"run {run_id} was prepared by the {state.corpus.adapter_version} adapter and this benchledger reads "
            f"the corpus with {on_disk.adapter_version}, which gives other documents; start a new run instead")
    if on_disk.fingerprint != state.corpus.fingerprint:
        raise CorpusChanged(
            f"the corpus changed since run {run_id}: recorded fingerprint {state.corpus.fingerprint}, "
            f"on disk {on_disk.fingerprint} ({state.started.config.corpus_path}); start a new run instead")
    # The corpus comes from disk (its fingerprint matches); questions, gold and prompts come from the
    # ledger, so an edited question file or prompt can never change how the run is finished.
    recorded = dataset_from_plan(ledger, state)
    dataset = on_disk.model_copy(update={"questions": recorded.questions, "prompts": recorded.prompts})
    pending = _pending(state)
    finished = state.finished is not None and state.finished.status == "completed"
    if finished and pending == 0 and not state.unresolved_run_failures:
        log.info("nothing to resume", run_id=run_id)
        return ResumeOutcome(run_id, len(state.resumes) + 1, False, 0)
    settings = settings_of(state, **overrides)
    answer_model, judge_model = open_models(ledger, dataset, settings)
    settings.memory_store.parent.mkdir(parents=True, exist_ok=True)
    memory = open_memory(settings.memory, settings.memory_store, **settings.memory_options)
    try:
        reprepare = not _scope_complete(memory, dataset)
        attempt = len(state.resumes) + 2
        ledger.append(run_id, [RunResumed(attempt=attempt, fingerprint_on_disk=dataset.fingerprint,
                                          reprepared=reprepare, pending_questions=pending)])
        log.info("resuming", run_id=run_id, attempt=attempt, reprepare=reprepare, pending=pending)
        execute(ledger, run_id, dataset, settings, memory, answer_model, judge_model, attempt=attempt,
                prepare=reprepare, redact=redact, progress=progress)
    finally:
        memory.close()
    return ResumeOutcome(run_id, attempt, reprepare, pending)


def resume_run(ledger, run_id: str, **kwargs) -> ResumeOutcome:
    """Continue an interrupted run (see the module docstring), holding the run's writer lock."""
    with run_writer(ledger, run_id):
        return _resume_run(ledger, run_id, **kwargs)


def resume_memory_options(ledger, run_id: str) -> dict[str, str]:
    """The memory options a run recorded (a server URL, env var names)."""
    state = fold_run(run_id, ledger.events(run_id, types=["RunStarted"]))
    return dict(state.started.config.memory_options) if state.started else {}


def later_scorers_behind(state: RunState) -> list[tuple[str, int]]:
    """Scorers after the run's own with recorded answers they have not judged (resume judges only
    with the run's own scorer; `rejudge --continue` finishes the others)."""
    behind = []
    for scorer in list(state.scorers)[1:]:
        missing = sum(1 for q in state.questions.values() if q.answered is not None and scorer not in q.judged)
        if missing:
            behind.append((scorer, missing))
    return behind
