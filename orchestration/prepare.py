"""The write path: fingerprint, ingest, build, verify; and the purge at the end.

Ingest and build are batched (one event and one transaction per batch). Preparation is
idempotent (memory systems ingest by doc_id) and always verified: scoring is refused unless the
memory system itself reports at least the selected documents and nothing pending.

Scopes are prepared concurrently, up to the run's `--concurrency`, when the memory system says it
can take concurrent scopes (`concurrent_scopes`: mem0 and Graphiti, whose model calls run outside
their store's lock); otherwise one at a time. Every scope is ingested first (for the systems that
take concurrent scopes, the evaluation store's quick insert), then every scope is built. A scope
is one unit: its documents are ingested, and later built, in order by one worker at a time, so its
events (batch numbers, first and last doc ids, chunk ids) are the same whatever else runs, and at
concurrency 1 the events come in the order they always did. The workers hand their events to the
calling thread, which alone appends them as each batch finishes: the events of different scopes
interleave in the ledger in the order they finished. Nothing reads that interleaving: the run's
fold counts ingest and build per scope, resume asks the memory itself what each scope holds
(ingest is idempotent, build takes only what is pending), and verify re-hashes whatever order was
stored. A scope that fails records a `Failed` (stage prepare, naming the scope) and stops; the
others go on and keep their work; the run then aborts before scoring (`ScopesFailed`), to be
resumed.

The memory's own model calls are attributed to their scope through the recording proxy's route for
it (`orchestration.memory_calls`) and appended with that scope's batch. Progress reports the
documents ingested and built over the whole run, the scopes finished and the memory's model calls
so far, also while a long batch is still running.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import structlog

from benchledger.adapters.benchmarks.base import Dataset, Document
from benchledger.adapters.memory.protocol import MemorySystem
from benchledger.adapters.memory.recording_proxy import RecordingProxy
from benchledger.orchestration.memory_calls import drained_events, in_stage, model_calls_of
from benchledger.callbacks import Progress, Redact, no_progress, no_redaction
from benchledger.errors import BenchledgerError
from benchledger.ledger.events import (
    ChunkExtracted, CorpusFingerprinted, Event, Failed, MessagesIngested, ScopePurged, ScopeVerified,
)
from benchledger.ledger.recorder import EventWriter
from benchledger.orchestration.leases import ScopeLeases
from benchledger.redaction import safe_message

__all__ = ["scope_names", "dataset_fingerprint", "fingerprint_event", "prepare_scopes", "verify_scopes", "purge_scopes",
           "ScopesFailed", "scope_workers"]

log = structlog.get_logger("benchledger.prepare")

_last_fingerprint: tuple[Dataset, str] | None = None

_TICK_S = 1.0
"""How often progress is reported while a batch is still running (the memory's calls go on)."""


class ScopesFailed(BenchledgerError):
    """Some scopes failed to prepare; each failure is already recorded as a `Failed` naming its scope."""


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


def scope_workers(memory: MemorySystem, concurrency: int) -> int:
    """How many scopes are prepared at once: the run's concurrency where the memory can take it, else 1."""
    return max(1, concurrency) if getattr(memory, "concurrent_scopes", False) else 1


def build_batch(memory: MemorySystem, batch_size: int) -> int:
    """Documents per build batch: the run's batch size, or the memory's preferred one if smaller."""
    preferred = getattr(memory, "build_batch", None)
    return min(batch_size, preferred) if isinstance(preferred, int) and preferred > 0 else batch_size


@dataclass
class _Tally:
    """What progress shows: documents ingested and built over the run, scopes finished."""

    total: int
    scopes: int
    ingested: int = 0
    built: int = 0
    finished: int = 0


_Emitted = tuple[str, Sequence[Event], int, int, bool]
"""(scope_key, events, documents ingested, documents built, this scope's phase ended)."""


def prepare_scopes(writer: EventWriter, run_id: str, dataset: Dataset, memory: MemorySystem, *, preparation: int,
                   batch_size: int, concurrency: int = 1, attempt: int = 1, redact: Redact = no_redaction,
                   progress: Progress = no_progress) -> None:
    """Ingest every scope, then build every scope, in batches (one event per batch), scopes concurrently
    where the memory allows (module docstring). Raises `ScopesFailed`, after the other scopes
    finished, if any failed."""
    names = scope_names(dataset)
    calls = model_calls_of(memory)
    tally = _Tally(total=dataset.document_count, scopes=len(dataset.scopes))
    finished: queue.Queue[_Emitted] = queue.Queue()
    stop = threading.Event()
    unit = _ScopeUnit(memory, calls, preparation=preparation, batch_size=batch_size,
                      build_size=build_batch(memory, batch_size), attempt=attempt, redact=redact,
                      emit=lambda *item: finished.put(item), stop=stop)
    failed: list[str] = []

    def run_phase(stage: str, work: Callable[[str], None], keys: list[str]) -> None:
        """Run `work` for each scope on the pool; append what the workers hand back as it comes."""
        def report() -> None:
            progress(stage, tally.ingested if stage == "ingest" else tally.built, tally.total,
                     scopes_done=tally.finished, scopes=tally.scopes,
                     memory_calls=calls.count if calls is not None else 0)

        futures = [pool.submit(work, key) for key in keys]
        open_scopes = len(futures)
        while open_scopes:
            try:
                key, events, ingested, built, ended = finished.get(timeout=_TICK_S)
            except queue.Empty:
                if any(f.done() and f.exception() for f in futures):  # a worker died outside its own guard
                    break
                report()  # a long batch is running: its calls go on
                continue
            if events:
                writer.append(run_id, list(events))
            tally.ingested += ingested
            tally.built += built
            if any(isinstance(e, Failed) for e in events):
                failed.append(key)
                tally.finished += 1
            elif ended and stage == "build":
                tally.finished += 1
            open_scopes -= ended
            report()
        for future in futures:
            future.result()  # re-raise what escaped a worker

    pool = ThreadPoolExecutor(max_workers=scope_workers(memory, concurrency), thread_name_prefix="benchledger-prepare")
    try:
        run_phase("ingest", lambda key: unit.ingest(key, names[key], dataset.scopes[key]), list(dataset.scopes))
        run_phase("build", lambda key: unit.build(key, names[key]), [k for k in dataset.scopes if k not in failed])
    except BaseException:
        stop.set()  # workers stop after their batch in flight; what they finish then is not appended
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    if calls is not None and (rest := drained_events(calls)):  # calls no stage claimed
        writer.append(run_id, rest)
    if failed:
        raise ScopesFailed(f"{len(failed)} of {len(names)} scope(s) failed to prepare: {', '.join(failed[:5])} "
                           "(see `benchledger failures`; resume the run)")


@dataclass
class _ScopeUnit:
    """Ingests or builds one scope at a time on a worker, handing each batch's events on."""

    memory: MemorySystem
    calls: RecordingProxy | None
    preparation: int
    batch_size: int
    build_size: int
    attempt: int
    redact: Redact
    emit: Callable[[str, Sequence[Event], int, int, bool], None]
    """emit(scope_key, events, documents ingested, documents built, this scope's phase ended)."""
    stop: threading.Event

    def ingest(self, key: str, scope: str, docs: Sequence[Document]) -> None:
        self._guarded(key, lambda: self._ingest(key, scope, docs))

    def build(self, key: str, scope: str) -> None:
        self._guarded(key, lambda: self._build(key, scope))

    def _guarded(self, key: str, work: Callable[[], None]) -> None:
        try:
            work()
        except Exception as err:  # an operational failure of the memory system in this scope: recorded
            log.warning("scope failed to prepare", scope_key=key, error=type(err).__name__)
            self.emit(key, [*drained_events(self.calls, key), Failed(
                stage="prepare", scope_key=key, error_class=type(err).__name__,
                message=safe_message(self.redact(str(err))), attempt=self.attempt)], 0, 0, True)
            return
        self.emit(key, drained_events(self.calls, key), 0, 0, True)

    def _ingest(self, key: str, scope: str, docs: Sequence[Document]) -> None:
        for batch, start in enumerate(range(0, len(docs), self.batch_size)):
            if self.stop.is_set():
                return
            chunk = docs[start:start + self.batch_size]
            with in_stage(self.calls, "ingest", scope=scope, scope_key=key):
                new = self.memory.ingest(scope, chunk)
            self.emit(key, [MessagesIngested(
                scope_key=key, batch=batch, first_doc_id=chunk[0].doc_id, last_doc_id=chunk[-1].doc_id,
                count=len(chunk), new=new, preparation=self.preparation), *drained_events(self.calls, key)],
                len(chunk), 0, False)

    def _build(self, key: str, scope: str) -> None:
        with in_stage(self.calls, "build", scope=scope, scope_key=key):
            for batch, chunk_ids in enumerate(self.memory.build(scope, self.build_size)):
                self.emit(key, [ChunkExtracted(scope_key=key, batch=batch, chunk_ids=tuple(chunk_ids),
                                               preparation=self.preparation), *drained_events(self.calls, key)],
                          0, len(chunk_ids), False)
                if self.stop.is_set():
                    return


def verify_scopes(writer: EventWriter, run_id: str, dataset: Dataset, memory: MemorySystem, *, check: int) -> list[str]:
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
    writer.append(run_id, events)
    return problems


def purge_scopes(writer: EventWriter, run_id: str, dataset: Dataset, memory: MemorySystem, *, attempt: int,
                 redact: Redact, leases: ScopeLeases | None = None, preparation: int = 1) -> None:
    """Release this run's leases (`orchestration.leases`) and purge each scope no other live run holds."""
    names = scope_names(dataset)
    for key in dataset.scopes:
        others = leases.release(names[key], run_id) if leases is not None else []
        if others:
            log.info("scope kept for other runs", scope=names[key], runs=others)
            writer.append(run_id, [ScopePurged(scope_key=key, scope=names[key], documents_removed=0,
                                               kept_for_runs=tuple(others), preparation=preparation)])
            continue
        try:
            removed = memory.purge(names[key])
        except Exception as err:  # an operational failure of the memory system, recorded, never raised
            log.warning("purge failed", scope=names[key], error=type(err).__name__)
            writer.append(run_id, [Failed(stage="purge", error_class=type(err).__name__, scope_key=key,
                                          message=safe_message(redact(str(err))), attempt=attempt)])
            continue
        writer.append(run_id, [ScopePurged(scope_key=key, scope=names[key], documents_removed=removed,
                                           preparation=preparation)])
