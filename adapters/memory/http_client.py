"""`http`: a memory system that lives behind the memory HTTP protocol (any language, any host).

`HttpMemory(store_path, url=...)` asks the server's `/v1/info` once and takes its identity from
it: `name` is `http:<remote name>` and `version` is the remote's version, so a run records both
that it went over HTTP and which system answered (the URL goes on the run as a memory option). The
local `store_path` is unused: the remote keeps its own evaluation store.

Transport is `httpx2` (already installed with the `openai` SDK): pooled keep-alive connections,
timeouts, and no redirects (a redirect could carry the bearer token to another host). Connection
failures, timeouts and 5xx replies are retried under the shared `RetryPolicy` (`benchledger.retry`:
jittered exponential backoff, a 5xx's Retry-After as a floor, up to `max_attempts` in all); 4xx
replies are not. The bearer token is read from its environment variable at every call and is
never stored, logged or put in an error: whatever the server says is redacted before it is cut
short or put in a message, and messages show the URL without credentials.

The client does not trust the remote. A reply is read in chunks up to `max_reply_bytes` (default
`json_input.REPLY_LIMIT`, 64 MiB; a real recall reply is a few MB at most) and refused as soon as it
passes it, before anything more is read (`ReplyTooLarge`); the client asks for an uncompressed reply
and refuses a compressed one, so the limit counts the bytes that are kept. A reply that is not the
protocol's JSON, a recall that is longer than k or mis-ranked, documents that go missing after being acknowledged, and a build that
stops making progress each raise a `RemoteMemoryError` (a `MemorySystemError`), which a run records as
a Failed event and never as a score.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import httpx2
from pydantic import BaseModel, ValidationError

from benchledger.adapters.benchmarks.base import Document
from benchledger.adapters.memory.http_protocol import (
    ACCEPTED_PROTOCOLS, PREFIX, PROTOCOL_VERSION, BuildReply, BuildRequest, ErrorReply, Info, IngestReply, IngestRequest,
    PurgeReply, RecallReply, RecallRequest, StateReply, scope_path,
)
from benchledger.adapters.memory.protocol import BATCH_SIZE, Candidate, MemorySystemError, ScopeState
from benchledger.errors import BadInput, BenchledgerError, NotAnEvaluationStore
from benchledger.json_input import REPLY_LIMIT, JsonTooLarge, read_limited
from benchledger.redaction import redact, strip_url_credentials
from benchledger.retry import RetryPolicy, Transient, retry_after_seconds

__all__ = [
    "HttpMemory", "RemoteMemoryError", "MemoryUnavailable", "MemoryRejected", "MemoryUnauthorized",
    "MalformedReply", "ProtocolMismatch", "DocumentsLost", "BuildStalled", "ReplyTooLarge",
]

_Reply = TypeVar("_Reply", bound=BaseModel)
_UNCOMPRESSED = {"Accept-Encoding": "identity"}


def _positive_int(value: int | str, field: str) -> int:
    """An option given as an integer or as the text `--memory-option KEY=VALUE` carries."""
    try:
        number = int(value)
    except ValueError:
        raise BadInput(f"{field} must be a whole number of bytes, got {value!r}", field=field) from None
    if number < 1:
        raise BadInput(f"{field} must be at least 1, got {number}", field=field)
    return number


class RemoteMemoryError(MemorySystemError, BenchledgerError):
    """The remote memory system failed; outside a run the CLI prints it as one line (exit 1)."""

    exit_code = 1


class MemoryUnavailable(RemoteMemoryError, Transient):
    """Connection failures, timeouts or 5xx replies (on every attempt, once the retries are spent)."""


class MemoryRejected(RemoteMemoryError):
    """The server refused the request (4xx)."""


class MemoryUnauthorized(MemoryRejected):
    """401: the bearer token is missing or wrong."""


class MalformedReply(RemoteMemoryError):
    """The reply is not the protocol's JSON, or breaks its rules (too many or mis-ranked candidates)."""


class ReplyTooLarge(RemoteMemoryError):
    """A reply longer than the client's `max_reply_bytes`; nothing past the limit was read."""


class ProtocolMismatch(RemoteMemoryError):
    """The server speaks another protocol version."""


class DocumentsLost(RemoteMemoryError):
    """The remote holds fewer documents than it acknowledged."""


class BuildStalled(RemoteMemoryError):
    """Build calls stopped reducing the pending chunks."""


