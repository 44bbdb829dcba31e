"""Asking the questions: recall as the asking user, answer from that context only, judge against gold.

One `QuestionAsker` serves one attempt of a run (a run, a resume, a rejudge). Recall runs in the
calling thread (memory systems hold one SQLite connection); answer and judge calls run in a
bounded thread pool the asker owns, with its in-flight calls. Finished stages go to the ledger in
group commits (`GroupCommit`): whatever finished since the last append goes in one transaction
once `GROUP_COMMIT_EVENTS` stages or `GROUP_COMMIT_SECONDS` have gathered, and at the end (a
commit is an fsync; one per stage made the disk the bottleneck of a run). A crash loses only
stages in flight or finished since the last commit; resume redoes them, and the model calls among
them are answered by the response cache.

What to do for each question is "planned minus recorded": stages already on the ledger are
skipped, so resume uses the same code. A stage that raises becomes a Failed event for that
question only, and the run goes on.

Each answer or judge call runs in a model-call scope (`adapters.models.response_cache.model_calls`)
served only from the run's own recorded responses (and those of the run its RunStarted names with
`--cache-from`); the response the endpoint gave the call is recorded with the event that used it
(the event names its request digest, and the append carries the `CacheEntry`), never matched to
an event afterwards by its text. In retrieval mode there is no answer or judge model: a
question is done once its recall is recorded.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

import structlog
from pydantic import TypeAdapter

from benchledger.adapters.benchmarks.base import Dataset, Document, Prompts
from benchledger.adapters.memory.protocol import Candidate, MemorySystem, estimate_tokens
from benchledger.adapters.models.base import Answer, AnswerModel, JudgeModel, Verdict
from benchledger.adapters.models.response_cache import RecordedResponse, model_calls
from benchledger.clock import monotonic_ms
from benchledger.ledger.events import (
    Stage,
    ContextRecalled, Event, Failed, Judged, QuestionAnswered, RecalledItem, cap_message,
)
from benchledger.ledger.recorder import CacheEntry, Recorder
from benchledger.callbacks import Progress, Redact
from benchledger.orchestration.context import hold_to_budget, render_context
from benchledger.orchestration.memory_calls import drained_events, in_stage, model_calls_of
from benchledger.orchestration.recalled_fields import changed_fields
from benchledger.orchestration.prepare import scope_names
from benchledger.projections.state import QuestionState, RunState
from benchledger.redaction import safe_message
from benchledger.values import Question

__all__ = [
    "QuestionJob", "QuestionAsker", "GroupCommit", "UnknownDocument", "GROUP_COMMIT_EVENTS", "GROUP_COMMIT_SECONDS",
]

log = structlog.get_logger("benchledger.questions")

GROUP_COMMIT_EVENTS = 64
GROUP_COMMIT_SECONDS = 0.2
"""Finished stages wait at most this many stages or seconds for their ledger append."""


@dataclass
class QuestionJob:
    """Everything one attempt of a run needs to ask its questions."""

    ledger: Recorder
    run_id: str
    dataset: Dataset
    memory: MemorySystem | None
    """None for a rejudge (it never recalls)."""
    answer_model: AnswerModel | None
    """None for a retrieval run (recall only) and for a rejudge (it never answers)."""
    judge_model: JudgeModel | None
    """None for a retrieval run."""
    scorer_id: str | None
    k: int
    token_budget: int | None
    concurrency: int
    attempt: int
    redact: Redact
    progress: Progress
    judge_only: bool = False
    """Rejudge: judge recorded answers only; never recall or answer."""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class GroupCommit:
    """Finished stages waiting for the next ledger append, in the order they finished.

    A verdict is appended only once the answer it judged is known to be the recorded one: until its
    answer's append returns it waits here, and when another writer recorded a different answer for
    the question (this process lost the race), `on_superseded(question_id, recorded)` is called
    instead and the verdict is dropped, so a verdict is always about the recorded answer.
    """

    def __init__(self, ledger: Recorder, run_id: str, *,
                 on_superseded: Callable[[str, QuestionAnswered], None]) -> None:
        self.ledger, self.run_id = ledger, run_id
        self.events: list[Event] = []
        self.blobs: list[bytes] = []
        self.cache: list[CacheEntry] = []
        self.recorded: dict[str, QuestionAnswered] = {}
        """question_id -> the answer the ledger holds for it."""
        self.waiting: list[tuple[Judged, bytes | None, tuple[CacheEntry, ...]]] = []
        """Verdicts whose answer is not committed yet."""
        self.on_superseded = on_superseded
        self.superseded = 0
        """Verdicts dropped because another writer's answer is the recorded one."""
        self.last = time.monotonic()

    def add(self, event: Event, blob: bytes | None = None, cache: tuple[CacheEntry, ...] = ()) -> None:
        """Queue an event (with the body it names, and the cached response it records)."""
        if isinstance(event, Judged) and event.answer_hash:
            recorded = self.recorded.get(event.question_id)
            if recorded is None:
                self.waiting.append((event, blob, cache))
                return
            if recorded.raw_hash != event.answer_hash:
                self.superseded += 1
                self.on_superseded(event.question_id, recorded)
                return
        self.events.append(event)
        if blob:
            self.blobs.append(blob)
        self.cache.extend(cache)
        self.flush(when_due=True)

    def add_blob(self, blob: bytes) -> None:
        """A body the next append stores (named by an event already added)."""
        self.blobs.append(blob)

    def flush(self, *, when_due: bool = False) -> None:
        """Append what is waiting; with `when_due`, only once enough waits or enough time passed."""
        if not self.events:
            return
        if when_due and len(self.events) < GROUP_COMMIT_EVENTS and \
                time.monotonic() - self.last < GROUP_COMMIT_SECONDS:
            return
        events, blobs, cache, self.events, self.blobs, self.cache = self.events, self.blobs, self.cache, [], [], []
        written = {stored.idempotency_key
                   for stored in self.ledger.writer.append(self.run_id, events, blobs=blobs, cache=cache)}
        self.last = time.monotonic()
        self._learn_answers([e for e in events if isinstance(e, QuestionAnswered)], written)
        waiting, self.waiting = self.waiting, []
        for verdict, blob, entries in waiting:
            self.add(verdict, blob, entries)

    def _learn_answers(self, answers: list[QuestionAnswered], written: set[str | None]) -> None:
        """Remember which answer the ledger now holds for each question just appended."""
        keyed = [(answer, answer.idempotency_key()) for answer in answers]  # each key derived once
        lost = [answer for answer, key in keyed if key not in written]
        self.recorded.update({answer.question_id: answer for answer, key in keyed if key in written})
        if not lost:
            return
        held = {stored.event.question_id: stored.event
                for stored in self.ledger.reader.events(self.run_id, types=["QuestionAnswered"])
                if isinstance(stored.event, QuestionAnswered)}
        for answer in lost:
            log.warning("another writer recorded this question's answer first", question=answer.question_id)
            self.recorded[answer.question_id] = held[answer.question_id]

    def seconds_until_due(self) -> float | None:
        """How long the waiting stages may still wait (None when nothing waits)."""
        if not self.events:
            return None
        return max(0.0, GROUP_COMMIT_SECONDS - (time.monotonic() - self.last))


