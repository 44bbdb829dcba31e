"""The recording proxy: an in-process memory system reaches its own model only through this.

benchledger starts it on 127.0.0.1 and configures the memory system (mem0) with the proxy's URL and
a placeholder key. Every request is forwarded to the upstream endpoint the user named for the
memory (`--memory-base-url`, or benchledger's offline loopback endpoint) with the real key read
from its environment variable at that moment and put on the outgoing request only, so the key
never reaches the memory's configuration, the ledger, a log or an error. Each forwarded call is
kept as a `ModelCall` (stage, scope or question, API, model asked and reported, tokens, latency,
status, SHA-256 of the request and the reply) until the run drains it into `MemoryModelCalled`
events (`orchestration`: after each ingest and build batch and each recall).

The run says which stage it is in (`stage(...)`, a context manager), so a call is attributed to
the ingest, build or recall it happened in. Calls are forwarded as they come, several at a time
(the run prepares scopes concurrently, and recalls for several questions at once); replies are
passed back byte for byte. So that concurrent stages cannot take each other's calls, a memory
system gives each scope's client its own route (`route(scope)`: the proxy's URL under a path
naming the scope) and the run names the scope of each stage: a call is attributed by the stages
open on its route when it arrives. Stages open at the same time on one route (two questions of one
scope recalled together) share a call only as far as they agree: the call keeps the stage and the
scope, and names no question rather than the wrong one.
Transport is `httpx2` (installed with the `openai` SDK), without redirects, like the memory HTTP
client. When the run's models call the same endpoint, the run hands the proxy its scheduler
(`adapters.models.scheduler`), so the memory's calls share their slots and rate-limit budget.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ContextManager, Literal

import httpx2

from benchledger.adapters.models.scheduler import EndpointScheduler, Ticket
from benchledger.clock import monotonic_ms, new_run_id
from benchledger.redaction import register_secret_env, strip_url_credentials
from benchledger.retry import retry_after_seconds

__all__ = ["RecordingProxy", "ModelCall", "PLACEHOLDER_KEY"]

PLACEHOLDER_KEY = "sk-benchledger-recording-proxy"
"""What the memory system is configured with; the proxy replaces it with the real key upstream."""

Stage = Literal["ingest", "build", "recall"]


_ROUTE = "/memory-scope/"
"""Path prefix of a scope's route; the proxy strips it (and the scope's digest) before forwarding."""

Attribution = tuple[Stage, "str | None", "str | None"]
"""(stage, scope_key, question_id) a call is recorded under."""


@dataclass(frozen=True)
class ModelCall:
    """One forwarded call, as a `MemoryModelCalled` event will record it."""

    call: int
    stage: Stage
    scope_key: str | None
    question_id: str | None
    endpoint: Literal["chat", "embeddings", "other"]
    model_asked: str
    model_reported: str | None
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    status: int
    request_digest: str
    response_digest: str


def _endpoint(path: str) -> Literal["chat", "embeddings", "other"]:
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith("/embeddings"):
        return "embeddings"
    return "other"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:
        self._forward(b"")

    def do_POST(self) -> None:
        self._forward(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

    def _forward(self, body: bytes) -> None:
        proxy = self.server.proxy
        route, path = proxy.split_route(self.path)
        attribution = proxy.attribution(route)  # as the call arrives: the stage that made it is still open
        status, payload, content_type, started = 0, b"", "application/json", monotonic_ms()
        try:
            with proxy.paced(body) as ticket:
                try:
                    reply = proxy.client.request(self.command, proxy.upstream_url(path), content=body,
                                                 headers=proxy.upstream_headers(self.headers.get("Content-Type")))
                except httpx2.TimeoutException:
                    if ticket is not None:
                        ticket.timed_out()
                    raise
                if ticket is not None:
                    _report(ticket, reply)
            status, payload = reply.status_code, reply.content
            content_type = reply.headers.get("Content-Type", content_type)
        except httpx2.HTTPError as err:
            payload = json.dumps({"error": {"message": f"recording proxy: upstream unreachable ({type(err).__name__})",
                                            "type": "upstream_unreachable"}}).encode()
        latency = monotonic_ms() - started
        proxy.record(path, body, status, payload, latency, attribution=attribution)
        self.send_response(status or 502)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def _report(ticket: Ticket, reply: httpx2.Response) -> None:
    """How an upstream attempt ended, for the endpoint's scheduler (a 5xx is neither success nor congestion)."""
    if reply.status_code == 429:
        ticket.refused(reply.headers, retry_after_seconds(reply.headers))
    elif reply.status_code < 500:
        ticket.done(reply.headers)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    proxy: RecordingProxy


