"""Serve any `MemorySystem` over the memory HTTP protocol (`adapters.memory.http_protocol`).

The stdlib `ThreadingHTTPServer` is enough: the protocol is six JSON routes, and a web framework
would add a dependency and an event loop for nothing. Requests are handled on threads, but every
call into the memory system holds one lock, because the systems keep one SQLite connection and
their `build` generators must not interleave. Build is one batch per request: the server takes the
system's first batch and closes the generator (every in-the-box system commits a batch before
yielding it); when that leaves nothing pending it drains the generator instead, so a system that
finishes work after its last batch still gets to.

Bodies are validated with the protocol's pydantic models; every failure is the protocol's error
shape with its status. An optional bearer token is compared in constant time; it is held by the
server (it has to be) but never logged or echoed. Nagle is off so a reply is not held back by
delayed ACKs on loopback.
"""

from __future__ import annotations

import hmac
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

import structlog
from pydantic import BaseModel, ValidationError

from benchledger.adapters.memory.http_protocol import (
    ERROR_STATUS, PROTOCOL_VERSION, BuildReply, BuildRequest, ErrorBody, ErrorReply, Info,
    IngestReply, IngestRequest, PurgeReply, RecallReply, RecallRequest, StateReply,
)
from benchledger.adapters.memory.protocol import MemoryError_, MemorySystem
from benchledger.errors import BadInput, NotAnEvaluationStore

__all__ = ["MemoryServer", "MemoryService", "MAX_BODY_BYTES"]

log = structlog.get_logger("benchledger.serve_memory")

MAX_BODY_BYTES = 256 * 1024 * 1024


class _HttpError(Exception):
    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type, self.message = error_type, message


class MemoryService:
    """The protocol's operations over one memory system, serialised by one lock."""

    def __init__(self, memory: MemorySystem) -> None:
        self.memory = memory
        self.lock = threading.Lock()

    def info(self) -> Info:
        return Info(name=self.memory.name, version=str(self.memory.version), protocol=PROTOCOL_VERSION,
                    model=getattr(self.memory, "model", None))

    def ingest(self, scope: str, request: IngestRequest) -> IngestReply:
        with self.lock:
            new = self.memory.ingest(scope, request.documents)
            return IngestReply(new=new, documents=self.memory.state(scope).documents)

    def build(self, scope: str, request: BuildRequest) -> BuildReply:
        with self.lock:
            batches = iter(self.memory.build(scope, request.batch_size))
            try:
                extracted = list(next(batches, []))
                pending = self.memory.state(scope).pending_chunks
                if pending == 0:
                    for more in batches:
                        extracted.extend(more)
                    pending = self.memory.state(scope).pending_chunks
            finally:
                close = getattr(batches, "close", None)
                if close is not None:
                    close()
        return BuildReply(extracted=extracted, pending=pending)

    def state(self, scope: str) -> StateReply:
        with self.lock:
            state = self.memory.state(scope)
        return StateReply(documents=state.documents, pending_chunks=state.pending_chunks)

    def recall(self, scope: str, request: RecallRequest) -> RecallReply:
        with self.lock:
            candidates = self.memory.recall(
                scope, request.query, asking_user=request.asking_user, k=request.k,
                token_budget=request.token_budget, question_time=request.question_time)
        return RecallReply(candidates=candidates)

    def purge(self, scope: str) -> PurgeReply:
        with self.lock:
            return PurgeReply(removed=self.memory.purge(scope))

    def close(self) -> None:
        with self.lock:
            self.memory.close()