class UnknownDocument(Exception):
    """A memory system returned a candidate naming a document its scope never ingested."""


class QuestionAsker:
    """Runs every stage not yet recorded for every planned question of one run attempt."""

    def __init__(self, job: QuestionJob) -> None:
        self.job = job
        self.prompts: Prompts | None = job.dataset.prompts
        self.questions = {q.question_id: q for q in job.dataset.questions}
        self.scopes = scope_names(job.dataset) if job.memory is not None else {}
        self.documents = {key: {doc.doc_id: doc for doc in docs} for key, docs in job.dataset.scopes.items()}
        self.pending = GroupCommit(job.ledger, job.run_id, on_superseded=self._judge_recorded_instead)
        self.inflight: dict[Future[Any], tuple[Stage, str]] = {}
        self.judging: dict[str, str] = {}
        """question_id -> raw_hash of the answer its judge call is judging."""
        self.done: set[str] = set()
        self.total = 0
        self._pool: ThreadPoolExecutor | None = None
        self.serve_from: tuple[str, ...] = (job.run_id,)
        """Runs whose recorded responses may answer this attempt's model calls."""

    def run(self, state: RunState) -> None:
        """Ask every planned question the ledger has not finished; flush what finished, even on error."""
        planned = [qid for qid in state.questions if qid in self.questions]
        self.total = len(planned)
        cache_from = state.started.config.settings.cache_from if state.started is not None else None
        self.serve_from = (self.job.run_id, cache_from) if cache_from else (self.job.run_id,)
        self.pending.recorded.update({qid: q.answered for qid, q in state.questions.items() if q.answered})
        self._count_recorded(state, planned)
        self._pool = ThreadPoolExecutor(max_workers=self.job.concurrency, thread_name_prefix="benchledger-model")
        try:
            for qid in planned:
                self._drain(block_until=self.job.concurrency * 2)
                self._start(state.questions[qid], self.questions[qid])
            while True:  # a verdict waiting for its answer's commit, or a re-judge, may still be due
                self._drain(block_until=0)
                self.pending.flush()
                if not self.inflight and not self.pending.waiting and not self.pending.events:
                    break
        except BaseException:
            with suppress(Exception):  # keep what finished; the original error is the one to raise
                self.pending.flush()
            raise
        finally:
            self._pool.shutdown(wait=True, cancel_futures=True)

    # -- one question -------------------------------------------------------------------------

    def _start(self, recorded: QuestionState, question: Question) -> None:
        """Take a question from where the ledger left it: judge, answer, or recall it."""
        job, qid = self.job, question.question_id
        retrieval = job.answer_model is None and not job.judge_only
        if retrieval:
            if recorded.recalled is None:
                self._recall(question)
            self._finished(qid)
            return
        if job.scorer_id in recorded.judged or (job.judge_only and recorded.answered is None):
            self._finished(qid)
            return
        if recorded.answered is not None:
            raw = job.ledger.reader.get_blob(recorded.answered.raw_hash)
            self._submit_judge(question, _answer_from_event(recorded.answered, raw))
        elif recorded.recalled is not None:
            self._submit_answer(question, self._candidates_from_event(question, recorded.recalled))
        elif (candidates := self._recall(question)) is not None:
            self._submit_answer(question, candidates)
        else:
            self._finished(qid)

    def _recall(self, question: Question) -> list[Candidate] | None:
        """Recall as the asking user and record it; None when the memory system failed.

        The reply is held to k and the token budget first (`context.hold_to_budget`: the protocol's
        prefix, what was cut counted on the event). A candidate must name a document the scope
        ingested; the text the memory returned is kept as returned (a blob of the candidates kept,
        which resume answers from) and each item says whether that text occurs in the ingested document.
        """
        job = self.job
        assert job.memory is not None
        started = monotonic_ms()
        calls = model_calls_of(job.memory)
        try:
            with in_stage(calls, "recall", scope=self.scopes[question.scope_key], question_id=question.question_id):
                candidates = job.memory.recall(
                    self.scopes[question.scope_key], question.text, asking_user=question.asking_user, k=job.k,
                    token_budget=job.token_budget, question_time=question.question_time)
        except Exception as err:  # the memory system failed for this question: Failed, never a miss
            self.pending.add(self._failed("recall", question.question_id, err))
            return None
        finally:
            for call in drained_events(calls):
                self.pending.add(call)
        latency = monotonic_ms() - started
        held = hold_to_budget(candidates, k=job.k, token_budget=job.token_budget,
                              keep_newest=not getattr(job.memory, "ranks_by_query", True))
        candidates = held.candidates
        ingested = self.documents[question.scope_key]
        if unknown := [doc_id for c in candidates for doc_id in c.sources if doc_id not in ingested]:
            self.pending.add(self._failed("recall", question.question_id, UnknownDocument(
                f"the memory returned {len(unknown)} candidate source(s) naming documents the scope never "
                f"ingested ({', '.join(unknown[:3])})")))
            return None
        context = render_context(candidates).encode()
        returned = _candidates_json(candidates)
        items = tuple(_recalled_item(c, ingested) for c in candidates)
        self.pending.add_blob(returned)
        self.pending.add(ContextRecalled(
            question_id=question.question_id, query=question.text, asking_user=question.asking_user,
            k=job.k, token_budget=job.token_budget, items=items, context_hash=_sha(context),
            candidates_hash=_sha(returned), context_tokens=estimate_tokens(context.decode()), latency_ms=latency,
            truncated_candidates=held.truncated_candidates, truncated_tokens=held.truncated_tokens,
        ), context)
        return candidates

    def _candidates_from_event(self, question: Question, event: ContextRecalled) -> list[Candidate]:
        """The candidates of a recorded recall, exactly as the memory returned them (used on resume).

        Rows recorded before the returned candidates were kept fall back to the corpus's documents.
        """
        if event.candidates_hash:
            returned = json.loads(self.job.ledger.reader.get_blob(event.candidates_hash))
            return [Candidate.model_validate(candidate) for candidate in returned]
        docs = self.documents[question.scope_key]
        return [Candidate.of_document(i.rank, i.score, docs[i.doc_id]) for i in event.items if i.doc_id in docs]

    # -- the pool -----------------------------------------------------------------------------

    def _submit_answer(self, question: Question, candidates: list[Candidate]) -> None:
        assert self._pool is not None and self.job.answer_model is not None
        future = self._pool.submit(self._scoped, self.job.answer_model.answer, question, candidates, self.prompts)
        self.inflight[future] = ("answer", question.question_id)

    def _submit_judge(self, question: Question, answer: Answer) -> None:
        assert self._pool is not None and self.job.judge_model is not None
        self.judging[question.question_id] = _sha(answer.raw.encode())
        future = self._pool.submit(self._scoped, self.job.judge_model.judge, question, answer, self.prompts)
        self.inflight[future] = ("judge", question.question_id)

    def _scoped(self, call: Callable[..., Any], *args: Any) -> tuple[Any, list[RecordedResponse]]:
        """`call(*args)` in a model-call scope of this run (in the pool's worker); its result and the
        responses its endpoint gave."""
        with model_calls(self.serve_from) as calls:
            return call(*args), calls.responses

    def _judge_recorded_instead(self, question_id: str, recorded: QuestionAnswered) -> None:
        """Another writer recorded a different answer: judge that one, whose verdict is the one that counts."""
        raw = self.job.ledger.reader.get_blob(recorded.raw_hash)
        self._submit_judge(self.questions[question_id], _answer_from_event(recorded, raw))

    def _settle(self, future: Future[Any]) -> None:
        stage, qid = self.inflight.pop(future)
        try:
            result, responses = future.result()
        except Exception as err:  # operational failure of a model call: Failed, never wrong
            self.pending.add(self._failed(stage, qid, err, self.job.scorer_id if stage == "judge" else None))
            self._finished(qid)
            return
        if isinstance(result, Answer):
            event, raw = _answered_event(result, qid)
            self.pending.add(*_recording(event, raw, responses))
            self._submit_judge(self.questions[qid], result)
            return
        raw = result.raw.encode()
        assert self.job.scorer_id is not None
        self.pending.add(*_recording(Judged(
            question_id=qid, scorer_id=self.job.scorer_id, verdict=result.verdict,
            reason=cap_message(result.reason, 2000), model=result.model,
            raw_hash=_sha(raw) if raw else "", usage=result.usage,
            cache_hit=result.cache_hit, latency_ms=result.latency_ms, criteria=result.criteria,
            score=result.score, judge_votes=result.judge_votes, answer_hash=self.judging.pop(qid, "")), raw,
            responses))
        self._finished(qid)

    def _drain(self, *, block_until: int) -> None:
        """Settle what has finished; wait until at most `block_until` calls are in flight."""
        for future in [f for f in self.inflight if f.done()]:
            self._settle(future)
        while len(self.inflight) > block_until:
            self.pending.flush(when_due=True)
            # Never let finished stages wait on a slow model call for longer than a group commit.
            finished, _ = wait(list(self.inflight), timeout=self.pending.seconds_until_due(),
                               return_when=FIRST_COMPLETED)
            if not finished:
                self.pending.flush()
            for future in finished:
                self._settle(future)

    # -- bookkeeping --------------------------------------------------------------------------

    def _count_recorded(self, state: RunState, planned: list[str]) -> None:
        """Questions the ledger already finished count as done from the start, so a resumed run's
        progress goes on from where it stood (`questions: 31/40`), never from 1 again."""
        job = self.job
        retrieval = job.answer_model is None and not job.judge_only
        for qid in planned:
            recorded = state.questions[qid]
            if (recorded.recalled is not None) if retrieval else \
                    (job.scorer_id in recorded.judged or (job.judge_only and recorded.answered is None)):
                self.done.add(qid)
        if self.done:
            self.job.progress("recall" if retrieval else "questions", len(self.done), self.total)

    def _finished(self, question_id: str) -> None:
        if question_id in self.done:
            return
        self.done.add(question_id)
        stage = "recall" if self.job.answer_model is None and not self.job.judge_only else "questions"
        self.job.progress(stage, len(self.done), self.total)

    def _failed(self, stage: Stage, qid: str, err: BaseException, scorer: str | None = None) -> Failed:
        message = safe_message(self.job.redact(f"{err}" or type(err).__name__))
        log.warning("stage failed", stage=stage, question=qid, error=type(err).__name__, message=message)
        return Failed(stage=stage, question_id=qid, scorer_id=scorer, error_class=type(err).__name__,
                      message=message, attempt=self.job.attempt)


