"""Resume: continue an interrupted run from its events ("planned minus recorded").

Resume reads the corpus again with the benchmark's own loader and the recorded selection, and
refuses it if its fingerprint changed (naming both); it probes the memory system for the prepared
scope and prepares it again when anything is missing (it never scores against an empty index),
then runs exactly the stages the ledger does not hold: questions that only have Failed events are
retried under a new attempt number, recorded stages are skipped. A completed run with an open
run-level failure (a purge that failed) is resumed too: the failed stage runs again. The settings are the recorded
ones (a typed model, never re-parsed), with only the overrides the caller names; an official run's
templates are the ones it recorded (blobs), never re-read from files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import structlog

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.registry import Benchmark, benchmark_named
from benchledger.adapters.memory.protocol import MemorySystem
from benchledger.callbacks import Progress, Redact, no_progress, no_redaction
from benchledger.errors import BadInput, CorpusChanged
from benchledger.ledger.events import MemoryIdentity, RunResumed
from benchledger.ledger.recorder import EventReader, Recorder
from benchledger.orchestration.prepare import scope_names
from benchledger.orchestration.rejudge import dataset_from_plan, recorded_templates
from benchledger.orchestration.runner import RunParts, execute, model_endpoint
from benchledger.orchestration.session import open_models, open_run_memory
from benchledger.projections.state import RunState, fold_run
from benchledger.redaction import strip_url_credentials
from benchledger.settings import Overrides, RunSettings

__all__ = ["ResumeOutcome", "recorded_settings", "resume_run", "later_scorers_behind"]

log = structlog.get_logger("benchledger.resume")


class ResumeOutcome:
    def __init__(self, run_id: str, attempt: int, reprepared: bool, pending: int,
                 retried: tuple[str, ...] = ()) -> None:
        self.run_id, self.attempt, self.reprepared, self.pending = run_id, attempt, reprepared, pending
        self.retried = retried
        """Stages of the open run-level failures this resume retried (a purge that failed)."""


def recorded_settings(state: RunState, overrides: Overrides = Overrides()) -> RunSettings:
    """The settings a run was started with, as RunStarted recorded them, with `overrides` applied."""
    if state.started is None:
        raise BadInput(f"run {state.run_id} has no RunStarted event", field="run")
    return overrides.applied_to(state.started.config.settings)


def _pending(state: RunState) -> int:
    """Questions the run's own scorer (the first; resume judges with it) has not judged."""
    scorer = next(iter(state.scorers), None)
    return sum(1 for q in state.questions.values() if q.status(scorer) != "judged")


def _scope_complete(memory: Any, dataset: Dataset) -> bool:
    names = scope_names(dataset)
    for key, docs in dataset.scopes.items():
        held = memory.state(names[key])
        if held.documents < len(docs) or held.pending_chunks:
            return False
    return True


def _reload(reader: EventReader, benchmark: Benchmark, state: RunState) -> Dataset:
    """The corpus from disk, as the recorded selection selects it, with the ledger's own questions."""
    assert state.started is not None and state.corpus is not None
    cfg = state.started.config
    on_disk = benchmark.load(Path(cfg.corpus_path), cfg.selection)
    if on_disk.adapter_version != state.corpus.adapter_version:
        raise CorpusChanged(
            f"run {state.run_id} was prepared by the {state.corpus.adapter_version} adapter and this benchledger "
            f"reads the corpus with {on_disk.adapter_version}, which gives other documents; start a new run instead")
    if on_disk.fingerprint != state.corpus.fingerprint:
        raise CorpusChanged(
            f"the corpus changed since run {state.run_id}: recorded fingerprint {state.corpus.fingerprint} "
            f"(adapter {state.corpus.adapter_version}), on disk {on_disk.fingerprint} (adapter "
            f"{on_disk.adapter_version}, {cfg.corpus_path}); start a new run instead")
    # Questions, gold and prompts come from the ledger, so an edited question file or prompt can never
    # change how the run is finished.
    recorded = dataset_from_plan(reader, state)
    return on_disk.model_copy(update={"questions": recorded.questions, "prompts": recorded.prompts})


def memory_url(settings: RunSettings) -> str | None:
    """The memory server's URL as the ledger records it (without credentials), None in process."""
    url = settings.memory_options.get("url")
    return strip_url_credentials(url) if url else None


