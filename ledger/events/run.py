"""Events that open and close a run, and the plan of what it will ask.

`RunStarted` schema 2 records typed settings and the benchmark's selection; rows of schema 1
(settings partly in a string dict `extra`) are upcast on read by `benchledger.ledger.upcasts`.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny

from benchledger.ledger.events.base import Event
from benchledger.ledger.events.declaration import OPEN_RUN_ONLY, Closes, declare
from benchledger.ledger.events.endpoints import Endpoint
from benchledger.settings import RunSettings, Selection
from benchledger.values import Question

__all__ = ["Provenance", "ReleaseFile", "RunConfig", "RunStarted", "QuestionsPlanned", "RunFinished"]


class Provenance(BaseModel):
    """Where the code that ran came from."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    package_version: str
    """benchledger version that ran."""
    git_commit: str | None = None
    """Commit of the benchledger checkout, when run from one."""
    git_dirty: bool | None = None
    """Whether that checkout had uncommitted changes."""
    python: str
    """Python version."""
    platform: str = ""
    """Operating system and machine, as `platform.platform()` names them."""


class ReleaseFile(BaseModel):
    """One file of the release a run read: its hash, and where it came from when it was fetched."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    path: str
    """Its path inside the release (relative to the release folder, or the file's name)."""
    sha256: str
    """SHA-256 of the bytes the run read."""
    bytes: int
    """Its size."""
    origin: str | None = None
    """The source `benchledger fetch` laid it out from (github.com/<owner>/<repo>,
    huggingface.co/datasets/<repo>), as the fetch's receipt records it; None when given by path.
    A record, shown on the scorecard: `official_release` checks the hash against the package's pins."""
    revision: str | None = None
    """The commit it was fetched at, as the receipt records it (None when not fetched)."""
    published: str | None = None
    """What the fetch checked it against, as the receipt records it ("pinned sha256 <hex>",
    "hub sha256 <hex>", "hub git-blob <hex>", "copied, pinned sha256 <hex>"); None when not fetched."""
    url: str | None = None
    """The URL it was actually downloaded from (a mirror or `--hub` shows here), or `file://<folder>`
    for a copy `fetch --from` laid out; None when given by path or fetched before URLs were recorded."""


class RunConfig(BaseModel):
    """What was run and how: the benchmark's selection, the settings, and what they resolved to."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    benchmark: str
    """Benchmark name as its adapter declares it (GroupMemBench, LoCoMo, LongMemEval, Memora, ...)."""
    subset: str
    """The slice of the release by its name: a GroupMemBench domain, a LoCoMo or LongMemEval file
    stem, a Memora split."""
    corpus_path: str
    """Where the release was read from, as given."""
    selection: SerializeAsAny[Selection]
    """Which questions and documents were selected (the benchmark's own selection model)."""
    settings: RunSettings
    """How the run was asked to run (memory system, models, k, protocol, retries, batching)."""
    memory: str
    """The memory system as it named itself (`http:<name>` for a remote one)."""
    memory_version: str
    """The memory system's version, as it reported it."""
    memory_model: str | None = None
    """The model the memory system itself uses, if any (the reference protocol forbids it as agent or judge)."""
    agent_model: str
    """The answer model (an offline model's labelled name when no model was asked for)."""
    judge_model: str
    """The judge model of the run's own scorer."""
    offline_models: bool
    """True when a deterministic offline model answered or judged."""
    prompt_hashes: dict[str, str] = Field(default_factory=dict)
    """SHA-256 of the prompts the models used, by prompt name (official templates by file name, kept as blobs)."""
    reference_prompt_hashes: dict[str, str] = Field(default_factory=dict)
    """SHA-256 of the release's own prompts, when the release ships them (kept as blobs)."""
    evidence_level: Literal["document", "session"] | None = None
    """What the release's evidence labels name, for retrieval metrics (None: no labels)."""
    cache_source_publishable: bool | None = None
    """With `settings.cache_from`: whether that run verified and was publishable when this one started
    (None without it)."""
    endpoint: Endpoint | None = None
    """Where the start segment's model calls went, with the server certificate the probe verified (None:
    derived from the settings, as on runs recorded before certificates were)."""
    release_files: tuple[ReleaseFile, ...] = ()
    """Every release file the run read, with its SHA-256 and, when fetched, its source (empty on runs
    recorded before releases were pinned)."""


@declare(key=lambda e: "run:start", blobs=("config.reference_prompt_hashes.*",), sealing=OPEN_RUN_ONLY,
         fold="run_started")
class RunStarted(Event):
    """A run begins: everything needed to reproduce it, and nothing secret."""

    schema_version: ClassVar[int] = 2

    type: Literal["RunStarted"] = "RunStarted"
    """The event type."""
    config: RunConfig
    """The selection, the settings and what they resolved to."""
    provenance: Provenance
    """The code that ran."""


@declare(key=lambda e: "run:plan", blobs=(), sealing=OPEN_RUN_ONLY, fold="questions_planned")
class QuestionsPlanned(Event):
    """The questions this run will ask, in order, and how many the release held."""

    type: Literal["QuestionsPlanned"] = "QuestionsPlanned"
    """The event type."""
    questions: tuple[Question, ...]
    """Every question the run asks, with its gold (kept so rejudge needs no corpus; never sent to a
    memory system)."""
    available: int
    """Questions in the selected kinds before any limit."""
    kinds_available: tuple[str, ...] = ()
    """Every kind the release holds."""


@declare(key=lambda e: f"run:finish:{e.attempt}", blobs=(), sealing=(Closes(),), fold="finished")
class RunFinished(Event):
    """The run ended: completed (possibly with failures) or aborted, and why."""

    type: Literal["RunFinished"] = "RunFinished"
    """The event type."""
    status: Literal["completed", "aborted"]
    """completed (possibly with failures) or aborted."""
    reason: str = ""
    """Why it aborted ('' when it completed)."""
    attempt: int = 1
    """1 for the first finish; resume appends a new RunFinished with a higher attempt."""