def _recalled_item(candidate: Candidate, ingested: dict[str, Document]) -> RecalledItem:
    """What the ledger keeps of one candidate. A document is checked against what was ingested, its
    text (`verbatim`) and its structure (`changed_fields`), and the item keeps the ingested author
    and channel; derived text is attributed to the documents it names and never expected to be
    verbatim."""
    if candidate.document is not None:
        doc = candidate.document
        original = ingested[doc.doc_id]
        return RecalledItem(doc_id=doc.doc_id, score=candidate.score, rank=candidate.rank, author=original.author,
                            channel=original.channel, verbatim=doc.text in original.text,
                            changed_fields=changed_fields(doc, original))
    named = [ingested[doc_id] for doc_id in candidate.sources]
    first = named[0] if named else None
    return RecalledItem(doc_id=first.doc_id if first else "", score=candidate.score, rank=candidate.rank,
                        author=first.author if first else None, channel=first.channel if first else None,
                        kind=candidate.kind, sources=candidate.sources,
                        source_channels=tuple(dict.fromkeys(doc.channel or "" for doc in named)))


_CANDIDATES = TypeAdapter(list[Candidate])


def _candidates_json(candidates: list[Candidate]) -> bytes:
    """The candidates exactly as the memory returned them, as the blob resume answers from (the JSON
    of their `model_dump(mode="json")`, written by pydantic's serializer in one call)."""
    return _CANDIDATES.dump_json(candidates)


