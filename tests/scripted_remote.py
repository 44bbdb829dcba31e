"""A scripted memory remote for tests: a real HTTP server on 127.0.0.1 whose replies a test writes.

`Remote(upstream=url)` forwards every request (with its Authorization header) to a real memory
server unless `script(method, path, body)` returns a reply, so a test tampers with exactly one
route; `Remote()` with no upstream answers 404 to anything unscripted.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2

__all__ = ["Remote", "Reply", "Streamed"]


class Streamed:
    """A reply body of `total` bytes written `chunk` bytes at a time, never held whole."""

    def __init__(self, total: int, *, chunk: int = 1 << 20, declare_length: bool = False) -> None:
        self.total, self.chunk, self.declare_length = total, chunk, declare_length

    def chunks(self):
        block = b"[" + b" " * (self.chunk - 1)
        sent = 0
        while sent < self.total:
            piece = block[: min(self.chunk, self.total - sent)]
            yield piece
            sent += len(piece)


Reply = tuple[int, "bytes | Streamed"]


class Remote:
    """A scripted HTTP server: `script(method, path, body)` returns a reply, or None to forward.

    A reply with status 0 closes the connection without answering. A reply whose payload is a
    `Streamed` body is written chunk by chunk (with the Content-Length it declares, if any, and the
    connection closed after it); `streamed_bytes` counts what the server managed to write.
    """

    def __init__(self, upstream: str | None = None) -> None:
        self.upstream = upstream
        self.script: Callable[[str, str, bytes], Reply | None] = lambda *_: None
        self.seen: list[tuple[str, str, str | None]] = []
        self.streamed_bytes = 0
        remote = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _any(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                authorization = self.headers.get("Authorization")
                remote.seen.append((self.command, self.path, authorization))
                status, payload = remote.reply(self.command, self.path, body, authorization)
                if status == 0:  # hang up without a reply, as a crashing server would
                    self.close_connection = True
                    return
                self.send_response(status)
                if isinstance(payload, Streamed):
                    self._stream(payload)
                    return
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _stream(self, body: Streamed) -> None:
                if body.declare_length:
                    self.send_header("Content-Length", str(body.total))
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                try:
                    for piece in body.chunks():
                        self.wfile.write(piece)
                        remote.streamed_bytes += len(piece)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading, as it should past its limit

            do_GET = do_POST = do_DELETE = _any

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._forward = httpx2.Client(verify=False, timeout=10)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def reply(self, method: str, path: str, body: bytes, authorization: str | None = None) -> Reply:
        scripted = self.script(method, path, body)
        if scripted is not None:
            return scripted
        if self.upstream is None:
            return 404, b'{"error": {"type": "not_found", "message": "scripted remote"}}'
        forwarded = self._forward.request(method, self.upstream + path, content=body or None,
                                          headers={"Authorization": authorization} if authorization else {})
        return forwarded.status_code, forwarded.content

    def count(self, suffix: str) -> int:
        return sum(1 for _, path, _ in self.seen if path.endswith(suffix))

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._forward.close()

    def __enter__(self) -> Remote:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
