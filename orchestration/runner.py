"""Start a run: plan it, prepare the memory, ask every question, purge, finish.

The order of events for a run is RunStarted, QuestionsPlanned, CorpusFingerprinted,
MessagesIngested (batched), ChunkExtracted (batched), ScopeVerified, ScorerStarted, then per
question ContextRecalled, QuestionAnswered, Judged (or Failed), then ScopePurged and RunFinished.
If the memory does not hold the selected corpus with nothing pending, scoring is refused: a Failed
event at stage verify, RunFinished aborted, and `RunAborted` for the caller.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog
from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.memory.protocol import MemorySystem
from benchledger.adapters.models.base import AnswerModel, JudgeModel
from benchledger.errors import ConcurrencyConflict, RunAborted
from benchledger.ledger.events import (
    Failed, PlannedQuestion, QuestionsPlanned, RunConfig, RunFinished, RunStarted, ScorerStarted,
)
from benchledger.clock import new_run_id
from benchledger.orchestration.leases import ScopeLeases
from benchledger.orchestration.ownership import run_writer
from benchledger.orchestration.prepare import fingerprint_event, prepare_scopes, purge_scopes, scope_names, verify_scopes
from benchledger.orchestration.provenance import collect_provenance
from benchledger.orchestration.questions import QuestionJob, ask_questions
from benchledger.orchestration.settings import RunSettings
from benchledger.projections.state import fold_run
from benchledger.projections.views import views_after
from benchledger.redaction import strip_url_credentials

__all__ = ["plan_events", "start_run", "execute"]

log = structlog.get_logger("benchledger.run")
Progress = Callable[[str, int, int], None]


def _planned(dataset: Dataset) -> tuple[PlannedQuestion, ...]:
    return tuple(
        PlannedQuestion(
            question_id=q.question_id, kind=q.kind, text=q.text, asking_user=q.asking_user, gold=q.gold,
            abstention=q.abstention, scope_key=q.scope_key, evidence=q.evidence,
            question_time=q.question_time.isoformat() if q.question_time else None,
            criteria=tuple(c.model_dump() for c in q.criteria),
        )
        for q in dataset.questions
    )


def _extra(settings: RunSettings, sel: dict) -> dict[str, str]:
    """What resume needs to rebuild the same settings and dataset (no secrets: env var names only)."""
    extra = {"memory_store": str(settings.memory_store), "api_key_env": settings.api_key_env,
             "timeout": str(settings.timeout), "max_attempts": str(settings.max_attempts),
             "backoff_base": str(settings.backoff_base),
             "batch_size": str(settings.batch_size)}
    if sel.get("conversation_ids"):
        extra["conversation_ids"] = ",".join(sel["conversation_ids"])  # type: ignore[arg-type]
    return extra


def plan_events(dataset: Dataset, settings: RunSettings, memory: MemorySystem, answer_model: AnswerModel,
                judge_model: JudgeModel, prompt_hashes: dict[str, str]) -> list:
    sel = dataset.selection
    config = RunConfig(
        benchmark=dataset.benchmark, subset=dataset.subset, corpus_path=dataset.source,
        memory=memory.name, memory_version=memory.version,
        memory_model=getattr(memory, "model", None),
        memory_options=dict(settings.memory_options),  # a URL and env var names, never their values
        agent_model=answer_model.name, judge_model=judge_model.name,
        offline_models=bool(answer_model.offline or judge_model.offline),
        base_url=strip_url_credentials(settings.base_url) if settings.base_url else None,
        protocol=settings.protocol, k=settings.k,
        token_budget=settings.token_budget, kinds=tuple(sel.get("kinds") or sel.get("categories") or ()),
        message_limit=sel.get("message_limit"), question_limit=sel.get("question_limit"),
        concurrency=settings.concurrency, keep=settings.keep, prompt_hashes=prompt_hashes,
        reference_prompt_hashes=dataset.prompts.hashes if dataset.prompts else {},
        extra=_extra(settings, sel),
    )
    plan = QuestionsPlanned(
        questions=_planned(dataset),
        available=int(sel.get("questions_available", len(dataset.questions))),
        kinds_available=tuple(sel.get("kinds_available") or ()),
    )
    return [RunStarted(config=config, provenance=collect_provenance()), plan, fingerprint_event(dataset)]


def execute(ledger, run_id: str, dataset: Dataset, settings: RunSettings, memory: MemorySystem,
            answer_model: AnswerModel, judge_model: JudgeModel, *, attempt: int, prepare: bool,
            redact: Callable[[str], str], progress: Progress) -> None:
    """Prepare (if asked), verify, ask what is not yet recorded, purge, finish. Shared by run and resume."""
    leases = ScopeLeases(settings.memory_store)
    try:
        _execute(ledger, run_id, dataset, settings, memory, answer_model, judge_model, attempt=attempt,
                 prepare=prepare, redact=redact, progress=progress, leases=leases)
    except RunAborted:
        for scope in scope_names(dataset).values():  # left for resume, no longer held by this process
            leases.release(scope, run_id)
        raise
    finally:
        leases.close()


def _execute(ledger, run_id, dataset, settings, memory, answer_model, judge_model, *, attempt, prepare,
             redact, progress, leases) -> None:
    for scope in scope_names(dataset).values():
        leases.acquire(scope, run_id)
    state = fold_run(run_id, ledger.events(run_id))
    if prepare:
        try:
            prepare_scopes(ledger, run_id, dataset, memory, preparation=state.preparation + 1,
                           batch_size=settings.batch_size, progress=progress)
        except Exception as err:  # the memory system failed while preparing: record, abort, never score
            _abort(ledger, run_id, "prepare", err, attempt, redact)
    try:
        problems = verify_scopes(ledger, run_id, dataset, memory, check=attempt)
    except Exception as err:  # the memory system could not report its state: never score blind
        _abort(ledger, run_id, "verify", err, attempt, redact)
    if problems:
        _abort(ledger, run_id, "verify", RuntimeError("; ".join(problems)), attempt, redact,
               error_class="CorpusIncomplete")
    state = fold_run(run_id, ledger.events(run_id))
    scorer_id = next(iter(state.scorers), "s1")  # the run's own scorer; rejudge adds others
    if scorer_id not in state.scorers:
        ledger.append(run_id, [ScorerStarted(
            scorer_id=scorer_id, judge_model=judge_model.name, protocol=settings.protocol,
            prompt_hash=(getattr(judge_model, "prompt_hashes", {}) or {}).get("judge_system", ""),
            offline=judge_model.offline)])
        state = fold_run(run_id, ledger.events(run_id))
    job = QuestionJob(ledger=ledger, run_id=run_id, dataset=dataset, memory=memory,
                      answer_model=answer_model, judge_model=judge_model, scorer_id=scorer_id,
                      k=settings.k, token_budget=settings.token_budget, concurrency=settings.concurrency,
                      attempt=attempt, redact=redact, progress=progress)
    ask_questions(job, state)
    if settings.keep:
        for scope in scope_names(dataset).values():
            leases.release(scope, run_id)
    else:
        purge_scopes(ledger, run_id, dataset, memory, attempt=attempt, redact=redact, leases=leases,
                     preparation=state.preparation)
    _finish(ledger, run_id, [RunFinished(status="completed", attempt=attempt)])


def _finish(ledger, run_id: str, events: list) -> None:
    """Append the closing events with the scorecard view they complete, in one transaction.

    The view is folded from the events read just before; `expected_position` makes the append fail
    (and this fold again) if another writer appended to the run in between.
    """
    for _ in range(5):
        stored = ledger.events(run_id)
        try:
            ledger.append(run_id, events, views=views_after(run_id, stored, events),
                          expected_position=stored[-1].position if stored else 0)
            return
        except ConcurrencyConflict:
            continue
    raise ConcurrencyConflict(f"run {run_id} kept changing while it was being finished; resume it")


def _abort(ledger, run_id: str, stage: str, err: BaseException, attempt: int, redact, *,
           error_class: str | None = None) -> None:
    from benchledger.ledger.events import cap_message

    message = cap_message(redact(str(err)))
    _finish(ledger, run_id, [
        Failed(stage=stage, error_class=error_class or type(err).__name__, message=message, attempt=attempt),
        RunFinished(status="aborted", reason=f"{stage}: {message}", attempt=attempt),
    ])
    raise RunAborted(f"run {run_id} aborted at {stage}: {message}", run_id=run_id)


def start_run(ledger, dataset: Dataset, settings: RunSettings, memory: MemorySystem,
              answer_model: AnswerModel, judge_model: JudgeModel, *, prompt_hashes: dict[str, str],
              redact: Callable[[str], str] = lambda s: s, progress: Progress = lambda *a: None,
              run_id: str | None = None) -> str:
    """Record a new run from start to finish; returns its id (also when the run aborts, via RunAborted)."""
    run_id = run_id or new_run_id()
    prompts = [p.encode() for p in (dataset.prompts.agent_system, dataset.prompts.judge_system)] if dataset.prompts else []
    with run_writer(ledger, run_id):
        ledger.append(run_id, plan_events(dataset, settings, memory, answer_model, judge_model, prompt_hashes),
                      blobs=prompts)
        log.info("run started", run_id=run_id, benchmark=dataset.benchmark, subset=dataset.subset,
                 documents=dataset.document_count, questions=len(dataset.questions))
        execute(ledger, run_id, dataset, settings, memory, answer_model, judge_model, attempt=1,
                prepare=settings.prepare, redact=redact, progress=progress)
    return run_id