def _recording(event: QuestionAnswered | Judged, raw: bytes,
               responses: list[RecordedResponse]) -> tuple[Event, bytes, tuple[CacheEntry, ...]]:
    """The event naming the request whose response it recorded, its body, and that cache entry.

    The response is the one the call got whose text is the event's raw output; a call whose event
    records something else (several judges' votes in one verdict) names no request and caches
    nothing, so a cached response is always the one its event's raw_hash pins."""
    matching = [r for r in responses if isinstance(r.response.get("text"), str)
                and _sha(r.response["text"].encode()) == event.raw_hash]
    if len(matching) != 1 or event.request_digest:
        return event, raw, ()
    (chosen,) = matching
    event = event.model_copy(update={"request_digest": chosen.request_digest})
    return event, raw, (CacheEntry(request_digest=chosen.request_digest, response=chosen.response,
                                   model=chosen.model, idempotency_key=event.idempotency_key()),)


def _answered_event(answer: Answer, qid: str) -> tuple[QuestionAnswered, bytes]:
    raw = answer.raw.encode()
    return QuestionAnswered(question_id=qid, answer=answer.answer, abstained=answer.abstained,
                            model=answer.model, raw_hash=_sha(raw), usage=answer.usage,
                            cache_hit=answer.cache_hit, latency_ms=answer.latency_ms), raw


def _answer_from_event(event: QuestionAnswered, raw: bytes) -> Answer:
    return Answer(answer=event.answer, abstained=event.abstained, raw=raw.decode(), model=event.model,
                  usage=event.usage, cache_hit=event.cache_hit, latency_ms=event.latency_ms)
