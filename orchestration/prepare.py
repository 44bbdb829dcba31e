"""The write path: fingerprint, ingest, build, verify; and the purge at the end.

Ingest and build are batched (one event and one transaction per batch). Preparation is
idempotent (memory systems ingest by doc_id) and always verified: scoring is refused unless the
memory system itself reports at least the selected documents and nothing pending.
"""

from __future__ import annotations

import structlog

from benchledger.adapters.benchmarks.base import Dataset
from benchledger.adapters.memory.protocol import MemorySystem
from benchledger.orchestration.memory_calls import drained_events, in_stage, model_calls_of
from benchledger.callbacks import Progress, Redact, no_progress
from benchledger.ledger.events import (
    ChunkExtracted, CorpusFingerprinted, Failed, MessagesIngested, ScopePurged, ScopeVerified,
)
from benchledger.ledger.recorder import Recorder
from benchledger.orchestration.leases import ScopeLeases
from benchledger.redaction import safe_message

__all__ = ["scope_names", "dataset_fingerprint", "fingerprint_event", "prepare_scopes", "verify_scopes", "purge_scopes"]

log = structlog.get_logger("benchledger.prepare")

_last_fingerprint: tuple[Dataset, str] | None = None


def dataset_fingerprint(dataset: Dataset) -> str:
    """`dataset.fingerprint`, remembered for the last dataset object asked about.

    The fingerprint hashes every document (~0.3 s at 30,000 messages) and a run needs it at
    every stage; a Dataset is frozen, so the same object always has the same fingerprint.
    """
    global _last_fingerprint
    last = _last_fingerprint
    if last is not None and last[0] is dataset:
        return last[1]
    fingerprint = dataset.fingerprint
    _last_fingerprint = (dataset, fingerprint)
    return fingerprint


def scope_names(dataset: Dataset) -> dict[str, str]:
    """scope_key -> the deterministic memory scope `benchmark:<name>:<subset>:<fingerprint>[:key]`."""
    base = f"benchmark:{dataset.benchmark}:{dataset.subset}:{dataset_fingerprint(dataset)}"
    keys = list(dataset.scopes)
    if keys == ["default"]:
        return {"default": base}
    return {key: f"{base}:{key}" for key in keys}


def fingerprint_event(dataset: Dataset) -> CorpusFingerprinted:
    return CorpusFingerprinted(
        fingerprint=dataset_fingerprint(dataset),
        adapter_version=dataset.adapter_version,
        scopes=scope_names(dataset),
        expected_documents={key: len(docs) for key, docs in dataset.scopes.items()},
        documents_available=dataset.release.documents_available,
    )


def prepare_scopes(ledger: Recorder, run_id: str, dataset: Dataset, memory: MemorySystem, *, preparation: int,
                   batch_size: int, progress: Progress = no_progress) -> None:
    """Ingest every scope in batches, then build it; one event per batch."""
    names = scope_names(dataset)
    total = dataset.document_count
    done = 0
    calls = model_calls_of(memory)
    for key, docs in dataset.scopes.items():
        scope = names[key]
        for batch, start in enumerate(range(0, len(docs), batch_size)):
            chunk = docs[start:start + batch_size]
            with in_stage(calls, "ingest", scope_key=key):
                new = memory.ingest(scope, chunk)
            ledger.append(run_id, [MessagesIngested(
                scope_key=key, batch=batch, first_doc_id=chunk[0].doc_id, last_doc_id=chunk[-1].doc_id,
                count=len(chunk), new=new, preparation=preparation), *drained_events(calls)])
            done += len(chunk)
            progress("ingest", done, total)
    built = 0
    for key in dataset.scopes:
        with in_stage(calls, "build", scope_key=key):
            batches = memory.build(names[key], batch_size)
            for batch, chunk_ids in enumerate(batches):
                ledger.append(run_id, [ChunkExtracted(scope_key=key, batch=batch, chunk_ids=tuple(chunk_ids),
                                                      preparation=preparation), *drained_events(calls)])
                built += len(chunk_ids)
                progress("build", built, total)
        if calls is not None and (rest := drained_events(calls)):
            ledger.append(run_id, rest)


def verify_scopes(ledger: Recorder, run_id: str, dataset: Dataset, memory: MemorySystem, *, check: int) -> list[str]:
    """Record the memory system's own state of each scope; return the problems found (empty = ready)."""
    problems: list[str] = []
    names = scope_names(dataset)
    events = []
    for key, docs in dataset.scopes.items():
        state = memory.state(names[key])
        ok = state.documents >= len(docs) and state.pending_chunks == 0
        if not ok:
            problems.append(
                f"scope {key}: memory holds {state.documents} of {len(docs)} documents, "
                f"{state.pending_chunks} chunks pending (prepare it: run without --no-prepare, or resume)"
            )
        events.append(ScopeVerified(scope_key=key, scope=names[key], documents=state.documents,
                                    pending_chunks=state.pending_chunks, expected_documents=len(docs),
                                    ok=ok, check=check))
    ledger.append(run_id, events)
    return problems


def purge_scopes(ledger: Recorder, run_id: str, dataset: Dataset, memory: MemorySystem, *, attempt: int,
                 redact: Redact, leases: ScopeLeases | None = None, preparation: int = 1) -> None:
    """Release this run's leases (`orchestration.leases`) and purge each scope no other live run holds."""
    names = scope_names(dataset)
    for key in dataset.scopes:
        others = leases.release(names[key], run_id) if leases is not None else []
        if others:
            log.info("scope kept for other runs", scope=names[key], runs=others)
            ledger.append(run_id, [ScopePurged(scope_key=key, scope=names[key], documents_removed=0,
                                               kept_for_runs=tuple(others), preparation=preparation)])
            continue
        try:
            removed = memory.purge(names[key])
        except Exception as err:  # an operational failure of the memory system, recorded, never raised
            log.warning("purge failed", scope=names[key], error=type(err).__name__)
            ledger.append(run_id, [Failed(stage="purge", error_class=type(err).__name__, scope_key=key,
                                          message=safe_message(redact(str(err))), attempt=attempt)])
            continue
        ledger.append(run_id, [ScopePurged(scope_key=key, scope=names[key], documents_removed=removed,
                                           preparation=preparation)])
