"""Events that open and close a run, and the plan of what it will ask."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from benchledger.ledger.events.base import Event

__all__ = ["Provenance", "RunConfig", "RunStarted", "PlannedQuestion", "QuestionsPlanned", "RunFinished"]


class Provenance(BaseModel):
    model_config = ConfigDict(frozen=True)

    package_version: str
    """benchledger version that ran."""
    git_commit: str | None = None
    """Commit of the benchledger checkout, when run from one."""
    git_dirty: bool | None = None
    """Whether that checkout had uncommitted changes."""
    python: str
    """Python version."""
    platform: str = ""


class RunConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    benchmark: str
    """Benchmark name (GroupMemBench, LoCoMo, LongMemEval, Memora)."""
    subset: str
    """Domain, file or split."""
    corpus_path: str
    memory: str
    """Memory system name."""
    memory_version: str
    memory_model: str | None = None
    """The model the memory system itself uses, if any (reference protocol forbids it as agent or judge)."""
    memory_options: dict[str, str] = Field(default_factory=dict)
    """Non-secret memory options (e.g. remote URL)."""
    agent_model: str
    judge_model: str
    offline_models: bool
    """True when a deterministic offline model answered or judged."""
    base_url: str | None = None
    protocol: Literal["reference", "typed"]
    k: int
    token_budget: int | None = None
    kinds: tuple[str, ...] = ()
    """Kinds selected; empty means all."""
    message_limit: int | None = None
    question_limit: int | None = None
    concurrency: int = 1
    keep: bool = False
    prompt_hashes: dict[str, str] = Field(default_factory=dict)
    """SHA-256 of the system prompts used."""
    reference_prompt_hashes: dict[str, str] = Field(default_factory=dict)
    """SHA-256 of the release's own prompts, when the release ships them."""
    extra: dict[str, str] = Field(default_factory=dict)


class RunStarted(Event):
    """A run begins: everything needed to reproduce it, and nothing secret."""

    type: Literal["RunStarted"] = "RunStarted"
    config: RunConfig
    provenance: Provenance

    def idempotency_key(self) -> str:
        return "run:start"


class PlannedQuestion(BaseModel):
    model_config = ConfigDict(frozen=True)

    question_id: str
    kind: str
    text: str
    asking_user: str | None = None
    gold: str
    """Kept on the ledger so rejudge needs no corpus; never sent to a memory system."""
    abstention: bool = False
    scope_key: str = "default"
    evidence: tuple[str, ...] = ()
    question_time: str | None = None
    criteria: tuple[dict[str, str], ...] = ()
    """Memora criteria as {criterion_id, question, expected, kind}."""


class QuestionsPlanned(Event):
    """The questions this run will ask, in order, and how many the release held."""

    type: Literal["QuestionsPlanned"] = "QuestionsPlanned"
    questions: tuple[PlannedQuestion, ...]
    available: int
    """Questions in the selected kinds before any limit."""
    kinds_available: tuple[str, ...] = ()
    """All kinds the release holds."""

    def idempotency_key(self) -> str:
        return "run:plan"


class RunFinished(Event):
    """The run ended: completed (possibly with failures) or aborted, and why."""

    type: Literal["RunFinished"] = "RunFinished"
    status: Literal["completed", "aborted"]
    reason: str = ""
    attempt: int = 1
    """1 for the first finish; resume appends a new RunFinished with a higher attempt."""

    def idempotency_key(self) -> str:
        return f"run:finish:{self.attempt}"
