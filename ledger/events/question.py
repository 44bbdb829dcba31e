"""Per-question events: recall, answer, judgment, failure, and the scorers that judge."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from benchledger.ledger.events.base import Event, Usage
from benchledger.ledger.events.declaration import OPEN_RUN_ONLY, Housekeeping, Joins, LegacyKey, Opens, declare
from benchledger.ledger.events.endpoints import Endpoint
from benchledger.ledger.events.keys import part

__all__ = [
    "RecalledItem", "ContextRecalled", "QuestionAnswered", "ScorerStarted", "ScorerContinued", "Judged", "Failed",
    "STAGES", "Stage",
]

Stage = Literal["prepare", "verify", "recall", "answer", "judge", "purge", "run"]
"""Where an operational failure happened."""
STAGES: tuple[Stage, ...] = ("prepare", "verify", "recall", "answer", "judge", "purge", "run")


@dataclass(frozen=True, slots=True, config=ConfigDict(use_attribute_docstrings=True))
class RecalledItem:
    """One candidate a memory system recalled.

    A validated dataclass rather than a model: a run holds ten per question, and a slotted
    dataclass is one object where a model is three (instance, `__dict__`, fields-set), which makes
    a checked read of a long run a sixth faster. Its JSON is the same.
    """

    doc_id: str
    """The recalled document's id as the release names it."""
    score: float
    """The memory system's own score for it (higher ranks first)."""
    rank: int
    """Its rank among the candidates, from 1."""
    author: str | None = None
    """Who wrote it, if the document says."""
    channel: str | None = None
    """Its channel or session, if the document says."""
    verbatim: bool | None = None
    """True when the text the memory returned occurs in the ingested document (a summarising
    memory may paraphrase; an inventing one shows here); None on rows before it was checked and
    for derived text (a fact, a summary), which is never expected to be verbatim."""
    kind: str = "document"
    """The candidate's kind: a stored `document`, or derived text (`fact`, `summary`, ...)."""
    sources: tuple[str, ...] | None = None
    """The doc_ids a derived candidate names (none, one or several; `doc_id` is the first, or '');
    None for a document candidate, whose one source is `doc_id`."""
    source_channels: tuple[str, ...] | None = None
    """The channels (sessions) of `sources`, in order, for session-level evidence; None as `sources`."""
    changed_fields: tuple[str, ...] = ()
    """Structural fields (author, role, channel, reply target, topic, phase, time, extras) of a
    recalled document that the memory returned other than they were ingested; empty when every
    field it returned is the ingested one (and on rows before it was checked)."""

    def named(self) -> tuple[str, ...]:
        """The documents this candidate counts toward in evidence recall."""
        return (self.doc_id,) if self.sources is None else self.sources

    def named_channels(self) -> tuple[str, ...]:
        """The sessions this candidate counts toward at session level."""
        return ((self.channel or ""),) if self.source_channels is None else self.source_channels


@declare(key=lambda e: f"recall:{e.question_id}", blobs=("context_hash", "candidates_hash"), sealing=OPEN_RUN_ONLY,
         fold="recalled")
class ContextRecalled(Event):
    """The memory system's candidates for one question, asked as its user."""

    type: Literal["ContextRecalled"] = "ContextRecalled"
    """The event type."""
    question_id: str
    """The question recalled for."""
    query: str
    """The text sent to the memory system (the question as released)."""
    asking_user: str | None = None
    """The user recall was asked as (GroupMemBench's asking user)."""
    k: int
    """Candidates asked for."""
    token_budget: int | None = None
    """Estimated-token budget of the packed context, if any."""
    items: tuple[RecalledItem, ...]
    """The candidates in rank order."""
    context_hash: str
    """Blob hash of the packed context exactly as shown to the answer model."""
    candidates_hash: str = ""
    """Blob hash of the candidates kept, their text exactly as the memory returned it (JSON); resume
    answers from them ('' on rows before they were kept)."""
    context_tokens: int
    """Estimated tokens of the packed context."""
    latency_ms: float
    """How long the recall took, in milliseconds."""
    truncated_candidates: int = 0
    """Candidates the memory returned past k or the token budget, which benchledger cut (the protocol's
    rule: the longest prefix of the ranking within both); `items` and the blobs hold what was kept. 0 on
    rows before the harness held recalls to the budget."""
    truncated_tokens: int = 0
    """Estimated tokens (`estimate_tokens` summed over their text) of the candidates cut."""