class HttpMemory:
    """A `MemorySystem` reached over HTTP; see `docs/memory-http-protocol.md`."""

    name = "http"
    version = f"protocol-{PROTOCOL_VERSION}"
    """Class-level identity for `benchledger memories`; an instance takes the remote's."""

    def __init__(self, store_path: Path, *, url: str | None = None, token_env: str | None = None,
                 timeout: float = 30, max_attempts: int = 4, backoff_base: float = 0.25,
                 stall_rounds: int = 3, max_reply_bytes: int | str = REPLY_LIMIT) -> None:
        if not url:
            raise BadInput("--memory http needs --memory-url URL (start one with `benchledger "
                           "serve-memory --memory NAME`)", field="memory-url")
        try:
            parsed = httpx2.URL(url)
        except httpx2.InvalidURL as err:
            raise BadInput(f"{url!r} is not a URL: {err}", field="memory-url") from None
        if parsed.scheme not in ("http", "https") or not parsed.host:
            raise BadInput(f"{url!r} is not an http(s) URL", field="memory-url")
        if max_attempts < 1 or stall_rounds < 1:
            raise BadInput("max_attempts and stall_rounds must be at least 1", field="memory")
        self.max_reply_bytes = _positive_int(max_reply_bytes, "max_reply_bytes")
        if token_env is not None and not os.environ.get(token_env):
            raise BadInput(f"set the environment variable {token_env} to the memory server's token",
                           field="memory-token-env")
        self.store_path = Path(store_path)
        self.url = url.rstrip("/")
        self.shown_url = strip_url_credentials(self.url)  # what messages show: no user, no password
        self.token_env = token_env
        self.retry = RetryPolicy(max_attempts=max_attempts, backoff_base=backoff_base)
        self.stall_rounds = stall_rounds
        # Redirects are never followed, so a plain-http client never speaks TLS: skip loading the
        # CA store (about 0.1 s a client); an https URL verifies as usual.
        self._client = httpx2.Client(base_url=self.url, timeout=timeout, follow_redirects=False,
                                     verify=parsed.scheme == "https")
        self._acknowledged: dict[str, set[str]] = {}
        self._lock = threading.Lock()
        try:
            info = self._call("GET", f"{PREFIX}/info", Info)
        except BaseException:
            self._client.close()
            raise
        if info.protocol not in ACCEPTED_PROTOCOLS:
            self._client.close()
            raise ProtocolMismatch(f"{self.shown_url} speaks memory protocol {info.protocol!r}; "
                                   f"this client speaks {' or '.join(map(repr, ACCEPTED_PROTOCOLS))}")
        self.remote_name, self.model = info.name, info.model
        self.name, self.version = f"http:{info.name}", info.version

    # -- the protocol ------------------------------------------------------------------------

    def ingest(self, scope: str, documents: Sequence[Document]) -> int:
        reply = self._call("POST", scope_path(scope, "documents"), IngestReply,
                           IngestRequest(documents=list(documents)))
        if reply.new > len(documents):
            raise MalformedReply(f"{self.shown_url}: ingest of {len(documents)} documents reports {reply.new} new")
        with self._lock:
            sent = self._acknowledged.setdefault(scope, set())
            sent.update(doc.doc_id for doc in documents)
            acknowledged = len(sent)
        self._check_held(scope, reply.documents, acknowledged)
        return reply.new

    def build(self, scope: str, batch_size: int = BATCH_SIZE) -> Iterator[list[str]]:
        lowest, idle = None, 0
        while True:
            reply = self._call("POST", scope_path(scope, "build"), BuildReply,
                               BuildRequest(batch_size=batch_size))
            if reply.extracted:
                yield list(reply.extracted)
            if reply.pending == 0:
                break
            if lowest is None or reply.pending < lowest:
                lowest, idle = reply.pending, 0
                continue
            idle += 1
            if idle >= self.stall_rounds:
                raise BuildStalled(f"{self.shown_url}: scope {scope!r} still reports {reply.pending} pending "
                                   f"chunks after {idle} build calls with no progress")
        self.state(scope)  # a remote that dropped documents while building is caught here

    def state(self, scope: str) -> ScopeState:
        reply = self._call("GET", scope_path(scope, "state"), StateReply)
        with self._lock:
            acknowledged = len(self._acknowledged.get(scope, ()))
        self._check_held(scope, reply.documents, acknowledged)
        return ScopeState(documents=reply.documents, pending_chunks=reply.pending_chunks)

    def recall(self, scope: str, query: str, *, asking_user: str | None, k: int,
               token_budget: int | None, question_time: datetime | None = None) -> list[Candidate]:
        request = RecallRequest(query=query, asking_user=asking_user, k=k, token_budget=token_budget,
                                question_time=question_time)
        candidates = self._call("POST", scope_path(scope, "recall"), RecallReply, request).candidates
        if len(candidates) > max(k, 0):
            raise MalformedReply(f"{self.shown_url}: recall asked for k={k} and got {len(candidates)} candidates")
        if [c.rank for c in candidates] != list(range(1, len(candidates) + 1)):
            raise MalformedReply(f"{self.shown_url}: recall ranks are {[c.rank for c in candidates]}, not 1..n")
        return candidates

    def purge(self, scope: str) -> int:
        removed = self._call("DELETE", scope_path(scope), PurgeReply).removed
        with self._lock:
            self._acknowledged.pop(scope, None)
        return removed

    def close(self) -> None:
        self._client.close()

    # -- transport ---------------------------------------------------------------------------

    def _check_held(self, scope: str, held: int, acknowledged: int) -> None:
        if held < acknowledged:
            raise DocumentsLost(f"{self.shown_url}: scope {scope!r} holds {held} documents but acknowledged "
                                f"{acknowledged} distinct doc_ids from this client")

    def _headers(self) -> dict[str, str]:
        if self.token_env is None:
            return {}
        token = os.environ.get(self.token_env)
        if not token:
            raise MemoryUnauthorized(f"the environment variable {self.token_env} holding the memory "
                                     "server's token is empty")
        return {"Authorization": f"Bearer {token}"}

    def _call(self, method: str, path: str, reply_model: type[_Reply],
              body: BaseModel | None = None) -> _Reply:
        content = body.model_dump_json().encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if content is not None else {}
        try:
            response = self.retry.call(lambda: self._attempt(method, path, content, headers)).value
        except MemoryUnavailable as last:
            raise MemoryUnavailable(f"{self.shown_url}: {method} {path} failed after "
                                    f"{self.retry.max_attempts} attempt(s): {last}") from None
        if response.status_code >= 300:
            raise self._rejected(response, method, path)
        return self._parse(reply_model, response, method, path)

    def _attempt(self, method: str, path: str, content: bytes | None, headers: dict[str, str]) -> httpx2.Response:
        """One request; a transport error or a 5xx is a (transient) `MemoryUnavailable`."""
        try:
            request = self._client.build_request(method, path, content=content,
                                                 headers=headers | self._headers() | _UNCOMPRESSED)
            response = self._bounded(self._client.send(request, stream=True), method, path)
        except httpx2.TransportError as err:
            raise MemoryUnavailable(f"{type(err).__name__}: {self._redact(str(err))}") from None
        if response.status_code >= 500:
            unavailable = MemoryUnavailable(f"HTTP {response.status_code}: {self._error_message(response)}")
            unavailable.retry_after = retry_after_seconds(response.headers)
            raise unavailable
        return response

    def _bounded(self, streamed: httpx2.Response, method: str, path: str) -> httpx2.Response:
        """The reply with its body read whole, or ReplyTooLarge once it passes `max_reply_bytes`."""
        try:
            where = f"{self.shown_url}: {method} {path}"
            encoding = streamed.headers.get("Content-Encoding", "identity").strip().lower()
            if encoding != "identity":
                raise MalformedReply(f"{where}: the reply is compressed ({encoding!r}) though the client "
                                     "asked for it uncompressed, so its size cannot be bounded")
            declared = streamed.headers.get("Content-Length", "")
            limit = self.max_reply_bytes
            if declared.isdigit() and int(declared) > limit:
                raise ReplyTooLarge(f"{where}: the reply declares {int(declared):,} bytes, over the limit of "
                                    f"{limit:,} (max_reply_bytes); none of it was read")
            try:
                body = read_limited(streamed.iter_raw(), limit=limit, source=where)
            except JsonTooLarge:
                raise ReplyTooLarge(f"{where}: the reply passed the limit of {limit:,} bytes (max_reply_bytes); "
                                    "nothing past it was read") from None
        finally:
            streamed.close()
        return httpx2.Response(streamed.status_code, headers=streamed.headers, content=body,
                               request=streamed.request)

    def _parse(self, reply_model: type[_Reply], response: httpx2.Response, method: str, path: str) -> _Reply:
        try:
            return reply_model.model_validate_json(response.content)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "body"
            raise MalformedReply(f"{self.shown_url}: {method} {path} replied with a body that is not a "
                                 f"{reply_model.__name__} ({where}: {first['msg']})") from None

    def _rejected(self, response: httpx2.Response, method: str, path: str) -> Exception:
        message = f"{self.shown_url}: {method} {path}: HTTP {response.status_code}: {self._error_message(response)}"
        if response.status_code == 401:
            hint = f" (token from ${self.token_env})" if self.token_env else " (pass --memory-token-env VAR)"
            return MemoryUnauthorized(message + hint)
        if response.status_code == 409 and self._error_type(response) == "not_an_evaluation_store":
            return NotAnEvaluationStore(message)
        if 300 <= response.status_code < 400:
            return MemoryRejected(message + " (redirects are not followed; use the final URL)")
        return MemoryRejected(message)

    def _redact(self, text: str) -> str:
        token = os.environ.get(self.token_env, "") if self.token_env else ""
        return redact(text, (token,))

    @staticmethod
    def _error_type(response: httpx2.Response) -> str | None:
        try:
            return ErrorReply.model_validate_json(response.content).error.type
        except ValidationError:
            return None

    def _error_message(self, response: httpx2.Response) -> str:
        """What the server said, redacted first and only then cut short (a cut secret is unrecognisable)."""
        try:
            error = ErrorReply.model_validate_json(response.content).error
        except ValidationError:
            return f"(not the protocol's error shape) {self._redact(response.text)[:200]!r}"
        return self._redact(f"{error.type}: {error.message}")
