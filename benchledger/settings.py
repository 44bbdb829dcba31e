"""What a user chooses for a run, typed once: `RunSettings` and the benchmark `Selection`.

Both are recorded as they are on `RunStarted` (never a secret: environment variable names, not
their values), and both are the one place their defaults live: the CLI shows and uses these
defaults (`setting_default`), resume rebuilds the settings from the recorded model, and library
callers construct them directly.

A `Selection` says which slice of a release a run asks. Every benchmark's own selection model
(`adapters/benchmarks/<name>/`) subclasses it with its fields (a GroupMemBench domain, LoCoMo
conversation ids, a Memora split); it is recorded as that model dumps it. Read back from the
ledger, it is this base, whose declared fields every benchmark shares, with the benchmark's own
fields kept as they were written; the benchmark validates the whole again with its own model
(`Benchmark.selection_of`) before it loads anything.

`ModelCalls` is the part of the settings a chat client needs (endpoint, key variable, timeout,
retries, the longest Retry-After, the longest reply), handed on as one object (`RunSettings.model_calls`); its fields
are the only statement of their defaults, limits and descriptions, which `RunSettings` takes over
field by field. `Overrides` is what a command that goes on with a recorded run (resume, rejudge,
audit) changes of its recorded settings.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from benchledger.providers import OPENAI_API_KEY_ENV

__all__ = ["ModelCalls", "RunSettings", "SweepTag", "Overrides", "Selection", "Mode", "Protocol", "DECLARED_PROTOCOLS", "Pacing",
           "setting_default"]

Mode = Literal["qa", "retrieval"]
Protocol = Literal["reference", "typed", "official", "paper"]
DECLARED_PROTOCOLS: tuple[Protocol, ...] = ("official", "paper")
"""Protocols whose answer model and scorers the benchmark's own declaration opens (`Benchmark.official`):
its official code's ("official"), or, for a benchmark whose authors publish no evaluation code, the
procedure as its paper describes it ("paper": never the official protocol, always diagnostic)."""
Pacing = Literal["adaptive", "fixed"]


class Selection(BaseModel):
    """Which slice of a release a run asks; each benchmark extends it with its own fields."""

    model_config = ConfigDict(frozen=True, extra="allow", use_attribute_docstrings=True)

    kinds: tuple[str, ...] = ()
    """Question kinds (categories, types, tasks) to ask; empty means all the release has."""
    question_limit: int | None = Field(default=None, ge=1)
    """Ask only this many questions (per kind or in file order, as the benchmark says); diagnostic."""
    message_limit: int | None = Field(default=None, ge=1)
    """Ingest only the first N documents in canonical order; diagnostic."""


class ModelCalls(BaseModel):
    """Where and how patiently model calls are made: the one object that travels from the settings to
    the chat client (`RunSettings.model_calls`), and the one place these defaults live."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    base_url: str | None = None
    """OpenAI-compatible endpoint, without credentials (unset: the SDK default, or offline)."""
    api_key_env: str = OPENAI_API_KEY_ENV
    """Environment variable holding the API key; its value is never recorded."""
    timeout: float = Field(default=60.0, gt=0)
    """Seconds before one model call times out (then it is retried)."""
    max_attempts: int = Field(default=6, ge=1, le=20)
    """Attempts per model call on 429, 5xx, timeouts and resets."""
    backoff_base: float = Field(default=0.5, gt=0)
    """First retry wait in seconds, doubling with jitter; a Retry-After is honoured up to `max_retry_after`."""
    max_retry_after: float = Field(default=120.0, gt=0)
    """The longest wait in seconds honoured when the endpoint asks for one (its Retry-After, or a
    rate-limit budget that resets later), so a hostile or confused server cannot stall a run."""
    max_reply_bytes: int = Field(default=16 * (1 << 20), ge=1)
    """The longest reply body read from the endpoint, in bytes (16 MiB; a real chat completion is a few
    hundred KB at most); past it the call is an operational failure, and nothing more is read."""


def _model_call(name: str) -> Any:
    """ModelCalls' field as a field of RunSettings: its default, limits and description are ModelCalls'.

    RunSettings still names each one, in the place it has always had, because the recorded config is
    the dump of RunSettings in field order and must not change its bytes."""
    return copy.deepcopy(ModelCalls.model_fields[name])


class SweepTag(BaseModel):
    """Which sweep and cell a run is (`benchledger sweep run`): how the sweep finds its cells on the ledger."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    sweep: str
    """The sweep's id (the `name` of its file)."""
    cell: str
    """The cell: benchmark, memory system, models and epoch, as the sweep names them."""
    epoch: int = Field(ge=1)
    """Which repetition of the cell's run this is (1 for the first)."""


