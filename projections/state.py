"""The base fold: one pass over a run's events into a `RunState` the other projections read.

The first event recorded for a stage and item wins: a later one never replaces the run's start,
plan, corpus, a question's recall or answer, or a scorer's verdict (the store holds one row per
idempotency key, and `verify` says so; the fold does not rely on it). What a resume does again
under a new number (a re-preparation, a second scope check, a new finish) is a new item and
counts; every failure is kept, so the report can say both what is unresolved and what was retried.

Each event type names its handler in its declaration (`@declare(fold=...)`, `ledger.events`);
`FOLD_HANDLERS` holds them by that name, and the module refuses to load while a declared name has
no handler here, so no event type reaches the fold unhandled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable, Iterable
from typing import Any

from benchledger.collector import building_long_lived
from benchledger.errors import BadInput
from benchledger.ledger.events import (
    DECLARATIONS,
    AuditContinued, AuditStarted, PlantFailed, PlantJudged, ChunkExtracted, ContextRecalled, CorpusFingerprinted, Failed, Judged, MessagesIngested,
    Endpoint, MemoryIdentity, QuestionAnswered, QuestionsPlanned, RunFinished, RunResumed, RunStarted,
    EndpointPaced, MemoryModelCalled, RunForecast, ScopePurged, ScopeVerified, ScorerContinued, ScorerStarted,
)
from benchledger.values import Question, is_offline_model
from benchledger.ledger.events.checks import SourceChecked, SpotChecked

__all__ = ["FOLD_VERSION", "FOLD_HANDLERS", "QuestionState", "RunState", "Segment", "fold_run", "QUESTION_STAGES"]

FOLD_VERSION = 2
QUESTION_STAGES = ("recall", "answer", "judge")


@dataclass
class Segment:
    """One part of a run that asked models or a memory: its start, a resume, a scorer, a continuation."""

    index: int
    kind: str
    """start, resume, scorer or continue."""
    label: str
    """How a report names it ("start", "resume 2", "scorer s2", "scorer s2, attempt 3")."""
    endpoint: Endpoint | None
    """Where its model calls went; None when not recorded (rows before endpoints were)."""
    offline: bool
    """True when it asked no endpoint (offline models only, or a scorer that asks no model)."""
    model_free: bool = False
    """True for a scorer that asks no model at all (a deterministic official rule)."""
    agent_model: str | None = None
    judge_model: str | None = None
    memory: MemoryIdentity | None = None
    scorer_id: str | None = None
    reported_models: set[str] = field(default_factory=set)
    """The models the endpoint reported for the answers and verdicts this segment produced."""
    position: int = 0
    """The run position of the event that opened it (RunStarted, RunResumed, ScorerStarted, ...)."""
    recorded_at: str = ""
    """When that event was appended (UTC ISO-8601, as the store recorded it)."""


@dataclass
class QuestionState:
    planned: Question
    """The question as the run planned it (its kind, text, gold, evidence), from QuestionsPlanned."""
    recalled: ContextRecalled | None = None
    """Its ContextRecalled: what the memory returned for it; None until recalled."""
    answered: QuestionAnswered | None = None
    """Its QuestionAnswered (the first per key: nothing later replaces it); None until answered."""
    judged: dict[str, Judged] = field(default_factory=dict)
    """scorer_id -> the Judged verdict that scorer recorded on the answer."""
    failures: list[Failed] = field(default_factory=list)
    """Its Failed events (recall, answer or judge), in order; a later success resolves one."""
    answered_in: int | None = None
    """The segment that recorded the answer."""
    judged_in: dict[str, int] = field(default_factory=dict)
    """scorer_id -> the segment that recorded its verdict."""
    discarded: list[Judged] = field(default_factory=list)
    """Verdicts on an answer other than the recorded one (a writer that lost a race): never counted."""

    def status(self, scorer_id: str | None) -> str:
        """judged | failed | answered | recalled | pending, for one scorer."""
        if scorer_id is not None and scorer_id in self.judged:
            return "judged"
        if self.unresolved_failure(scorer_id) is not None:
            return "failed"
        if self.answered is not None:
            return "answered"
        if self.recalled is not None:
            return "recalled"
        return "pending"

    def resolved(self, failure: Failed) -> bool:
        """Whether the failure's own stage has since succeeded: a recall by a recorded recall, an answer
        by a recorded answer, a judge failure only by a verdict of the scorer it was recorded under
        (another scorer's verdict never resolves it)."""
        if failure.stage == "recall":
            return self.recalled is not None
        if failure.stage == "answer":
            return self.answered is not None
        return failure.stage == "judge" and failure.scorer_id in self.judged

    def failures_of(self, scorer_id: str | None) -> list[Failed]:
        """The failures that bear on one scorer's count: every recall and answer failure, and the judge
        failures recorded under that scorer."""
        return [f for f in self.failures if f.stage != "judge" or f.scorer_id == scorer_id]

    def unresolved_failure(self, scorer_id: str | None) -> Failed | None:
        """The latest failure bearing on the scorer (`failures_of`) that has not since been resolved."""
        return next((f for f in reversed(self.failures_of(scorer_id)) if not self.resolved(f)), None)


@dataclass
class RunState:
    run_id: str
    """The run's id (as the ledger holds it, not a prefix)."""
    started: RunStarted | None = None
    """The RunStarted event (config and provenance); None for a run with no start recorded."""
    plan: QuestionsPlanned | None = None
    """The QuestionsPlanned event: which questions the run will ask; None until planned."""
    corpus: CorpusFingerprinted | None = None
    """The CorpusFingerprinted event: the release's fingerprint and counts; None until recorded."""
    ingested: dict[str, int] = field(default_factory=dict)
    """scope -> documents ingested into the memory in the current preparation (MessagesIngested)."""
    extracted: dict[str, int] = field(default_factory=dict)
    """scope -> chunks the memory's build extracted in the current preparation (ChunkExtracted)."""
    verified: dict[str, ScopeVerified] = field(default_factory=dict)
    """scope -> the ScopeVerified of the highest check number: does the memory hold the corpus."""
    purged: dict[str, ScopePurged] = field(default_factory=dict)
    """scope -> the ScopePurged event that removed it from the evaluation store."""
    questions: dict[str, QuestionState] = field(default_factory=dict)
    """question_id -> its fold, in planned order."""
    scorers: dict[str, ScorerStarted] = field(default_factory=dict)
    """scorer_id -> its ScorerStarted (judge model, protocol, official or not), in start order."""
    run_failures: list[Failed] = field(default_factory=list)
    """Failed events that name no planned question (prepare, run-level stages), in order."""
    resumes: list[RunResumed] = field(default_factory=list)
    """The RunResumed events, in order (one per `benchledger resume`)."""
    finished: RunFinished | None = None
    """The RunFinished of the latest attempt (status and reason); None while unfinished (a resume clears it)."""
    preparation: int = 0
    """The number of the current preparation of the corpus in the memory (a re-preparation restarts the counts)."""
    segments: list[Segment] = field(default_factory=list)
    """Every segment (start, resumes, scorers, continuations) in order, with endpoint and models."""
    answer_segment: int | None = None
    """The segment answers are recorded in now (the start, or the latest resume)."""
    scorer_segment: dict[str, int] = field(default_factory=dict)
    """scorer_id -> the segment its verdicts are recorded in now."""
    memory_calls: list[MemoryModelCalled] = field(default_factory=list)
    """The memory system's own model calls, in order (`projections.memory_costs` folds them)."""
    pacing: list[EndpointPaced] = field(default_factory=list)
    """How each segment's model calls were paced at the endpoint, in order."""
    forecast: RunForecast | None = None
    """What the run was forecast to spend before it asked anything (None: not forecast)."""
    audit_events: list[AuditStarted | AuditContinued | PlantJudged | PlantFailed] = field(default_factory=list)
    """Audit segments' events, in order: kept apart from the score (`projections.judge_audit` folds them)."""
    checks: list[SourceChecked | SpotChecked] = field(default_factory=list)
    """Third-party checks appended to the run (`verify --against-source`, `--spot-check`), in order:
    never in the score (`projections.checks` folds them)."""
    headline_scorer: str | None = None
    """The scorer the run's reports lead with, once chosen under its benchmark's conditions
    (`projections.headline`, set by whoever folds the run with them); None: `default_scorer`'s own rule."""
    head: str | None = None
    """The hash of the run's last event folded (what `--expect-head` pins)."""
    last_seq: int = 0
    """The ledger seq of the last event folded (0 for none)."""
    events: int = 0
    """How many events were folded."""

    @property
    def mode(self) -> str:
        """"retrieval" for a retrieval run (recall only, no answers), else "qa"."""
        return self.started.config.settings.mode if self.started else "qa"

    def require_answers(self, action: str) -> None:
        """Refuse an answer-level action (rejudge, resume, diff, export...) on a retrieval run."""
        if self.mode == "retrieval":
            raise BadInput(f"run {self.run_id} is a retrieval run: it recalled but never answered, so there is "
                           f"nothing to {action}; `benchledger show {self.run_id}` prints its recall metrics",
                           field="run")

    @property
    def latest_scorer(self) -> str | None:
        """The scorer started last, complete or not."""
        return next(reversed(self.scorers), None) if self.scorers else None

    def unjudged(self, scorer_id: str) -> int:
        """Answered questions the scorer has neither judged nor recorded a judge failure for.

        More than zero means the scorer is partial: an interrupted rejudge (or a run still going).
        """
        return sum(1 for q in self.questions.values() if q.answered is not None and scorer_id not in q.judged
                   and not any(f.stage == "judge" and f.scorer_id == scorer_id for f in q.failures))

    @property
    def partial_scorers(self) -> dict[str, int]:
        """scorer id -> answers it has not judged, for every partial scorer."""
        return {scorer: missing for scorer in self.scorers if (missing := self.unjudged(scorer))}

    @property
    def default_scorer(self) -> str | None:
        """The scorer reports use unless asked: `headline_scorer` once chosen under the benchmark's
        conditions (its first scorer that meets the protocol, `projections.headline`); without them,
        the first complete scorer of the benchmark's official method, else the first scorer.

        Either way a later scorer (a lenient rejudge, an interrupted one, one whose judge calls
        failed) never displaces the run's own: the headline does not depend on what was added last.
        """
        if self.headline_scorer in self.scorers:
            return self.headline_scorer
        official = [scorer for scorer in self.scorers if self.scorers[scorer].official and self.complete(scorer)]
        first: list[str | None] = [*official, *self.scorers]
        return first[0] if first else None

    def complete(self, scorer_id: str) -> bool:
        """True when the scorer judged every recorded answer (none pending, none failed)."""
        return not any(q.answered is not None and scorer_id not in q.judged for q in self.questions.values())

    @property
    def all_failures(self) -> list[Failed]:
        return self.run_failures + [f for q in self.questions.values() for f in q.failures]

    def resolved_failures(self, scorer_id: str | None) -> int:
        """Failures bearing on one scorer that a later success of their own stage resolved: run-level
        ones the run overcame, and the questions' `failures_of` the scorer that `resolved` them."""
        open_run = {id(f) for f in self.unresolved_run_failures}
        return (sum(1 for f in self.run_failures if id(f) not in open_run)
                + sum(1 for q in self.questions.values() for f in q.failures_of(scorer_id) if q.resolved(f)))

    @property
    def unresolved_run_failures(self) -> list[Failed]:
        """Run-level failures the run has not since overcome.

        A completed finish overcomes every earlier prepare/verify failure (the run was prepared
        and verified again); a purge failure stands until its scope is purged.
        """
        finished = self.finished is not None and self.finished.status == "completed"
        return [f for f in self.run_failures
                if (f.stage == "purge" and f.scope_key not in self.purged) or (f.stage != "purge" and not finished)]


def fold_run(run_id: str, stored_events: Iterable[Any]) -> RunState:
    """Fold stored events (in position order) into a RunState. Pure.

    The state of a long run is many small objects that live as long as it does: they are built
    with the cycle collector paused (`benchledger.collector`).
    """
    state = RunState(run_id=run_id)
    segments, handlers, last, count = state.segments, _HANDLERS, None, 0
    with building_long_lived():
        for stored in stored_events:  # per event: its handler and the count (locals: a run is long)
            opened = len(segments)
            event = stored.event
            handlers[type(event)](state, event)
            if len(segments) != opened:
                segments[-1].position = stored.position
                segments[-1].recorded_at = getattr(stored, "recorded_at", "")  # a pending event has none yet
            last, count = stored, count + 1
    if last is not None:
        state.head, state.last_seq = last.hash, last.seq
    state.events += count
    return state


def _question(state: RunState, question_id: str | None) -> QuestionState | None:
    return state.questions.get(question_id) if question_id else None


def _segment(state: RunState, kind: str, label: str, **values: object) -> int:
    state.segments.append(Segment(index=len(state.segments), kind=kind, label=label, **values))  # type: ignore[arg-type]
    return len(state.segments) - 1


def _start_segment(state: RunState, event: RunStarted) -> None:
    cfg = event.config
    offline = cfg.offline_models or cfg.settings.mode == "retrieval"
    endpoint = cfg.endpoint or Endpoint(base_url=cfg.settings.base_url, api_key_env=cfg.settings.api_key_env)
    state.answer_segment = _segment(
        state, "start", "start", endpoint=endpoint, offline=offline, agent_model=cfg.agent_model,
        judge_model=cfg.judge_model,
        memory=MemoryIdentity(name=cfg.memory, version=cfg.memory_version,
                              url=cfg.settings.memory_options.get("url")))


def _resume_segment(state: RunState, event: RunResumed) -> None:
    offline = is_offline_model(event.agent_model) and is_offline_model(event.judge_model)
    state.answer_segment = _segment(
        state, "resume", f"resume {event.attempt}", endpoint=event.endpoint, offline=offline,
        agent_model=event.agent_model, judge_model=event.judge_model, memory=event.memory)
    if state.scorers:  # the run's own scorer judges during a resume
        state.scorer_segment[next(iter(state.scorers))] = state.answer_segment


def _scorer_segment(state: RunState, event: ScorerStarted | ScorerContinued) -> None:
    if isinstance(event, ScorerStarted):
        if event.scorer_id in state.scorers:
            return
        first = not state.scorers
        state.scorers[event.scorer_id] = event
        if first and state.answer_segment is not None:  # the run's own scorer: the run's segment
            state.scorer_segment[event.scorer_id] = state.answer_segment
            return
        index = _segment(state, "scorer", f"scorer {event.scorer_id}", endpoint=event.endpoint,
                         offline=event.offline or event.model_free, model_free=event.model_free,
                         judge_model=event.judge_model, scorer_id=event.scorer_id)
    else:
        started = state.scorers.get(event.scorer_id)
        model_free = bool(started and started.model_free)
        index = _segment(state, "continue", f"scorer {event.scorer_id}, attempt {event.attempt}",
                         endpoint=event.endpoint, offline=bool(started and started.offline) or model_free,
                         model_free=model_free, judge_model=started.judge_model if started else None,
                         scorer_id=event.scorer_id)
    state.scorer_segment[event.scorer_id] = index


def _judged(state: RunState, q: QuestionState, event: Judged) -> None:
    if event.answer_hash and q.answered is not None and event.answer_hash != q.answered.raw_hash:
        q.discarded.append(event)
        return
    if event.scorer_id in q.judged:
        return
    q.judged[event.scorer_id] = event
    segment = state.scorer_segment.get(event.scorer_id)
    if segment is not None:
        q.judged_in[event.scorer_id] = segment
        state.segments[segment].reported_models.add(event.model)


def _run_started(state: RunState, event: RunStarted) -> None:
    if state.started is not None:
        return
    state.started = event
    _start_segment(state, event)


def _questions_planned(state: RunState, event: QuestionsPlanned) -> None:
    if state.plan is not None:
        return
    state.plan = event
    state.questions = {q.question_id: QuestionState(planned=q) for q in event.questions}


def _corpus(state: RunState, event: CorpusFingerprinted) -> None:
    if state.corpus is None:
        state.corpus = event


def _ingested(state: RunState, event: MessagesIngested) -> None:
    if event.preparation != state.preparation:  # a re-preparation starts the counts again
        state.preparation = event.preparation
        state.ingested, state.extracted, state.purged = {}, {}, {}
    state.ingested[event.scope_key] = state.ingested.get(event.scope_key, 0) + event.count


def _extracted(state: RunState, event: ChunkExtracted) -> None:
    if event.preparation == state.preparation:
        state.extracted[event.scope_key] = state.extracted.get(event.scope_key, 0) + len(event.chunk_ids)


def _verified(state: RunState, event: ScopeVerified) -> None:
    earlier = state.verified.get(event.scope_key)
    if earlier is None or earlier.check < event.check:  # a resume's new check counts, a repeat never
        state.verified[event.scope_key] = event


def _purged(state: RunState, event: ScopePurged) -> None:
    state.purged.setdefault(event.scope_key, event)


def _recalled(state: RunState, event: ContextRecalled) -> None:
    if (q := _question(state, event.question_id)) is not None and q.recalled is None:
        q.recalled = event


def _answered(state: RunState, event: QuestionAnswered) -> None:
    if (q := _question(state, event.question_id)) is not None and q.answered is None:
        q.answered = event
        q.answered_in = state.answer_segment
        if state.answer_segment is not None:
            state.segments[state.answer_segment].reported_models.add(event.model)


def _verdict(state: RunState, event: Judged) -> None:
    if (q := _question(state, event.question_id)) is not None:
        _judged(state, q, event)


def _failed(state: RunState, event: Failed) -> None:
    q = _question(state, event.question_id)
    (q.failures if q is not None else state.run_failures).append(event)


def _resumed(state: RunState, event: RunResumed) -> None:
    if any(resume.attempt == event.attempt for resume in state.resumes):
        return
    state.resumes.append(event)
    state.finished = None
    _resume_segment(state, event)


def _finished(state: RunState, event: RunFinished) -> None:
    if state.finished is None or state.finished.attempt < event.attempt:
        state.finished = event


def _audited(state: RunState, event: AuditStarted | AuditContinued | PlantJudged | PlantFailed) -> None:
    state.audit_events.append(event)  # never a question's answer, verdict or failure


def _checked(state: RunState, event: SourceChecked | SpotChecked) -> None:
    state.checks.append(event)  # a check of the run, never an answer, a verdict or a condition


def _memory_call(state: RunState, event: MemoryModelCalled) -> None:
    state.memory_calls.append(event)


def _paced(state: RunState, event: EndpointPaced) -> None:
    state.pacing.append(event)


def _forecast(state: RunState, event: RunForecast) -> None:
    if state.forecast is None:
        state.forecast = event


def _not_folded(state: RunState, event: Any) -> None:
    """An event the run's state does not hold (a projection of its own reads it from the events)."""


FOLD_HANDLERS: dict[str, Callable[[RunState, Any], None]] = {
    "run_started": _run_started, "questions_planned": _questions_planned, "corpus": _corpus,
    "ingested": _ingested, "extracted": _extracted, "verified": _verified, "purged": _purged,
    "recalled": _recalled, "answered": _answered, "scorer_segment": _scorer_segment, "verdict": _verdict,
    "failed": _failed, "resumed": _resumed, "finished": _finished, "audited": _audited,
    "checked": _checked, "memory_call": _memory_call, "paced": _paced, "forecast": _forecast, "not_folded": _not_folded,
}
"""The fold's handlers by the name an event type's declaration gives (`@declare(fold=...)`)."""


def _dispatch() -> dict[type, Callable[[RunState, Any], None]]:
    unknown = {name: d.fold for name, d in DECLARATIONS.items() if d.fold not in FOLD_HANDLERS}
    if unknown:
        raise ImportError("; ".join(f"event type {name} declares fold handler {fold!r}, which projections.state "
                                    "does not have: add it to FOLD_HANDLERS" for name, fold in unknown.items()))
    return {d.cls: FOLD_HANDLERS[d.fold] for d in DECLARATIONS.values()}


# One handler per event class, looked up by the event's exact class: a run folds tens of thousands
# of events, and the common ones would otherwise go through a chain of isinstance checks.
_HANDLERS = _dispatch()