# (method, action) -> (request model or None, operation); action None is the scope itself.
_SCOPE_ROUTES: dict[tuple[str, str | None], tuple[type[BaseModel] | None, str]] = {
    ("POST", "documents"): (IngestRequest, "ingest"),
    ("POST", "build"): (BuildRequest, "build"),
    ("GET", "state"): (None, "state"),
    ("POST", "recall"): (RecallRequest, "recall"),
    ("DELETE", None): (None, "purge"),
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the stdlib's signature
        log.debug("request", line=format % args)

    def _handle(self, method: str) -> None:
        self._body_read = False
        try:
            self._check_token()
            reply = self._dispatch(method)
        except _HttpError as err:
            self._send_error(err.error_type, err.message)
            return
        except Exception as err:
            self._send_error(*_describe(err))
            return
        self._send(200, reply)

    def _send(self, status: int, reply: BaseModel) -> None:
        if not self._body_read:  # an unread body would be parsed as the next request on this connection
            self._drain_body()
        body = reply.model_dump_json().encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if status == 401:
            self.send_header("WWW-Authenticate", "Bearer")
        self.end_headers()
        self.wfile.write(body)

    def _check_token(self) -> None:
        expected = self.server.token
        if expected is None:
            return
        given = self.headers.get("Authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(value.encode(), expected.encode()):
            raise _HttpError("unauthorized", "missing or wrong bearer token")

    def _dispatch(self, method: str) -> BaseModel:
        parts = urlsplit(self.path).path.rstrip("/").split("/")
        service = self.server.service
        if parts == ["", "v1", "info"]:
            if method != "GET":
                raise _HttpError("method_not_allowed", f"{method} {self.path}: use GET")
            return service.info()
        if len(parts) not in (4, 5) or parts[:3] != ["", "v1", "scopes"] or not parts[3]:
            raise _HttpError("not_found", f"no route {method} {self.path}; see GET /v1/info")
        scope, action = unquote(parts[3]), (parts[4] if len(parts) == 5 else None)
        route = _SCOPE_ROUTES.get((method, action))
        if route is None:
            known = any(a == action for _, a in _SCOPE_ROUTES)
            raise _HttpError("method_not_allowed" if known else "not_found", f"no route {method} {self.path}")
        request_model, operation = route
        call: Callable = getattr(service, operation)
        if request_model is None:
            return call(scope)
        return call(scope, request_model.model_validate_json(self._read_body()))

    def _read_body(self) -> bytes:
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self._body_read, self.close_connection = True, True
            raise _HttpError("bad_request", "a JSON body with Content-Length is required")
        if int(length) > MAX_BODY_BYTES:
            self._body_read, self.close_connection = True, True
            raise _HttpError("payload_too_large", f"body of {length} bytes; send at most {MAX_BODY_BYTES}")
        self._body_read = True
        return self.rfile.read(int(length))

    def _drain_body(self) -> None:
        self._body_read = True
        length = self.headers.get("Content-Length", "0")
        if length.isdigit() and 0 < int(length) <= MAX_BODY_BYTES:
            self.rfile.read(int(length))
        elif length != "0":
            self.close_connection = True

    def _send_error(self, error_type: str, message: str) -> None:
        self._send(ERROR_STATUS[error_type], ErrorReply(error=ErrorBody(type=error_type, message=message)))


def _describe(err: Exception) -> tuple[str, str]:
    """The protocol's error type and message for an exception raised while serving a request."""
    if isinstance(err, ValidationError):
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "body"
        return "bad_request", f"field '{where}': {first['msg']} ({err.error_count()} error(s) in the body)"
    if isinstance(err, BadInput):
        return "bad_request", str(err)
    if isinstance(err, NotAnEvaluationStore):
        return "not_an_evaluation_store", str(err)
    if isinstance(err, MemoryError_):
        return "memory_error", f"{type(err).__name__}: {err}"
    # The served system failed in some other way; the client sees a 500 and may retry.
    log.warning("memory system raised", error=type(err).__name__)
    return "internal", f"{type(err).__name__}: {err}"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    service: MemoryService
    token: str | None


class _Server6(_Server):
    address_family = socket.AF_INET6


class MemoryServer:
    """A memory system on a loopback (by default) HTTP server.

    `MemoryServer(memory, port=0)` binds at once (port 0 picks a free one, see `url`);
    `serve_forever()` blocks, `start()` serves on a background thread, `close()` stops and closes
    the memory system. Also a context manager that starts and closes.
    """

    def __init__(self, memory: MemorySystem, *, host: str = "127.0.0.1", port: int = 0,
                 token: str | None = None) -> None:
        self.service = MemoryService(memory)
        server_class = _Server6 if ":" in host else _Server
        self._server = server_class((host, port), _Handler)
        self._server.service, self._server.token = self.service, token or None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        host = f"[{host}]" if ":" in str(host) else host
        return f"http://{host}:{port}"

    def serve_forever(self) -> None:
        self._server.serve_forever(poll_interval=0.1)

    def start(self) -> MemoryServer:
        self._thread = threading.Thread(target=self.serve_forever, name="memory-server", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving (if serving), release the socket, close the memory system."""
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()
        self.service.close()

    def __enter__(self) -> MemoryServer:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.close()
