"""Asking the questions: recall as the asking user, answer from that context only, judge against gold.

Recall runs in the calling thread (memory systems hold one SQLite connection); answer and judge
calls run in a bounded thread pool. Finished stages are appended in group commits: whatever
finished since the last append goes in one transaction once `GROUP_COMMIT_EVENTS` stages or
`GROUP_COMMIT_SECONDS` have gathered, and at the end (a commit is an fsync, ~2.5 ms here; one
per stage made the disk the bottleneck of a run). A crash loses only stages in flight or finished since the last commit;
resume redoes them, and the model calls among them are answered by the response cache. A stage
that raises becomes a Failed event for that question only, and the run goes on. What to do for each question is "planned minus
recorded": stages already on the ledger are skipped, so resume uses the same code.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import suppress
from dataclasses import dataclass

import structlog
from benchledger.adapters.benchmarks.base import Dataset, Prompts, Question
from benchledger.adapters.memory.protocol import Candidate, MemorySystem, estimate_tokens
from benchledger.adapters.models.base import Answer, AnswerModel, JudgeModel
from benchledger.clock import monotonic_ms
from benchledger.ledger.events import ContextRecalled, Failed, Judged, QuestionAnswered, RecalledItem, cap_message
from benchledger.orchestration.context import render_context
from benchledger.orchestration.prepare import scope_names
from benchledger.projections.state import RunState

__all__ = ["QuestionJob", "ask_questions", "GROUP_COMMIT_EVENTS", "GROUP_COMMIT_SECONDS"]

log = structlog.get_logger("benchledger.questions")

GROUP_COMMIT_EVENTS = 64
GROUP_COMMIT_SECONDS = 0.2
"""Finished stages wait at most this many stages or seconds for their ledger append."""


@dataclass
class QuestionJob:
    """Everything the pipeline needs for one run (or one resume attempt)."""

    ledger: object
    run_id: str
    dataset: Dataset
    memory: MemorySystem
    answer_model: AnswerModel
    judge_model: JudgeModel
    scorer_id: str
    k: int
    token_budget: int | None
    concurrency: int
    attempt: int
    redact: Callable[[str], str]
    progress: Callable[[str, int, int], None]
    judge_only: bool = False
    """Rejudge: judge recorded answers only; never recall or answer."""


def _failed(job: QuestionJob, stage: str, qid: str, err: BaseException, scorer: str | None = None) -> Failed:
    message = cap_message(job.redact(f"{err}" or type(err).__name__))
    log.warning("stage failed", stage=stage, question=qid, error=type(err).__name__, message=message)
    return Failed(stage=stage, question_id=qid, scorer_id=scorer, error_class=type(err).__name__,
                  message=message, attempt=job.attempt)


def _recall(job: QuestionJob, question: Question, scope: str) -> tuple[list[Candidate], ContextRecalled, bytes]:
    started = monotonic_ms()
    candidates = job.memory.recall(scope, question.text, asking_user=question.asking_user, k=job.k,
                                   token_budget=job.token_budget, question_time=question.question_time)
    latency = monotonic_ms() - started
    context = render_context(candidates).encode()
    event = ContextRecalled(
        question_id=question.question_id, query=question.text, asking_user=question.asking_user,
        k=job.k, token_budget=job.token_budget,
        items=tuple(RecalledItem(doc_id=c.document.doc_id, score=c.score, rank=c.rank,
                                 author=c.document.author, channel=c.document.channel) for c in candidates),
        context_hash=_sha(context), context_tokens=estimate_tokens(context.decode()), latency_ms=latency)
    return candidates, event, context


def _sha(data: bytes) -> str:
    import hashlib
    return hashlib.sha256(data).hexdigest()


def _candidates_from_event(job: QuestionJob, question: Question, event: ContextRecalled) -> list[Candidate]:
    """Rebuild the recalled candidates of a recorded recall from the corpus (used on resume)."""
    docs = {d.doc_id: d for d in job.dataset.scopes[question.scope_key]}
    return [Candidate(rank=i.rank, score=i.score, document=docs[i.doc_id]) for i in event.items if i.doc_id in docs]


def _answered_event(answer: Answer, qid: str) -> tuple[QuestionAnswered, bytes]:
    raw = answer.raw.encode()
    return QuestionAnswered(question_id=qid, answer=answer.answer, abstained=answer.abstained,
                            model=answer.model, raw_hash=_sha(raw), usage=answer.usage,
                            cache_hit=answer.cache_hit, latency_ms=answer.latency_ms), raw


def _answer_from_event(event: QuestionAnswered, raw: bytes) -> Answer:
    return Answer(answer=event.answer, abstained=event.abstained, raw=raw.decode(), model=event.model,
                  usage=event.usage, cache_hit=event.cache_hit, latency_ms=event.latency_ms)


class _GroupCommit:
    """Finished stages waiting for the next ledger append, in the order they finished."""

    def __init__(self, job: QuestionJob) -> None:
        self.job, self.events, self.blobs = job, [], []
        self.last = time.monotonic()

    def add(self, event, blob: bytes | None = None) -> None:
        self.events.append(event)
        if blob:
            self.blobs.append(blob)
        self.flush(when_due=True)

    def flush(self, *, when_due: bool = False) -> None:
        """Append what is waiting; with `when_due`, only once enough waits or enough time passed."""
        if not self.events:
            return
        if when_due and len(self.events) < GROUP_COMMIT_EVENTS and \
                time.monotonic() - self.last < GROUP_COMMIT_SECONDS:
            return
        events, blobs, self.events, self.blobs = self.events, self.blobs, [], []
        self.job.ledger.append(self.job.run_id, events, blobs=blobs)
        self.last = time.monotonic()

    def seconds_until_due(self) -> float | None:
        """How long the waiting stages may still wait (None when nothing waits)."""
        if not self.events:
            return None
        return max(0.0, GROUP_COMMIT_SECONDS - (time.monotonic() - self.last))


def ask_questions(job: QuestionJob, state: RunState) -> None:
    """Run every stage not yet recorded for every planned question."""
    prompts: Prompts | None = job.dataset.prompts
    questions = {q.question_id: q for q in job.dataset.questions}
    planned = [qid for qid in state.questions if qid in questions]
    scopes = scope_names(job.dataset)
    total, done = len(planned), 0
    pool = ThreadPoolExecutor(max_workers=job.concurrency, thread_name_prefix="benchledger-model")
    inflight: dict[Future, tuple[str, str]] = {}
    pending = _GroupCommit(job)

    def submit_judge(question: Question, answer: Answer) -> None:
        inflight[pool.submit(job.judge_model.judge, question, answer, prompts)] = ("judge", question.question_id)

    def submit_answer(question: Question, candidates: list[Candidate]) -> None:
        inflight[pool.submit(job.answer_model.answer, question, candidates, prompts)] = ("answer", question.question_id)

    def settle(future: Future) -> None:
        nonlocal done
        stage, qid = inflight.pop(future)
        question = questions[qid]
        try:
            result = future.result()
        except Exception as err:  # operational failure of a model call: Failed, never wrong
            pending.add(_failed(job, stage, qid, err, job.scorer_id if stage == "judge" else None))
            done += 1
            job.progress("questions", done, total)
            return
        if stage == "answer":
            event, raw = _answered_event(result, qid)
            pending.add(event, raw)
            submit_judge(question, result)
            return
        raw = result.raw.encode()
        pending.add(Judged(
            question_id=qid, scorer_id=job.scorer_id, verdict=result.verdict,
            reason=cap_message(result.reason, 2000), model=result.model,
            raw_hash=_sha(raw) if raw else "", usage=result.usage,
            cache_hit=result.cache_hit, latency_ms=result.latency_ms,
            criteria=result.criteria), raw)
        done += 1
        job.progress("questions", done, total)

    def drain(block_until: int) -> None:
        for future in [f for f in inflight if f.done()]:
            settle(future)
        while len(inflight) > block_until:
            pending.flush(when_due=True)
            # Never let finished stages wait on a slow model call for longer than a group commit.
            finished, _ = wait(list(inflight), timeout=pending.seconds_until_due(),
                               return_when=FIRST_COMPLETED)
            if not finished:
                pending.flush()
            for future in finished:
                settle(future)

    try:
        for qid in planned:
            qstate, question = state.questions[qid], questions[qid]
            if job.scorer_id in qstate.judged:
                done += 1
                job.progress("questions", done, total)
                continue
            drain(job.concurrency * 2)
            if job.judge_only and qstate.answered is None:
                done += 1
                job.progress("questions", done, total)
                continue
            if qstate.answered is not None:
                raw = job.ledger.get_blob(qstate.answered.raw_hash)
                submit_judge(question, _answer_from_event(qstate.answered, raw))
                continue
            if qstate.recalled is not None:
                submit_answer(question, _candidates_from_event(job, question, qstate.recalled))
                continue
            try:
                candidates, event, context = _recall(job, question, scopes[question.scope_key])
            except Exception as err:  # the memory system failed for this question
                pending.add(_failed(job, "recall", qid, err))
                done += 1
                job.progress("questions", done, total)
                continue
            pending.add(event, context)
            submit_answer(question, candidates)
        drain(0)
        pending.flush()
    except BaseException:
        with suppress(Exception):  # keep what finished; the original error is the one to raise
            pending.flush()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