def _check_memory(state: RunState, memory: MemorySystem, settings: RunSettings, *, allow_change: bool) -> bool:
    """True when the memory system differs from the run's and the user allowed it; BadInput when not allowed."""
    assert state.started is not None
    cfg = state.started.config
    recorded_url = cfg.settings.memory_options.get("url")
    url = memory_url(settings)
    if (memory.name, memory.version, url) == (cfg.memory, cfg.memory_version, recorded_url):
        return False
    if not allow_change:  # a server elsewhere naming itself the same is still another memory
        where = (f" at {recorded_url}", f" at {url}") if url != recorded_url else ("", "")
        raise BadInput(
            f"run {state.run_id} recalled from {cfg.memory} {cfg.memory_version}{where[0]}; this resume would "
            f"recall from {memory.name} {memory.version}{where[1]}. Resume against the same memory system, or pass "
            "--allow-memory-change to continue anyway (the run is then diagnostic)", field="memory")
    log.warning("resuming with another memory system", run_id=state.run_id, recorded=cfg.memory, now=memory.name)
    return True


def _resume_run(ledger: Recorder, run_id: str, *, redact: Redact = no_redaction,
                progress: Progress = no_progress, allow_memory_change: bool = False,
                overrides: Overrides = Overrides()) -> ResumeOutcome:
    state = fold_run(run_id, ledger.reader.events(run_id))
    if state.started is None or state.corpus is None:
        raise BadInput(f"run {run_id} has no recorded plan to resume from", field="run")
    state.require_answers("resume (run `benchledger retrieval` again instead)")
    benchmark = benchmark_named(state.started.config.benchmark)
    dataset = _reload(ledger.reader, benchmark, state)
    pending = _pending(state)
    finished = state.finished is not None and state.finished.status == "completed"
    # a completed run's open failures are run-level ones (a purge): execute retries every stage again
    retried = tuple(dict.fromkeys(f.stage for f in state.unresolved_run_failures)) if finished else ()
    if finished and pending == 0 and not retried:
        log.info("nothing to resume", run_id=run_id)
        return ResumeOutcome(run_id, len(state.resumes) + 1, False, 0)
    settings = recorded_settings(state, overrides)
    models = open_models(ledger, settings, dataset, benchmark=benchmark,
                         templates=recorded_templates(ledger.reader, benchmark, state))
    memory = open_run_memory(settings, dataset)
    try:
        changed = _check_memory(state, memory, settings, allow_change=allow_memory_change)
        reprepare = not _scope_complete(memory, dataset)
        attempt = len(state.resumes) + 2
        url = memory_url(settings)
        ledger.writer.append(run_id, [RunResumed(
            attempt=attempt, fingerprint_on_disk=dataset.fingerprint, reprepared=reprepare,
            pending_questions=pending, endpoint=model_endpoint(settings), agent_model=models.answer.name,
            judge_model=models.judge.name, memory_changed=changed,
            memory=MemoryIdentity(name=memory.name, version=memory.version, url=url))])
        log.info("resuming", run_id=run_id, attempt=attempt, reprepare=reprepare, pending=pending, retried=retried)
        parts = RunParts(dataset=dataset, benchmark=benchmark, settings=settings, memory=memory, models=models,
                         redact=redact, progress=progress)
        execute(ledger, run_id, parts, attempt=attempt, prepare=reprepare)
    finally:
        memory.close()
    return ResumeOutcome(run_id, attempt, reprepare, pending, retried)


def resume_run(ledger: Recorder, run_id: str, **kwargs: Any) -> ResumeOutcome:
    """Continue an interrupted run (see the module docstring), holding the run's writer lock."""
    with ledger.writer.run_writer(run_id):
        return _resume_run(ledger, run_id, **kwargs)


def later_scorers_behind(state: RunState) -> list[tuple[str, int]]:
    """Scorers after the run's own with recorded answers they have not judged (resume judges only
    with the run's own scorer; `rejudge --continue` finishes the others)."""
    behind = []
    for scorer in list(state.scorers)[1:]:
        missing = sum(1 for q in state.questions.values() if q.answered is not None and scorer not in q.judged)
        if missing:
            behind.append((scorer, missing))
    return behind