class RunSettings(BaseModel):
    """How to run: the memory system, the models, k, the protocol, retries and batching."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    mode: Mode = "qa"
    """qa: recall, answer and judge; retrieval: recall only, scored against the evidence labels."""
    memory: str = "sqlite"
    """Memory system under test, by its registered name (see `benchledger memories`)."""
    memory_store: Path | None = None
    """The evaluation store file of the memory system (unset only on runs recorded before it was kept)."""
    memory_options: dict[str, str] = Field(default_factory=dict)
    """The memory system's own non-secret options (for http: url, token_env), as keyword arguments."""
    k: int = Field(default=10, ge=1)
    """Candidates recalled per question."""
    token_budget: int | None = Field(default=None, ge=1)
    """Estimated-token budget for the packed context (unset: no budget)."""
    protocol: Protocol | None = None
    """reference, typed, official or paper (unset: the benchmark's default protocol)."""
    agent_model: str | None = None
    """Answer model at the endpoint (unset: the offline extractive baseline)."""
    judge_model: str | None = None
    """Judge model (unset: under the official protocol the benchmark's official judge, else the agent
    model; the offline judge with an offline agent)."""
    judge_models: tuple[str, ...] = ()
    """Memora's official protocol: the judges that vote on every criterion, in order (unset: the judge
    model alone when one is given, else Memora's official trio)."""
    prompts_dir: Path | None = None
    """Folder of the benchmark's official prompt templates, checked by SHA-256 (unset: the `prompts`
    folder inside a release folder, or beside a release file)."""
    base_url: str | None = _model_call("base_url")
    api_key_env: str = _model_call("api_key_env")
    concurrency: int = Field(default=4, ge=1, le=256)
    """Model calls in flight at once: the ceiling of the adaptive limit (`pacing`), or the fixed number;
    also the scopes prepared at once by a memory system that can take them (mem0, Graphiti)."""
    pacing: Pacing = "adaptive"
    """adaptive: calls to the endpoint start at 4 in flight, grow while they succeed, halve on 429s and
    timeouts, and wait for the provider's advertised budget and Retry-After; fixed: always `concurrency`."""
    prepare: bool = True
    """Ingest and build the scope; off reuses a kept scope after the same completeness check."""
    keep: bool = False
    """Keep the memory scope after the run instead of purging it."""
    batch_size: int = Field(default=1000, ge=1)
    """Documents per ingest call and per build batch (one event and one transaction each)."""
    timeout: float = _model_call("timeout")
    max_attempts: int = _model_call("max_attempts")
    backoff_base: float = _model_call("backoff_base")
    max_retry_after: float = _model_call("max_retry_after")
    max_reply_bytes: int = _model_call("max_reply_bytes")
    cache_from: str | None = None
    """Another run of this ledger whose recorded model responses may also answer this run's calls
    (unset: only the run's own); the run is then diagnostic."""
    sweep: SweepTag | None = None
    """The sweep cell this run is (unset: a run started on its own)."""

    @property
    def model_calls(self) -> ModelCalls:
        """The settings the chat client uses, as one object (a new one is a field of both models)."""
        return ModelCalls(**{name: getattr(self, name) for name in ModelCalls.model_fields})

    def with_changes(self, **changes: Any) -> RunSettings:
        """A copy with some fields changed, validated again (None values are left unchanged)."""
        values = self.model_dump()
        values.update({key: value for key, value in changes.items() if value is not None})
        return RunSettings.model_validate(values)


class Overrides(BaseModel):
    """What a command that goes on with a recorded run (resume, rejudge, audit) changes of the settings
    the run recorded, as one object from the command to `applied_to`; every unset field keeps the
    run's. The values are checked as settings when applied."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    base_url: str | None = None
    """Another endpoint (a new loopback port, a proxy)."""
    api_key_env: str | None = None
    """Another environment variable holding the API key."""
    concurrency: int | None = None
    """Model calls in flight at once."""
    max_attempts: int | None = None
    """Attempts per model call."""
    memory_options: dict[str, str] | None = None
    """The memory system's options, whole (resume: another memory server URL or token variable)."""

    def applied_to(self, settings: RunSettings) -> RunSettings:
        """`settings` with these changes, validated again."""
        return settings.with_changes(**dict(self))


def setting_default(name: str) -> Any:
    """The default of one RunSettings field, for the CLI's options and their help."""
    field = RunSettings.model_fields[name]
    return field.get_default(call_default_factory=True)
