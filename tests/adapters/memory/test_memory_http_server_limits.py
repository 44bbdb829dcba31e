"""The memory server against clients that are greedy, slow or hostile, on loopback and bounded.

Raw sockets speak to a real `MemoryServer` (in-process, or `benchledger serve-memory` as a
subprocess whose resident memory is read from /proc): a request without the token is refused
before its body is read and its connection closed; an over-long body is refused unread; a
half-sent or trickled request is cut off by the read and request timeouts; connections beyond the
cap are answered 503 at once; and all the while a well-behaved client is served.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest

from benchledger.adapters.memory.http_client import HttpMemory
from benchledger.adapters.memory.http_protocol import scope_path
from benchledger.adapters.memory.http_server import MemoryServer
from benchledger.adapters.memory.registry import open_memory
from conftest import wait_until
from benchledger.testing.memory_contract import SCOPE, contract_corpus

TOKEN = "mtok-limits-4c2e9a7b1d"
MiB = 1024 * 1024
DOCUMENTS = scope_path(SCOPE, "documents")


def address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


def connect(url: str, first_bytes: bytes = b"") -> socket.socket:
    sock = socket.create_connection(address(url), timeout=5)
    if first_bytes:
        sock.sendall(first_bytes)
    return sock


def post_head(length: int, *, token: str | None = None) -> bytes:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (f"POST {DOCUMENTS} HTTP/1.1\r\nHost: memory\r\nContent-Type: application/json\r\n{auth}"
            f"Content-Length: {length}\r\n\r\n").encode()


def read_reply(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (or stops for 5 s)."""
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except (ConnectionResetError, TimeoutError):
        pass
    return b"".join(chunks)


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """True when the server closes (EOF or reset) within `within` seconds, sending nothing more."""
    sock.settimeout(within)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def bytes_accepted(sock: socket.socket, limit: int) -> int:
    """Send up to `limit` bytes of body in 1 MiB chunks; how many went out before the peer was gone."""
    sent, chunk = 0, b"x" * MiB
    sock.settimeout(5)
    try:
        while sent < limit:
            sock.sendall(chunk)
            sent += len(chunk)
    except (BrokenPipeError, ConnectionResetError, TimeoutError):
        pass
    return sent


def client(url: str, tmp_path: Path, **options) -> HttpMemory:
    return HttpMemory(tmp_path / "unused.db", url=url, backoff_base=0.01, **options)


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[MemoryServer]:
    with MemoryServer(open_memory("sqlite", tmp_path / "s.db"), token=TOKEN, read_timeout=0.5,
                      request_timeout=1.5, max_body_bytes=64 * 1024) as server:
        yield server


def test_no_token_is_refused_before_the_body_and_the_connection_closed(guarded: MemoryServer) -> None:
    sock = connect(guarded.url, post_head(256 * MiB))
    reply = read_reply(sock)  # answered from the headers alone: no body was sent
    assert reply.startswith(b"HTTP/1.1 401 ") and b"Connection: close" in reply
    assert b'"type":"unauthorized"' in reply
    assert bytes_accepted(sock, 64 * MiB) < 16 * MiB, "a closed connection takes no body"
    sock.close()