@declare(key=lambda e: f"answer:{e.question_id}", blobs=("raw_hash",), sealing=OPEN_RUN_ONLY, fold="answered")
class QuestionAnswered(Event):
    """The answer model's answer from the recalled context only."""

    type: Literal["QuestionAnswered"] = "QuestionAnswered"
    """The event type."""
    question_id: str
    """The question answered."""
    answer: str
    """The answer as parsed from the model output (a Final: line, or typed JSON)."""
    abstained: bool
    """True when the answer says the information is not there."""
    model: str
    """The model that answered, as the endpoint reported it."""
    raw_hash: str
    """Blob hash of the full model output."""
    usage: Usage = Field(default_factory=Usage)
    """Tokens the call used, as the endpoint reported them."""
    cache_hit: bool = False
    """True when the response came from the ledger's response cache."""
    latency_ms: float = 0.0
    """How long the call took, in milliseconds (0 on a cache hit)."""
    request_digest: str = ""
    """Cache key (SHA-256) of the model request that produced the answer; "" when not recorded."""


@declare(key=lambda e: f"scorer:{part(e.scorer_id)}", blobs=(), sealing=(Opens("scorer", owner="scorer_id"),),
         fold="scorer_segment", legacy=(LegacyKey(1, lambda e: f"scorer:{e.scorer_id}"),))
class ScorerStarted(Event):
    """A scorer (judge model, protocol, prompt) begins judging this run's answers."""

    schema_version: ClassVar[int] = 2
    """2: the scorer id quoted in the key (issue 32 item 5); the payload is as in 1."""

    type: Literal["ScorerStarted"] = "ScorerStarted"
    """The event type."""
    scorer_id: str
    """The scorer's id within the run (s1 is the run's own; rejudges add s2, ...)."""
    judge_model: str
    """The judge model asked for (an offline judge's labelled name when offline)."""
    protocol: str
    """The protocol it judges under (reference, typed, official)."""
    prompt_hash: str = ""
    """SHA-256 of the judge's system prompt ('' when it has none)."""
    offline: bool = False
    """True when the judge is a deterministic offline model."""
    endpoint: Endpoint | None = None
    """Where its judge calls went (None for a judge that asks no model, or on rows before it was recorded)."""
    model_free: bool = False
    """True when the scorer asks no model at all (a deterministic official rule such as LoCoMo's token F1)."""
    method: str = ""
    """The scoring method, named by the benchmark (locomo-f1, longmemeval-judge, memora-majority...);
    '' for a plain judge model and for scorers recorded before methods were named."""
    judge_models: tuple[str, ...] = ()
    """Every judge model that votes, in order (Memora's three); empty when judge_model is the only one."""
    prompt_hashes: dict[str, str] = Field(default_factory=dict)
    """SHA-256 of each official template the scorer fills, by file name (kept as blobs)."""
    official: bool = False
    """True when `method` is the benchmark's official scoring method (without the benchmark's conditions, reports lead with its first complete scorer)."""


@declare(key=lambda e: f"scorer:{part(e.scorer_id)}:continue:{e.attempt}", blobs=(),
         sealing=(Opens("scorer", owner="scorer_id"),), fold="scorer_segment",
         legacy=(LegacyKey(1, lambda e: f"scorer:{e.scorer_id}:continue:{e.attempt}"),))
class ScorerContinued(Event):
    """An interrupted scorer is finished (`rejudge --continue`), possibly at another endpoint."""

    schema_version: ClassVar[int] = 2
    """2: the scorer id quoted in the key (issue 32 item 5); the payload is as in 1."""

    type: Literal["ScorerContinued"] = "ScorerContinued"
    """The event type."""
    scorer_id: str
    """The scorer being finished."""
    attempt: int
    """The attempt number its new calls (and failures) carry."""
    endpoint: Endpoint | None = None
    """Where its judge calls now go (None for an offline judge)."""


@declare(key=lambda e: f"judge:scorer:{part(e.scorer_id)}:question:{part(e.question_id)}", blobs=("raw_hash",),
         sealing=(Joins("scorer", owner="scorer_id"),), fold="verdict",
         legacy=(LegacyKey(1, lambda e: f"judge:{e.scorer_id}:{e.question_id}"),))
