"""Third-party checks of a run: appended after it, recorded as their own events, never in its score.

Two conditions of PUBLISHABLE rest on what the runner's machine saw: where the release's bytes came
from, and what the provider answered. `benchledger verify RUN --against-source` has anyone with
internet re-read, from the official source the package's pin table names, the hashes of the release
files the run recorded (`SourceChecked`); `verify RUN --spot-check N` re-sends a seeded draw of N
recorded answer and judge requests to the provider and says how many agree (`SpotChecked`).

Each check is one self-contained event: who checked (as the checker named themselves), when, against
what (the source's base URLs; the endpoint, with its TLS evidence and the key's variable name only),
and each item's result. A check changes no score and no condition, so it is housekeeping in the
seal's terms: admitted to a finished run anywhere, opening no segment (its own calls are recorded in
it, and none of them is an answer or verdict of the run). The fold keeps checks apart
(`RunState.checks`, read by `projections.checks`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from benchledger.ledger.events.base import Event
from benchledger.ledger.events.declaration import Housekeeping, declare
from benchledger.ledger.events.endpoints import Endpoint
from benchledger.ledger.events.keys import part

__all__ = ["SourceFileChecked", "SourceChecked", "SpotItem", "SpotChecked", "CHECK_EVENT_TYPES"]


class SourceFileChecked(BaseModel):
    """One release file the run recorded, read again from its official source."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    path: str
    """Its path in the release, as the run recorded it."""
    recorded_sha256: str
    """The SHA-256 the run recorded for the bytes it read."""
    recorded_bytes: int
    """The size the run recorded."""
    source: str = ""
    """Where the package's pin table says the file is published: `<origin> @ <revision> <path>` ('' when
    the table names no source for it)."""
    url: str = ""
    """The URL read ('' when none was)."""
    how: Literal["downloaded", "hub-published", ""] = ""
    """downloaded: the body was read and hashed; hub-published: the hub's stated SHA-256 (its LFS id) was
    read; '' when nothing was read."""
    source_sha256: str = ""
    """The SHA-256 the source gave ('' when none)."""
    status: Literal["agrees", "differs", "unreadable", "no-source"]
    """agrees: the source's bytes are the recorded ones; differs: they are not; unreadable: the source
    could not be read; no-source: the package names no official source for this file."""
    detail: str = ""
    """Why, in one sentence, when it does not agree (capped, secrets redacted)."""


@declare(key=lambda e: f"check:source:{part(e.check_id)}", blobs=(), sealing=(Housekeeping(),), fold="checked")
class SourceChecked(Event):
    """`verify RUN --against-source`: the run's recorded release files, re-read from their official source."""

    type: Literal["SourceChecked"] = "SourceChecked"
    """The event type."""
    check_id: str
    """The check's id within the run (c1, c2, ...; shared by both kinds of check)."""
    checked_by: str
    """Who checked, as the checker named themselves (`--by`, else the local user name): a claim."""
    checked_at: str
    """When the check was made (UTC, ISO 8601)."""
    checked_with: str
    """The package that checked (`benchledger <version>`), whose pin table named the sources."""
    github_raw: str
    """The base URL GitHub files were read from (a mirror shows here)."""
    hub: str
    """The base URL of the Hugging Face hub read."""
    files: tuple[SourceFileChecked, ...]
    """Each recorded release file, in the run's order."""


class SpotItem(BaseModel):
    """One recorded request sent again, and whether the reply agrees with what the run recorded."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    question_id: str
    """The question whose request it was."""
    stage: Literal["answer", "judge"]
    """answer: the answer request (the recorded context and question); judge: the judge request (the
    recorded answer against gold)."""
    recorded: str
    """What the run recorded: the answer (capped at 500 characters) or the verdict."""
    again: str = ""
    """What the provider replied now, the same way ('' when the call failed)."""
    agrees: bool | None = None
    """Whether it agrees (answers: the same text once case, spacing and punctuation are set aside;
    verdicts: the same verdict); None when the call failed."""
    model: str = ""
    """The model that replied, as the endpoint reported it."""
    error: str = ""
    """The failure, when the call failed: its class and a capped, redacted message."""


@declare(key=lambda e: f"check:spot:{part(e.check_id)}", blobs=(), sealing=(Housekeeping(),), fold="checked")
class SpotChecked(Event):
    """`verify RUN --spot-check N`: a seeded draw of recorded requests sent again to the provider."""

    type: Literal["SpotChecked"] = "SpotChecked"
    """The event type."""
    check_id: str
    """The check's id within the run (c1, c2, ...; shared by both kinds of check)."""
    checked_by: str
    """Who checked, as the checker named themselves (`--by`, else the local user name): a claim."""
    checked_at: str
    """When the check was made (UTC, ISO 8601)."""
    checked_with: str
    """The package that checked (`benchledger <version>`)."""
    endpoint: Endpoint | None
    """Where the requests went, with what the probe saw of its TLS (the key's variable name, never the key)."""
    agent_model: str
    """The answer model asked (the run's)."""
    judge_model: str
    """The judge asked (the scorer's)."""
    scorer_id: str
    """The scorer whose verdicts were checked."""
    seed: int
    """The seed of the draw: the same seed over the same run draws the same questions."""
    asked: int
    """N, as asked."""
    population: int
    """Questions the draw was made from (answered, with a recorded context and a verdict of the scorer)."""
    items: tuple[SpotItem, ...]
    """Each request sent, by drawn question, answer then judge."""


CHECK_EVENT_TYPES: tuple[type[Event], ...] = (SourceChecked, SpotChecked)
"""Every check event class (the score's fold keeps them apart)."""
