"""Start a run: plan it, prepare the memory, ask every question, purge, finish.

The order of events for a run is RunStarted, QuestionsPlanned, CorpusFingerprinted,
MessagesIngested (batched), ChunkExtracted (batched; per scope in order, scopes interleaved when
the memory prepares them concurrently: `orchestration.prepare`), ScopeVerified, ScorerStarted, then per
question ContextRecalled, QuestionAnswered, Judged (or Failed), then ScopePurged and RunFinished
(saved with the run's view in the same transaction). A protocol with companion scorers (LoCoMo's
LLM judge beside its official token F1) opens them with the run's own scorer and judges the
recorded answers with each after the questions are asked. A retrieval run is the same pipeline
with no models: no ScorerStarted, no answers, no verdicts. If the memory does not hold the selected corpus
with nothing pending, scoring is refused: a Failed event at stage verify, RunFinished aborted, and
`RunAborted` for the caller.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import structlog

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.benchmarks.registry import Benchmark
from benchledger.adapters.memory.protocol import MemorySystem
from benchledger.adapters.models.base import AnswerModel, JudgeModel
from benchledger.adapters.models.probe import probed_certificate, probed_tls
from benchledger.adapters.models.scheduler import EndpointScheduler
from benchledger.callbacks import Progress, Redact, no_progress, no_redaction
from benchledger.clock import new_run_id
from benchledger.errors import ConcurrencyConflict, RunAborted
from benchledger.ledger.events import (
    Endpoint, Event, Failed, QuestionsPlanned, RunConfig, RunFinished, RunForecast, RunStarted, Stage,
)
from benchledger.ledger.recorder import EventReader, EventWriter, Recorder
from benchledger.orchestration.asker import QuestionAsker, QuestionJob
from benchledger.orchestration.leases import ScopeLeases
from benchledger.orchestration.memory_calls import share_scheduler
from benchledger.orchestration.prepare import (
    ScopesFailed, fingerprint_event, prepare_scopes, purge_scopes, scope_names, verify_scopes,
)
from benchledger.orchestration.provenance import collect_provenance
from benchledger.orchestration.releases import release_files
from benchledger.orchestration.scorers import start_scorers
from benchledger.projections.state import fold_run
from benchledger.projections.views import views_after
from benchledger.redaction import safe_message, strip_url_credentials
from benchledger.settings import RunSettings

__all__ = ["Models", "RunParts", "recordable", "model_endpoint", "plan_events", "start_run", "execute", "finish",
           "record_pacing"]

log = structlog.get_logger("benchledger.run")
NO_MODEL = "none"
"""The model name a retrieval run records: it asks no model."""


@dataclass(frozen=True)
class Models:
    """The answer and judge models of a question-answering run."""

    answer: AnswerModel
    judge: JudgeModel
    companions: tuple[JudgeModel, ...] = ()
    """Further scorers the protocol runs over the same answers (LoCoMo's labelled LLM judge)."""
    templates: Mapping[str, str] = field(default_factory=dict)
    """The official templates the models fill, by file name (kept as blobs from RunStarted on)."""
    scheduler: EndpointScheduler | None = None
    """Paces the models' calls to the endpoint; its summary is recorded as `EndpointPaced`."""

    @property
    def judges(self) -> tuple[JudgeModel, ...]:
        """The run's own scorers' judges: its judge, then its companions."""
        return (self.judge, *self.companions)

    @property
    def prompt_hashes(self) -> dict[str, str]:
        """Every prompt's SHA-256: the official templates by file name (even those an offline model
        never fills, so the run can be resumed from its blobs), then each model's own."""
        hashes = {name: hashlib.sha256(text.encode("utf-8")).hexdigest() for name, text in self.templates.items()}
        for model in (self.answer, *self.judges):
            hashes.update(getattr(model, "prompt_hashes", {}) or {})
        return hashes


@dataclass(frozen=True)
class RunParts:
    """What one attempt of a run works with: what to ask, of which memory, with which models."""

    dataset: Dataset
    benchmark: Benchmark
    settings: RunSettings
    """With the protocol resolved (never None)."""
    memory: MemorySystem
    models: Models | None
    """None for a retrieval run."""
    redact: Redact = no_redaction
    progress: Progress = no_progress
    forecast: RunForecast | None = None
    """What the run was forecast to spend, recorded with its start (None: not forecast)."""


def recordable(settings: RunSettings) -> RunSettings:
    """The settings as the ledger keeps them: endpoint and memory URLs without their credentials."""
    memory_options = dict(settings.memory_options)
    if "url" in memory_options:
        memory_options["url"] = strip_url_credentials(memory_options["url"])
    base_url = strip_url_credentials(settings.base_url) if settings.base_url else None
    return settings.model_copy(update={"base_url": base_url, "memory_options": memory_options})


def model_endpoint(settings: RunSettings) -> Endpoint:
    """Where the run's model calls go (no credentials), with what the probe saw over HTTPS."""
    return Endpoint(base_url=strip_url_credentials(settings.base_url) if settings.base_url else None,
                    api_key_env=settings.api_key_env, certificate=probed_certificate(settings.base_url),
                    tls=probed_tls(settings.base_url))


def cache_source_publishable(reader: EventReader, source: str) -> bool:
    """Whether the run named by `--cache-from` meets its protocol (its report is publishable); a
    source that does not verify is refused (VerificationFailed) before this run starts."""
    from benchledger.orchestration.reports import report_of  # reports imports the registry, as the CLI does

    state = fold_run(source, reader.verified_events(source))
    return state.mode == "qa" and report_of(state).publishable


def plan_events(parts: RunParts, *, cache_source_publishable: bool | None = None) -> list[Event]:
    """RunStarted, QuestionsPlanned and CorpusFingerprinted of a new run."""
    dataset, settings, models, memory = parts.dataset, parts.settings, parts.models, parts.memory
    config = RunConfig(
        benchmark=dataset.benchmark, subset=dataset.subset, corpus_path=dataset.source,
        selection=dataset.selection, settings=recordable(settings),
        memory=memory.name, memory_version=memory.version, memory_model=getattr(memory, "model", None),
        agent_model=models.answer.name if models else NO_MODEL,
        judge_model=models.judge.name if models else NO_MODEL,
        offline_models=bool(models is None or models.answer.offline or models.judge.offline),
        prompt_hashes=models.prompt_hashes if models else {},
        reference_prompt_hashes=dataset.prompts.hashes if dataset.prompts else {},
        evidence_level=dataset.release.evidence_level,
        release_files=release_files(parts.benchmark, dataset),
        cache_source_publishable=cache_source_publishable,
        endpoint=model_endpoint(settings) if models is not None else None,
    )
    plan = QuestionsPlanned(questions=dataset.questions, available=dataset.release.questions_available,
                            kinds_available=dataset.release.kinds_available)
    return [RunStarted(config=config, provenance=collect_provenance()), plan, fingerprint_event(dataset)]


def execute(ledger: Recorder, run_id: str, parts: RunParts, *, attempt: int, prepare: bool) -> None:
    """Prepare (if asked), verify, ask what is not yet recorded, purge, finish. Shared by run and resume."""
    assert parts.settings.memory_store is not None
    leases = ScopeLeases(parts.settings.memory_store)
    try:
        _execute(ledger, run_id, parts, attempt=attempt, prepare=prepare, leases=leases)
    except RunAborted:
        for scope in scope_names(parts.dataset).values():  # left for resume, no longer held by this process
            leases.release(scope, run_id)
        raise
    finally:
        leases.close()


def _execute(ledger: Recorder, run_id: str, parts: RunParts, *, attempt: int, prepare: bool,
             leases: ScopeLeases) -> None:
    dataset, settings, memory = parts.dataset, parts.settings, parts.memory
    share_scheduler(memory, parts.models.scheduler if parts.models else None, settings.base_url)
    for scope in scope_names(dataset).values():
        leases.acquire(scope, run_id)
    state = fold_run(run_id, ledger.reader.events(run_id))
    if prepare:
        try:
            prepare_scopes(ledger.writer, run_id, dataset, memory, preparation=state.preparation + 1,
                           batch_size=settings.batch_size, concurrency=settings.concurrency, attempt=attempt,
                           redact=parts.redact, progress=parts.progress)
        except ScopesFailed as err:  # each failed scope is recorded already; the others kept their work
            _abort(ledger, run_id, parts, "prepare", err, attempt, recorded=True)
        except Exception as err:  # the memory system failed while preparing: record, abort, never score
            _abort(ledger, run_id, parts, "prepare", err, attempt)
    try:
        problems = verify_scopes(ledger.writer, run_id, dataset, memory, check=attempt)
    except Exception as err:  # the memory system could not report its state: never score blind
        _abort(ledger, run_id, parts, "verify", err, attempt)
    if problems:
        _abort(ledger, run_id, parts, "verify", RuntimeError("; ".join(problems)), attempt,
               error_class="CorpusIncomplete")
    state = fold_run(run_id, ledger.reader.events(run_id))
    scorer_ids: list[str] = []
    if parts.models is not None:  # the run's own scorers come first; rejudge adds others
        endpoint = model_endpoint(settings)
        official_method = parts.benchmark.official.recorded_official_method if parts.benchmark.official else None
        scorer_ids = start_scorers(ledger.writer, run_id, state, parts.models.judges, settings.protocol or "", endpoint,
                                   official_method)
        state = fold_run(run_id, ledger.reader.events(run_id))
    job = QuestionJob(
        ledger=ledger, run_id=run_id, dataset=dataset, memory=memory,
        answer_model=parts.models.answer if parts.models else None,
        judge_model=parts.models.judge if parts.models else None, scorer_id=scorer_ids[0] if scorer_ids else None,
        k=settings.k, token_budget=settings.token_budget, concurrency=settings.concurrency,
        attempt=attempt, redact=parts.redact, progress=parts.progress)
    QuestionAsker(job).run(state)
    for scorer_id, companion in zip(scorer_ids[1:], parts.models.companions if parts.models else ()):
        QuestionAsker(replace(job, judge_model=companion, scorer_id=scorer_id, judge_only=True)).run(
            fold_run(run_id, ledger.reader.events(run_id)))
    if parts.models is not None and parts.models.scheduler is not None:
        record_pacing(ledger.writer, run_id, parts.models.scheduler, attempt=attempt)
    if settings.keep:
        for scope in scope_names(dataset).values():
            leases.release(scope, run_id)
    else:
        purge_scopes(ledger.writer, run_id, dataset, memory, attempt=attempt, redact=parts.redact, leases=leases,
                     preparation=state.preparation)
    finish(ledger, run_id, parts.benchmark, [RunFinished(status="completed", attempt=attempt)])


def record_pacing(writer: EventWriter, run_id: str, scheduler: EndpointScheduler, *, attempt: int) -> None:
    """Append what the endpoint's scheduler decided in this segment (nothing when it admitted no call)."""
    summary = scheduler.summary(attempt=attempt)
    if summary.calls:
        writer.append(run_id, [summary])


def finish(ledger: Recorder, run_id: str, benchmark: Benchmark, events: list[Event]) -> None:
    """Append the closing events with the view they complete, in one transaction.

    The view is folded from the events read just before; `expected_position` makes the append fail
    (and this fold again) if another writer appended to the run in between.
    """
    for _ in range(5):
        stored = ledger.reader.events(run_id)
        try:
            folds = benchmark.report_folds()
            views = views_after(run_id, stored, events, folds.conditions, sections=folds.sections,
                                retrieval_official=folds.retrieval_official, kind=folds.kind)
            ledger.writer.append(run_id, events, views=views, expected_position=stored[-1].position if stored else 0)
            return
        except ConcurrencyConflict:
            continue
    raise ConcurrencyConflict(f"run {run_id} kept changing while it was being finished; resume it")


def _abort(ledger: Recorder, run_id: str, parts: RunParts, stage: Stage, err: BaseException, attempt: int, *,
           error_class: str | None = None, recorded: bool = False) -> None:
    """Finish the run as aborted at `stage`, recording the failure unless it is `recorded` already."""
    message = safe_message(parts.redact(str(err)))
    failed = [] if recorded else [
        Failed(stage=stage, error_class=error_class or type(err).__name__, message=message, attempt=attempt)]
    finish(ledger, run_id, parts.benchmark, [
        *failed, RunFinished(status="aborted", reason=f"{stage}: {message}", attempt=attempt),
    ])
    raise RunAborted(f"run {run_id} aborted at {stage}: {message}", run_id=run_id)


def start_run(ledger: Recorder, parts: RunParts, *, run_id: str | None = None) -> str:
    """Record a new run from start to finish; returns its id (also when the run aborts, via RunAborted)."""
    run_id = run_id or new_run_id()
    source_publishable = None
    if parts.settings.cache_from:  # recorded as the full id of a run this ledger holds, or refused
        source = ledger.reader.resolve_run(parts.settings.cache_from)
        source_publishable = cache_source_publishable(ledger.reader, source)
        parts = replace(parts, settings=parts.settings.model_copy(update={"cache_from": source}))
    dataset = parts.dataset
    prompts = ([p.encode() for p in (dataset.prompts.agent_system, dataset.prompts.judge_system)]
               if dataset.prompts else [])
    prompts += [text.encode("utf-8") for text in (parts.models.templates.values() if parts.models else ())]
    with ledger.writer.run_writer(run_id):
        ledger.writer.append(run_id, [*plan_events(parts, cache_source_publishable=source_publishable),
                                      *([parts.forecast] if parts.forecast is not None else [])], blobs=prompts)
        log.info("run started", run_id=run_id, benchmark=dataset.benchmark, subset=dataset.subset,
                 mode=parts.settings.mode, documents=dataset.document_count, questions=len(dataset.questions))
        execute(ledger, run_id, parts, attempt=1, prepare=parts.settings.prepare)
    return run_id
