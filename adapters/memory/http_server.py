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

The server protects itself from clients that are slow, greedy or hostile, so that a well-behaved
client is still served:

- Refused before the body is read. A request without the valid token gets 401, and one whose
  Content-Length is missing or over `max_body_bytes` (8 MiB by default, room for an ingest batch
  of 1,000 long documents) gets 400 or 413, before one byte of its body is read; the connection
  is then closed. Only an accepted request's body is read, and only up to its declared length.
- Reads time out. Every read waits at most `read_timeout` seconds (also how long an idle
  keep-alive connection is kept), and the whole request (line, headers, body) must arrive within
  `request_timeout` of its first byte, so a half-sent or trickled request cannot hold a thread
  for long. A timed-out connection is closed without a reply.
- Concurrent connections are capped at `max_connections`. One more is answered at once, from the
  accepting thread, with 503 `busy` and `Retry-After: 1`, and closed; the benchledger client
  retries a 503 after that wait. Refusing fast rather than queueing keeps a flood from piling up
  threads or sockets, and keeps the server's memory bounded by `max_connections` requests.
"""

from __future__ import annotations

import hmac
import io
import socket
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

import structlog
from pydantic import BaseModel, ValidationError

from benchledger.adapters.memory.http_protocol import (
    ERROR_STATUS, PROTOCOL_VERSION, BuildReply, BuildRequest, ErrorBody, ErrorReply, Info,
    IngestReply, IngestRequest, PurgeReply, RecallReply, RecallRequest, StateReply,
)
from benchledger.adapters.memory.protocol import MemorySystemError, MemorySystem
from benchledger.errors import BadInput, NotAnEvaluationStore

__all__ = [
    "MemoryServer", "MemoryService", "DEFAULT_MAX_BODY_BYTES", "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_READ_TIMEOUT", "DEFAULT_REQUEST_TIMEOUT",
]

log = structlog.get_logger("benchledger.serve_memory")

DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024
DEFAULT_MAX_CONNECTIONS = 64
DEFAULT_READ_TIMEOUT = 10.0
DEFAULT_REQUEST_TIMEOUT = 60.0


class _HttpError(Exception):
    def __init__(self, error_type: str, message: str, *, close: bool = False) -> None:
        super().__init__(message)
        self.error_type, self.message = error_type, message
        self.close = close  # refused before its body was read: answer, then close the connection


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


class _DeadlineReader(io.RawIOBase):
    """A connection's bytes, each read waiting at most `read_timeout`, and a whole request's
    bytes due within `request_timeout` of its first one (`start_request` re-arms that clock)."""

    def __init__(self, raw: io.RawIOBase, sock: socket.socket, read_timeout: float,
                 request_timeout: float) -> None:
        super().__init__()
        self._raw, self._sock = raw, sock
        self._read_timeout, self._request_timeout = read_timeout, request_timeout
        self._deadline: float | None = None

    def start_request(self) -> None:
        self._deadline = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int | None:
        timeout = self._read_timeout
        if self._deadline is not None:
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the request was not sent within the request timeout")
            timeout = min(timeout, left)
        self._sock.settimeout(timeout)
        count = self._raw.readinto(buffer)
        if count and self._deadline is None:
            self._deadline = time.monotonic() + self._request_timeout
        return count

    def close(self) -> None:
        self._raw.close()
        super().close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def setup(self) -> None:
        self.timeout = self.server.read_timeout  # type: ignore[misc]  # per connection: StreamRequestHandler reads it in setup()
        super().setup()
        self._reader = _DeadlineReader(self.rfile.detach(), self.connection, self.server.read_timeout,
                                       self.server.request_timeout)
        self.rfile = io.BufferedReader(self._reader)

    def handle_one_request(self) -> None:
        self._reader.start_request()
        super().handle_one_request()  # a TimeoutError in there closes the connection without a reply

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
        except TimeoutError:
            raise
        except _HttpError as err:
            self._send_error(err.error_type, err.message, close=err.close)
            return
        except Exception as err:
            self._send_error(*_describe(err))
            return
        self._send(200, reply)

    def _send(self, status: int, reply: BaseModel, *, close: bool = False) -> None:
        self.connection.settimeout(self.server.read_timeout)  # the deadline was for reading
        if close:
            self.close_connection = True
        elif not self._body_read:  # an unread body would be parsed as the next request on this connection
            self._drain_body()
        body = reply.model_dump_json().encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if status == 401:
            self.send_header("WWW-Authenticate", "Bearer")
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def _check_token(self) -> None:
        expected = self.server.token
        if expected is None:
            return
        given = self.headers.get("Authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(value.encode(), expected.encode()):
            raise _HttpError("unauthorized", "missing or wrong bearer token", close=True)

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

    def _declared_length(self) -> int | None:
        """The body's Content-Length when it is one this server will read, else None."""
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit() or int(length) > self.server.max_body_bytes:
            return None
        return int(length)

    def _read_body(self) -> bytes:
        length = self._declared_length()
        if length is None:
            given = self.headers.get("Content-Length")
            if given is not None and given.isdigit():
                raise _HttpError("payload_too_large", f"body of {given} bytes; send at most "
                                 f"{self.server.max_body_bytes} (serve-memory --max-body-bytes)", close=True)
            raise _HttpError("bad_request", "a JSON body with Content-Length is required", close=True)
        self._body_read = True
        body = self.rfile.read(length)
        if len(body) < length:
            raise _HttpError("bad_request", f"the body ended after {len(body)} of {length} bytes", close=True)
        return body

    def _drain_body(self) -> None:
        self._body_read = True
        if self.headers.get("Content-Length", "0") == "0":
            return
        length = self._declared_length()
        if length is None:
            self.close_connection = True
            return
        while length > 0 and (chunk := self.rfile.read(min(length, 64 * 1024))):
            length -= len(chunk)

    def _send_error(self, error_type: str, message: str, *, close: bool = False) -> None:
        self._send(ERROR_STATUS[error_type], ErrorReply(error=ErrorBody(type=error_type, message=message)),
                   close=close)


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
    if isinstance(err, MemorySystemError):
        return "memory_error", f"{type(err).__name__}: {err}"
    # The served system failed in some other way; the client sees a 500 and may retry.
    log.warning("memory system raised", error=type(err).__name__)
    return "internal", f"{type(err).__name__}: {err}"