def test_an_over_long_body_is_refused_unread_even_with_the_token(
        guarded: MemoryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sock = connect(guarded.url, post_head(256 * MiB, token=TOKEN))
    reply = read_reply(sock)
    assert reply.startswith(b"HTTP/1.1 413 ") and b"65536" in reply and b"Connection: close" in reply
    sock.close()
    with httpx2.Client(base_url=guarded.url, timeout=5) as http:
        too_long = http.post(DOCUMENTS, content=b"{" + b" " * 70_000 + b"}",
                             headers={"Authorization": f"Bearer {TOKEN}"})
        assert too_long.status_code == 413 and "--max-body-bytes" in too_long.json()["error"]["message"]
    monkeypatch.setenv("LIMITS_TOKEN", TOKEN)
    memory = client(guarded.url, tmp_path, token_env="LIMITS_TOKEN")
    assert memory.ingest(SCOPE, contract_corpus()) == len(contract_corpus())  # a real batch fits


def test_a_half_sent_request_is_cut_off_by_the_read_timeout(guarded: MemoryServer) -> None:
    started = time.monotonic()
    half_headers = connect(guarded.url, f"GET /v1/info HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\n".encode())
    half_body = connect(guarded.url, post_head(1000, token=TOKEN) + b'{"documents": [')
    idle = connect(guarded.url)
    for sock in (half_headers, half_body, idle):
        assert closed_by_server(sock, within=3.0)
        sock.close()
    assert time.monotonic() - started < 3.0


def test_a_trickled_request_is_cut_off_by_the_request_timeout(guarded: MemoryServer) -> None:
    sock = connect(guarded.url, post_head(1000, token=TOKEN))
    started, sent = time.monotonic(), 0
    try:
        while time.monotonic() - started < 5.0 and sent < 1000:  # one byte every 0.2 s: never idle for long
            sock.sendall(b" ")
            sent += 1
            time.sleep(0.2)
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert sent < 100 and time.monotonic() - started < 4.0, "the 1.5 s request timeout ends the trickle"
    assert closed_by_server(sock, within=2.0)
    sock.close()


def test_connections_over_the_cap_get_a_fast_503_and_the_client_retries(tmp_path: Path) -> None:
    with MemoryServer(open_memory("sqlite", tmp_path / "s.db"), max_connections=2, read_timeout=5) as server:
        holders = [connect(server.url) for _ in range(2)]
        wait_until(lambda: server.open_connections == 2, within=10, what="both holders accepted, holding a slot")
        started = time.monotonic()
        with httpx2.Client(base_url=server.url, timeout=5) as http:
            busy = http.get("/v1/info")
        assert time.monotonic() - started < 1.0
        assert busy.status_code == 503 and busy.headers["Retry-After"] == "1"
        assert busy.json()["error"]["type"] == "busy"

        threading.Timer(0.3, lambda: [sock.close() for sock in holders]).start()
        started = time.monotonic()
        memory = client(server.url, tmp_path, max_attempts=3)  # 503, then Retry-After, then served
        assert memory.state(SCOPE).documents == 0
        assert time.monotonic() - started >= 1.0, "the server's Retry-After is the floor of the wait"


@contextmanager
def serve_memory_process(tmp_path: Path, *args: str) -> Iterator[tuple[str, int]]:
    """`benchledger serve-memory --port 0 ...` as a subprocess: (its URL, its pid); SIGTERM after."""
    proc = subprocess.Popen([sys.executable, "-m", "benchledger.cli.main", "serve-memory", "--memory", "sqlite",
                             "--port", "0", "--store", str(tmp_path / "served.sqlite"), *args],
                            cwd=tmp_path, env={**os.environ, "SERVE_TOKEN": TOKEN},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        found = re.search(r"at (http://127\.0\.0\.1:\d+)$", proc.stdout.readline().strip())
        assert found, proc.stderr.read() if proc.poll() is not None else "no URL on the first line"
        yield found.group(1), proc.pid
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)


def resident_mb(pid: int) -> dict[str, float]:
    """VmRSS (now) and VmHWM (the peak) of a process, in MB, from /proc."""
    status = Path(f"/proc/{pid}/status").read_text()
    return {name: int(re.search(rf"^{name}:\s+(\d+) kB", status, re.M).group(1)) / 1024
            for name in ("VmRSS", "VmHWM")}


@pytest.mark.slow
def test_a_bounded_flood_keeps_memory_low_and_a_good_client_served(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUN_TOKEN", TOKEN)
    with serve_memory_process(tmp_path, "--token-env", "SERVE_TOKEN", "--read-timeout", "2") as (url, pid):
        before = resident_mb(pid)["VmRSS"]
        greedy = [connect(url, post_head(256 * MiB)) for _ in range(4)]       # no token, 256 MiB each
        half_sent = [connect(url, f"POST {DOCUMENTS} HTTP/1.1\r\nContent-Le".encode()) for _ in range(50)]
        for sock in greedy:
            reply = read_reply(sock)
            assert reply.startswith(b"HTTP/1.1 401 "), reply[:80]
            assert bytes_accepted(sock, 256 * MiB) < 32 * MiB
            sock.close()

        memory = client(url, tmp_path, token_env="RUN_TOKEN", timeout=5)  # served while 50 are held
        assert memory.ingest(SCOPE, contract_corpus()) == len(contract_corpus())
        assert memory.state(SCOPE).documents == len(contract_corpus())
        memory.close()

        assert all(closed_by_server(sock, within=6.0) for sock in half_sent), "the read timeout frees them"
        for sock in half_sent:
            sock.close()
        usage = resident_mb(pid)
    assert usage["VmHWM"] < 200, f"peak resident memory {usage} (started at {before:.0f} MB)"
