"""A retrieval run: prepare the memory, recall for every question, score evidence recall. No models.

It is recorded like any run, with the same events, so `show`, `events` and `verify` read it too:
RunStarted (protocol "typed", agent and judge model "none", offline, `extra["mode"] =
"retrieval"` and the benchmark's evidence level), QuestionsPlanned with the evidence,
CorpusFingerprinted, MessagesIngested and ChunkExtracted batches, ScopeVerified, one
ContextRecalled per question (its packed context stored as a blob), ScopePurged, RunFinished.

The metrics returned are folded from the stored events (`projections.retrieval`), never from what
this process held in memory, so re-scoring a stored run gives the same numbers. A memory system
that fails to prepare or does not hold the corpus aborts the run (RunAborted); a recall that raises
is a Failed event for that question and the run goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import structlog
from benchledger.adapters.benchmarks.base import Dataset, Question
from benchledger.adapters.memory.protocol import MemorySystem, estimate_tokens
from benchledger.adapters.memory.registry import open_memory
from benchledger.clock import monotonic_ms, new_run_id
from benchledger.errors import RunAborted
from benchledger.ledger.events import (
    ContextRecalled, CorpusFingerprinted, Failed, PlannedQuestion, QuestionsPlanned, RecalledItem,
    RunConfig, RunFinished, RunStarted, cap_message,
)
from benchledger.orchestration.context import render_context
from benchledger.orchestration.leases import ScopeLeases
from benchledger.orchestration.prepare import prepare_scopes, purge_scopes, scope_names, verify_scopes
from benchledger.orchestration.provenance import collect_provenance
from benchledger.projections.retrieval import retrieval_metrics

__all__ = ["run_retrieval", "run_retrieval_named", "retrieval_start_events", "BATCH_SIZE"]

log = structlog.get_logger("benchledger.retrieval")
Progress = Callable[[str, int, int], None]
BATCH_SIZE = 500


def _planned(question: Question) -> PlannedQuestion:
    return PlannedQuestion(
        question_id=question.question_id, kind=question.kind, text=question.text,
        asking_user=question.asking_user, gold=question.gold, abstention=question.abstention,
        scope_key=question.scope_key, evidence=question.evidence,
        question_time=question.question_time.isoformat() if question.question_time else None,
        criteria=tuple(c.model_dump() for c in question.criteria),
    )


def _extra(selection: dict) -> dict[str, str]:
    extra = {"mode": "retrieval", "evidence_level": str(selection.get("evidence_level", "document"))}
    if selection.get("conversation_ids"):  # LoCoMo; `adapters.benchmarks.loaders` reads it back
        extra["conversation_ids"] = ",".join(selection["conversation_ids"])  # type: ignore[arg-type]
    return extra


def retrieval_start_events(dataset: Dataset, memory: MemorySystem, *, k: int) -> list:
    """RunStarted, QuestionsPlanned and CorpusFingerprinted for a retrieval run of `dataset`."""
    selection = dataset.selection
    config = RunConfig(
        benchmark=dataset.benchmark, subset=dataset.subset, corpus_path=dataset.source,
        memory=memory.name, memory_version=memory.version,
        memory_model=getattr(memory, "model", None),
        agent_model="none", judge_model="none", offline_models=True, protocol="typed", k=k,
        kinds=tuple(selection.get("categories") or ()),
        question_limit=selection.get("question_limit"),
        extra=_extra(selection),
    )
    plan = QuestionsPlanned(
        questions=tuple(_planned(q) for q in dataset.questions),
        available=int(selection.get("questions_available", len(dataset.questions))),
        kinds_available=tuple(sorted({q.kind for q in dataset.questions})),
    )
    corpus = CorpusFingerprinted(
        fingerprint=dataset.fingerprint, adapter_version=dataset.adapter_version,
        scopes=scope_names(dataset),
        expected_documents={key: len(docs) for key, docs in dataset.scopes.items()},
        documents_available=int(selection.get("documents_available", dataset.document_count)),
    )
    return [RunStarted(config=config, provenance=collect_provenance()), plan, corpus]


def _abort(ledger, run_id: str, stage: str, message: str, error_class: str) -> None:
    message = cap_message(message)
    ledger.append(run_id, [
        Failed(stage=stage, error_class=error_class, message=message),
        RunFinished(status="aborted", reason=f"{stage}: {message}"),
    ])
    raise RunAborted(f"run {run_id} aborted at {stage}: {message}", run_id=run_id)


def _recall(ledger, run_id: str, question: Question, scope: str, memory: MemorySystem, k: int) -> None:
    started = monotonic_ms()
    try:
        candidates = memory.recall(scope, question.text, asking_user=question.asking_user, k=k,
                                   token_budget=None, question_time=question.question_time)
    except Exception as err:  # an operational failure of the memory system: recorded, never a miss
        log.warning("recall failed", question=question.question_id, error=type(err).__name__)
        ledger.append(run_id, [Failed(stage="recall", question_id=question.question_id,
                                      error_class=type(err).__name__,
                                      message=cap_message(str(err) or type(err).__name__))])
        return
    latency = monotonic_ms() - started
    context = render_context(candidates)
    ledger.append(run_id, [ContextRecalled(
        question_id=question.question_id, query=question.text, asking_user=question.asking_user,
        k=k, items=tuple(RecalledItem(doc_id=c.document.doc_id, score=c.score, rank=c.rank,
                                      author=c.document.author, channel=c.document.channel)
                         for c in candidates),
        context_hash=ledger.put_blob(context.encode()), context_tokens=estimate_tokens(context),
        latency_ms=latency,
    )])


def run_retrieval(ledger, dataset: Dataset, memory: MemorySystem, *, k: int,
                  progress: Progress | None = None, keep: bool = False,
                  leases: ScopeLeases | None = None) -> tuple[str, dict]:
    """Record a retrieval run of `dataset` on `memory`; returns (run_id, metrics folded from it).

    With `leases`, the run holds its scopes like a full run does, so a concurrent run of the same
    corpus on the same store is never purged from under it.
    """
    if k < 1:
        raise ValueError("k must be at least 1")
    progress = progress or (lambda stage, done, total: None)
    run_id = new_run_id()
    ledger.append(run_id, retrieval_start_events(dataset, memory, k=k))
    log.info("retrieval run started", run_id=run_id, benchmark=dataset.benchmark,
             documents=dataset.document_count, questions=len(dataset.questions))
    for scope in scope_names(dataset).values() if leases is not None else ():
        leases.acquire(scope, run_id)
    try:
        prepare_scopes(ledger, run_id, dataset, memory, preparation=1, batch_size=BATCH_SIZE,
                       progress=progress)
    except Exception as err:  # the memory failed while preparing: record it, never score
        _abort(ledger, run_id, "prepare", str(err) or type(err).__name__, type(err).__name__)
    if problems := verify_scopes(ledger, run_id, dataset, memory, check=1):
        _abort(ledger, run_id, "verify", "; ".join(problems), "CorpusIncomplete")
    names = scope_names(dataset)
    for done, question in enumerate(dataset.questions, start=1):
        _recall(ledger, run_id, question, names[question.scope_key], memory, k)
        progress("recall", done, len(dataset.questions))
    if not keep:
        purge_scopes(ledger, run_id, dataset, memory, attempt=1, redact=lambda text: text, leases=leases)
    elif leases is not None:
        for scope in scope_names(dataset).values():
            leases.release(scope, run_id)
    ledger.append(run_id, [RunFinished(status="completed")])
    return run_id, retrieval_metrics(ledger.events(run_id))


def run_retrieval_named(ledger, dataset: Dataset, *, memory: str, memory_store: Path,
                        memory_options: dict[str, str] | None = None, k: int,
                        progress: Progress | None = None, keep: bool = False) -> tuple[str, dict]:
    """Open the memory system registered as `memory` on `memory_store`, run, close it."""
    memory_store.parent.mkdir(parents=True, exist_ok=True)
    system = open_memory(memory, memory_store, **(memory_options or {}))
    leases = ScopeLeases(memory_store)
    try:
        return run_retrieval(ledger, dataset, system, k=k, progress=progress, keep=keep, leases=leases)
    finally:
        leases.close()
        system.close()