class RecordingProxy:
    """Forward a memory system's model calls to `upstream` and keep a record of each (module doc)."""

    def __init__(self, upstream: str, *, key_env: str | None, shown_upstream: str | None = None,
                 timeout: float = 300.0) -> None:
        self.upstream = upstream.rstrip("/")
        self.shown_upstream = shown_upstream or strip_url_credentials(self.upstream)
        """Where calls go, as a run records it (no credentials; "loopback" for the offline endpoint)."""
        self.key_env = key_env
        if key_env:
            register_secret_env(key_env)
        self.session = new_run_id()
        self.scheduler: EndpointScheduler | None = None
        """The run's scheduler for this upstream, when the run's models call the same endpoint: the
        memory's calls then wait for the same slots and budget as the answers and verdicts."""
        self.client = httpx2.Client(timeout=timeout, follow_redirects=False)
        self._lock = threading.Lock()
        self._calls: list[ModelCall] = []
        self._count = 0
        self._open: dict[str | None, list[Attribution]] = {}
        """route (a scope's digest, None for the plain URL) -> the stages open on it, oldest first."""
        self._routes: dict[str, str] = {}
        """a route's digest -> its scope."""
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.proxy = self
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="memory-recording-proxy", daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        """The URL the memory system is given: the upstream's path on the proxy's port."""
        path = httpx2.URL(self.upstream).path.rstrip("/")
        return f"http://127.0.0.1:{self._server.server_address[1]}{path}"

    def route(self, scope: str) -> str:
        """The URL a client of one scope is given: its calls are attributed to that scope's stages."""
        digest = hashlib.sha256(scope.encode()).hexdigest()[:16]
        with self._lock:
            self._routes[digest] = scope
        base = httpx2.URL(self.base_url)
        return f"http://127.0.0.1:{base.port}{_ROUTE}{digest}{base.path.rstrip('/')}"

    def split_route(self, path: str) -> tuple[str | None, str]:
        """(the route's digest or None, the path without the route)."""
        if not path.startswith(_ROUTE):
            return None, path
        digest, _, rest = path.removeprefix(_ROUTE).partition("/")
        return digest, "/" + rest

    def upstream_url(self, path: str) -> str:
        prefix = httpx2.URL(self.upstream).path.rstrip("/")
        return self.upstream + path.removeprefix(prefix)

    def upstream_headers(self, content_type: str | None) -> dict[str, str]:
        headers = {"Content-Type": content_type or "application/json"}
        key = os.environ.get(self.key_env) if self.key_env else None
        headers["Authorization"] = f"Bearer {key or PLACEHOLDER_KEY}"
        return headers

    def paced(self, body: bytes) -> ContextManager[Ticket | None]:
        """A slot from the scheduler for one forwarded call (nothing to wait for without one)."""
        if self.scheduler is None:
            return nullcontext()
        return self.scheduler.call(len(body) / 4)

    @contextmanager
    def stage(self, stage: Stage, *, scope: str | None = None, scope_key: str | None = None,
              question_id: str | None = None) -> Iterator[None]:
        """Attribute the calls made inside to this stage (and scope or question); `scope` (the memory's
        scope name) names the route whose calls these are (none: the calls on the plain URL)."""
        route = hashlib.sha256(scope.encode()).hexdigest()[:16] if scope is not None else None
        opened: Attribution = (stage, scope_key, question_id)
        with self._lock:
            self._open.setdefault(route, []).append(opened)
        try:
            yield
        finally:
            with self._lock:
                self._open[route].remove(opened)

    def attribution(self, route: str | None) -> Attribution:
        """What a call arriving on `route` is recorded under: the stages open on its route (on any
        route for a call on the plain URL, or where its own has none open), as far as they agree."""
        with self._lock:
            open_ = list(self._open.get(route) or ())
            if not open_:
                open_ = [opened for stages in self._open.values() for opened in stages]
        if not open_:
            return ("ingest", None, None)
        stage, scope_key, question_id = open_[0]
        if any(other[0] != stage for other in open_):
            return (stage, None, None)
        return (stage, scope_key if all(o[1] == scope_key for o in open_) else None,
                question_id if all(o[2] == question_id for o in open_) else None)

    @property
    def count(self) -> int:
        """Calls forwarded so far in this session (what progress shows)."""
        with self._lock:
            return self._count

    def record(self, path: str, request: bytes, status: int, payload: bytes, latency_ms: float, *,
               attribution: Attribution | None = None) -> None:
        asked, reported, prompt, completion = "", None, 0, 0
        try:
            asked = str(json.loads(request or b"{}").get("model", ""))
        except (json.JSONDecodeError, AttributeError):
            pass
        try:
            reply = json.loads(payload or b"{}")
            if isinstance(reply, dict):
                reported = reply.get("model") if isinstance(reply.get("model"), str) else None
                usage = reply.get("usage") or {}
                prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        except (json.JSONDecodeError, TypeError, ValueError):
            pass
        with self._lock:
            self._count += 1
            stage, scope_key, question_id = attribution or ("ingest", None, None)
            self._calls.append(ModelCall(
                call=self._count, stage=stage, scope_key=scope_key, question_id=question_id,
                endpoint=_endpoint(path), model_asked=asked, model_reported=reported, prompt_tokens=prompt,
                completion_tokens=completion, latency_ms=latency_ms, status=status,
                request_digest=_sha(request), response_digest=_sha(payload) if payload else ""))

    def drain(self, scope_key: str | None = None) -> list[ModelCall]:
        """The calls recorded since the last drain, in order (only those of `scope_key`, when named)."""
        with self._lock:
            if scope_key is None:
                calls, self._calls = self._calls, []
            else:
                calls = [c for c in self._calls if c.scope_key == scope_key]
                self._calls = [c for c in self._calls if c.scope_key != scope_key]
        return calls

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self.client.close()