class Judged(Event):
    """One scorer's verdict on one answer against gold."""

    schema_version: ClassVar[int] = 2
    """2: the key names and quotes its scorer and question (issue 32 item 5); the payload is as in 1."""

    type: Literal["Judged"] = "Judged"
    """The event type."""
    question_id: str
    """The question judged."""
    scorer_id: str
    """The scorer that judged."""
    verdict: Literal["correct", "incorrect", "unclear"]
    """correct, incorrect or unclear."""
    reason: str = ""
    """The judge's reason, capped at 2,000 characters."""
    model: str
    """The model that judged, as the endpoint reported it."""
    raw_hash: str = ""
    """Blob hash of the judge's full output ('' for a judge with no output)."""
    usage: Usage = Field(default_factory=Usage)
    """Tokens the call used, as the endpoint reported them."""
    cache_hit: bool = False
    """True when the response came from the ledger's response cache."""
    latency_ms: float = 0.0
    """How long the call took, in milliseconds (0 on a cache hit)."""
    criteria: dict[str, Literal["yes", "no", "unclear"]] = Field(default_factory=dict)
    """Memora: criterion_id -> the judge's answer about the candidate answer (under a vote: the
    expected answer when the vote found the criterion met, else the other one, unclear on no vote)."""
    score: float | None = None
    """The scorer's number for this answer when its rule gives one (LoCoMo's token F1, a Memora
    question's FAMA); None when the verdict is all there is (and on rows recorded before scores)."""
    judge_votes: dict[str, dict[str, str]] = Field(default_factory=dict)
    """Memora's official vote: criterion_id -> judge model -> its reading of that judge's reply
    (yes, no, unclear, or error: left out of the vote)."""
    answer_hash: str = ""
    """raw_hash of the answer this verdict judged; a verdict on any other answer than the recorded
    one is never counted ('' on rows before it was recorded)."""
    request_digest: str = ""
    """Cache key (SHA-256) of the judge request that produced the verdict; "" when not recorded."""


@declare(key=lambda e: f"failed:{_failed_subject(e)}:{e.stage}{_failed_scorer(e)}:{e.attempt}", blobs=(),
         sealing=(Joins("scorer", owner="scorer_id", when=("stage", "judge")), Housekeeping(when=("stage", "purge"))),
         fold="failed", legacy=(LegacyKey(1, lambda e: _legacy_failed_key(e)),))
class Failed(Event):
    """An operational failure: never a wrong answer.

    Its key names what failed: `failed:question:<question_id>:<stage>[:scorer:<scorer_id>]:<attempt>`,
    `failed:scope:<scope_key>:<stage>...` for a scope's failure, `failed:run:<stage>...` for the run's.
    """

    schema_version: ClassVar[int] = 2
    """2: the key names its subject's kind (issue 32 item 5: a question and a scope of one name
    shared the key of version 1); the payload is as in 1."""

    type: Literal["Failed"] = "Failed"
    """The event type."""
    stage: Stage
    """Where it failed: prepare, verify, recall, answer, judge, purge or run."""
    question_id: str | None = None
    """The question it concerns (None for a run-level failure)."""
    scorer_id: str | None = None
    """For a judge failure, the scorer whose call failed."""
    error_class: str
    """The error's class name (APIError, ModelParseError, CorpusIncomplete, ...)."""
    message: str
    """Capped at 500 characters, secrets redacted."""
    attempt: int = 1
    """1 for the first run of the stage; resume retries under higher attempts."""
    scope_key: str | None = None
    """For a scope-level failure (purge), which scope of the run it concerns."""


def _failed_subject(event: Failed) -> str:
    """`question:<id>` (a question's failure names no scope), `scope:<key>`, or `run`."""
    if event.question_id is not None:
        return f"question:{part(event.question_id)}"
    return "run" if event.scope_key is None else f"scope:{part(event.scope_key)}"


def _failed_scorer(event: Failed) -> str:
    return "" if event.scorer_id is None else f":scorer:{part(event.scorer_id)}"


def _legacy_failed_key(event: Failed) -> str:
    """The key of schema version 1 (frozen): a question id and a scope key of one name share it."""
    item = event.question_id or event.scope_key or "-"
    return f"failed:{event.stage}:{event.scorer_id or '-'}:{item}:{event.attempt}"