def _busy_reply(max_connections: int) -> bytes:
    body = ErrorReply(error=ErrorBody(type="busy", message=f"already serving {max_connections} connections; "
                                      "retry after 1 s")).model_dump_json().encode()
    head = (f"HTTP/1.1 {ERROR_STATUS['busy']} Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n")
    return head.encode() + body


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # a burst of connects waits in the kernel's backlog, not dropped
    service: MemoryService
    token: str | None
    max_body_bytes: int
    read_timeout: float
    request_timeout: float

    def limit_connections(self, max_connections: int) -> None:
        self._slots = threading.BoundedSemaphore(max_connections)
        self._busy = _busy_reply(max_connections)
        self._open, self._open_lock = 0, threading.Lock()

    @property
    def open_connections(self) -> int:
        return self._open

    def _take_slot(self) -> bool:
        if not self._slots.acquire(blocking=False):
            return False
        with self._open_lock:
            self._open += 1
        return True

    def _free_slot(self) -> None:
        with self._open_lock:
            self._open -= 1
        self._slots.release()

    def process_request(self, request, client_address) -> None:
        if not self._take_slot():
            self._refuse_busy(request)
            return
        try:
            super().process_request(request, client_address)  # starts the connection's thread
        except BaseException:
            self._free_slot()
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._free_slot()

    def _refuse_busy(self, request: socket.socket) -> None:
        """Answer 503 without blocking the accepting thread, and close."""
        request.setblocking(False)
        try:
            request.send(self._busy)
            for _ in range(16):  # what the client already sent, so that closing does not reset the reply
                if not request.recv(64 * 1024):
                    break
        except OSError:
            pass
        self.shutdown_request(request)

    def handle_error(self, request, client_address) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, OSError):  # a client that hung up or stalled mid-request: routine here
            log.debug("connection dropped", error=type(error).__name__)
        else:
            log.warning("request failed", error=type(error).__name__, message=str(error))


class _Server6(_Server):
    address_family = socket.AF_INET6


class MemoryServer:
    """A memory system on a loopback (by default) HTTP server.

    `MemoryServer(memory, port=0)` binds at once (port 0 picks a free one, see `url`);
    `serve_forever()` blocks, `start()` serves on a background thread, `close()` stops and closes
    the memory system. Also a context manager that starts and closes. The limits are described in
    the module docstring.
    """

    def __init__(self, memory: MemorySystem, *, host: str = "127.0.0.1", port: int = 0,
                 token: str | None = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
                 max_connections: int = DEFAULT_MAX_CONNECTIONS, read_timeout: float = DEFAULT_READ_TIMEOUT,
                 request_timeout: float = DEFAULT_REQUEST_TIMEOUT) -> None:
        for name, value in (("max-body-bytes", max_body_bytes), ("max-connections", max_connections),
                            ("read-timeout", read_timeout), ("request-timeout", request_timeout)):
            if value <= 0:
                raise BadInput(f"must be positive, not {value}", field=name)
        self.service = MemoryService(memory)
        server_class = _Server6 if ":" in host else _Server
        self._server = server_class((host, port), _Handler)
        self._server.service, self._server.token = self.service, token or None
        self._server.max_body_bytes = max_body_bytes
        self._server.read_timeout, self._server.request_timeout = read_timeout, request_timeout
        self._server.limit_connections(max_connections)
        self._thread: threading.Thread | None = None

    @property
    def open_connections(self) -> int:
        """Connections accepted and being served right now (at most `max_connections`)."""
        return self._server.open_connections

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        shown = host.decode() if isinstance(host, bytes) else str(host)
        shown = f"[{shown}]" if ":" in shown else shown
        return f"http://{shown}:{port}"

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
