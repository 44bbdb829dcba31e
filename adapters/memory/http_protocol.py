"""The memory HTTP protocol, version 2: JSON over HTTP, the same five operations as `MemorySystem`.

Version 2 changes one thing: a recalled candidate is its text, the ids of the ingested documents it
came from (`sources`), a `kind` and a score (see `adapters.memory.protocol.Candidate`), so a server
can return facts and summaries, not only stored documents. A version 1 server is still accepted:
its candidates (`rank`, `score`, `document`) validate as document candidates. The routes did not
change, so they stay under `/v1` (the path names the route set, `Info.protocol` the body shapes).

Both sides validate every body with these models: the server validates requests (unknown fields
are refused, so a typo is a 400, not a silently ignored option), the client validates replies
(unknown fields are ignored, so a newer server can add some). Paths live under `/v1`; a scope name
holds ':' and is sent percent-encoded as one path segment (`scope_path`).

    GET    /v1/info                       -> Info
    POST   /v1/scopes/{scope}/documents   IngestRequest  -> IngestReply
    POST   /v1/scopes/{scope}/build       BuildRequest   -> BuildReply   (the client loops)
    GET    /v1/scopes/{scope}/state                      -> StateReply
    POST   /v1/scopes/{scope}/recall      RecallRequest  -> RecallReply
    DELETE /v1/scopes/{scope}                            -> PurgeReply

Every failure is `{"error": {"type", "message"}}` with the status `ERROR_STATUS[type]`.
`docs/memory-http-protocol.md` is the reader's version of this module.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.protocol import Candidate

__all__ = [
    "PROTOCOL_VERSION", "ACCEPTED_PROTOCOLS", "PREFIX", "ErrorType", "ERROR_STATUS", "ErrorBody", "ErrorReply", "Info",
    "IngestRequest", "IngestReply", "BuildRequest", "BuildReply", "StateReply", "RecallRequest",
    "RecallReply", "PurgeReply", "scope_path",
]

PROTOCOL_VERSION = "2"
ACCEPTED_PROTOCOLS = ("1", "2")
"""Versions a client accepts from a server: 1 servers return document candidates only."""
PREFIX = "/v1"

ErrorType = Literal[
    "bad_request", "unauthorized", "not_found", "method_not_allowed", "payload_too_large",
    "not_an_evaluation_store", "memory_error", "internal", "busy",
]
ERROR_STATUS: dict[str, int] = {
    "bad_request": 400, "unauthorized": 401, "not_found": 404, "method_not_allowed": 405,
    "payload_too_large": 413, "not_an_evaluation_store": 409, "memory_error": 500, "internal": 500,
    "busy": 503,
}
"""Status code of each error type; the client retries only 5xx (and connection failures)."""


class _Request(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _Reply(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class ErrorBody(_Reply):
    type: str
    """One of `ErrorType`; a client treats an unknown type by its status code."""
    message: str
    """What went wrong, for people; never holds a credential."""


class ErrorReply(_Reply):
    error: ErrorBody


class Info(_Reply):
    """GET /v1/info: who answers."""

    name: str = Field(min_length=1)
    """The served system's registered name (e.g. "sqlite")."""
    version: str = Field(min_length=1)
    protocol: str
    """Protocol version the server speaks ("2"; "1" servers are still accepted)."""
    model: str | None = None
    """The model the memory system itself uses, if any."""


class IngestRequest(_Request):
    documents: list[Document]
    """A batch, with every structural field; idempotent by doc_id."""


class IngestReply(_Reply):
    new: NonNegativeInt
    """How many of the batch were not yet in the scope."""
    documents: NonNegativeInt
    """Documents the scope holds after the batch."""


class BuildRequest(_Request):
    batch_size: int = Field(default=1000, ge=1)


class BuildReply(_Reply):
    extracted: list[str]
    """Chunk ids extracted by this call (at most batch_size; empty when nothing was pending)."""
    pending: NonNegativeInt
    """Chunks still pending after this call; the client calls again until 0."""


class StateReply(_Reply):
    documents: NonNegativeInt
    pending_chunks: NonNegativeInt


class RecallRequest(_Request):
    """Only the question, the asking user and the time: never gold or evidence."""

    query: str
    asking_user: str | None = None
    k: NonNegativeInt
    token_budget: NonNegativeInt | None = None
    question_time: datetime | None = None


class RecallReply(_Reply):
    candidates: list[Candidate]
    """At most k, ranked 1..n, best first; each a document or derived text naming its sources."""


class PurgeReply(_Reply):
    removed: NonNegativeInt
    """Documents removed from the scope."""


def scope_path(scope: str, action: str | None = None) -> str:
    """`/v1/scopes/<percent-encoded scope>[/<action>]`; ':' and '/' in a scope are encoded."""
    path = f"{PREFIX}/scopes/{quote(scope, safe='')}"
    return f"{path}/{action}" if action else path
