"""A model endpoint's reply has a size limit (`max_reply_bytes`): read in chunks through the SDK up to it,
refused in one line as soon as it passes it (nothing further read, not asked again), and parsed within
a depth limit; in a run that refusal is an operational failure (`test_reliability_model_faults.py` runs
the loopback's `oversized` fault through whole runs and resumes)."""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from benchledger.adapters.models.base import ModelParseError
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.adapters.models.openai_chat import ChatClient
from benchledger.adapters.models.reply_limit import ReplyTooLarge, proxy_for
from benchledger.json_input import MAX_DEPTH
from benchledger.settings import ModelCalls, RunSettings

KEY = "sk-test-reply-limit-0000"
MiB = 1 << 20
ASK = [{"role": "user", "content": "hi"}]


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def completion(content: str = "Final: ok", **extra: object) -> bytes:
    return json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop"}], **extra}).encode()


class Fixed:
    """What the one-reply server answers, and what it saw."""

    def __init__(self) -> None:
        self.body, self.headers, self.chunked = b"", {}, False
        self.requests, self.accept_encoding = 0, []


@contextmanager
def one_reply_server() -> Iterator[tuple[str, Fixed]]:
    """A real HTTP server on 127.0.0.1 that answers every POST with `Fixed.body` as the test sets it:
    with its Content-Length, or chunked (no length, as a stream), and any extra headers."""
    fixed = Fixed()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            fixed.requests += 1
            fixed.accept_encoding.append(self.headers.get("Accept-Encoding"))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            for name, value in fixed.headers.items():
                self.send_header(name, value)
            if fixed.chunked:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for start in range(0, len(fixed.body), 7):  # small chunks: the limit falls inside one
                    piece = fixed.body[start:start + 7]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.write(b"0\r\n\r\n")
            else:
                self.send_header("Content-Length", str(len(fixed.body)))
                self.end_headers()
                self.wfile.write(fixed.body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", fixed
    finally:
        server.shutdown()
        server.server_close()


def client(base_url: str, **calls: object) -> ChatClient:
    return ChatClient(ModelCalls(base_url=base_url, max_attempts=3, backoff_base=0.01, **calls))  # type: ignore[arg-type]


@pytest.mark.parametrize("chunked", [False, True], ids=["declared-length", "streamed"])
def test_a_reply_at_the_limit_is_read_and_one_byte_over_is_refused_once(chunked: bool) -> None:
    with one_reply_server() as (url, fixed):
        fixed.body, fixed.chunked = completion(), chunked
        assert client(url, max_reply_bytes=len(fixed.body)).complete(model="m", messages=ASK).text == "Final: ok"
        with pytest.raises(ReplyTooLarge) as refused:
            client(url, max_reply_bytes=len(fixed.body) - 1).complete(model="m", messages=ASK)
        assert fixed.requests == 2, "a reply too large is not asked again"
    said = str(refused.value)
    assert "\n" not in said and said.startswith(f"m: {url}/chat/completions: the reply ")
    if chunked:
        assert said.endswith(f"passed the limit of {len(fixed.body) - 1:,} bytes (max_reply_bytes); "
                             "nothing past it was read")
    else:
        assert said.endswith(f"declares {len(fixed.body):,} bytes, over the limit of {len(fixed.body) - 1:,} "
                             "(max_reply_bytes); none of it was read")


def test_a_200_mb_reply_stops_at_the_default_limit_and_is_not_retried(loopback: LoopbackOpenAI) -> None:
    loopback.faults.push("oversized")  # 200 MB of content, chunked
    chat = client(loopback.base_url)
    assert chat.max_reply_bytes == ModelCalls().max_reply_bytes == RunSettings().max_reply_bytes == 16 * MiB
    with pytest.raises(ReplyTooLarge, match=r"^m: .*: the reply passed the limit of 16,777,216 bytes"):
        chat.complete(model="m", messages=ASK)
    assert loopback.count() == 1 and chat.stats["attempts"] == 1 and chat.stats["failures"] == 1
    assert loopback.streamed_bytes < 64 * MiB, "the client hung up at its limit instead of reading on"
    assert chat.complete(model="m", messages=ASK).text.endswith("Final: ok"), "the next call is read as usual"


def test_an_oversized_reply_within_the_limit_is_an_ordinary_reply(loopback: LoopbackOpenAI) -> None:
    loopback.faults.push("oversized", size=MiB)
    assert client(loopback.base_url, max_reply_bytes=2 * MiB).complete(model="m", messages=ASK).text == "x" * MiB


def test_a_compressed_reply_is_refused_since_its_size_could_not_be_bounded() -> None:
    with one_reply_server() as (url, fixed):
        fixed.body, fixed.headers = gzip.compress(completion()), {"Content-Encoding": "gzip"}
        with pytest.raises(ReplyTooLarge, match=r"compressed \('gzip'\) though the client asked for it uncompressed"):
            client(url).complete(model="m", messages=ASK)
        assert fixed.accept_encoding == ["identity"] and fixed.requests == 1


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth, read", [(MAX_DEPTH, True), (MAX_DEPTH + 1, False), (100_000, False)])
def test_a_reply_nested_past_the_depth_limit_is_a_parse_failure_not_a_recursion_error(depth: int, read: bool) -> None:
    # `depth` levels in all: the completion's object, then lists under its key "extra"
    body = completion().replace(b'"finish_reason": "stop"}]', b'"finish_reason": "stop"}], "extra": ' +
                                nested(depth - 1).encode(), 1)
    with one_reply_server() as (url, fixed):
        fixed.body = body
        if read:
            assert client(url).complete(model="m", messages=ASK).text == "Final: ok"
            return
        with pytest.raises(ModelParseError, match=f"nested deeper than the limit of {MAX_DEPTH} levels") as refused:
            client(url).complete(model="m", messages=ASK)
        assert fixed.requests == 1 and "\n" not in str(refused.value)


def test_model_calls_go_through_the_proxy_the_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy",
                 "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert proxy_for("https://api.example.com/v1") is None
    monkeypatch.setenv("HTTPS_PROXY", "http://user:pw@proxy.example:3128")
    assert proxy_for("https://api.example.com/v1") == "http://user:pw@proxy.example:3128"
    assert proxy_for("http://api.example.com/v1") is None
    monkeypatch.setenv("NO_PROXY", "api.example.com")
    assert proxy_for("https://api.example.com/v1") is None


def test_the_limit_is_a_run_option_recorded_with_the_run_and_checked(loopback: LoopbackOpenAI, tmp_path) -> None:
    from conftest import MINI
    from ledger_cli import events_of, invoke

    ask = ["run", "groupmem", str(MINI), "--domain", "Demo", "--kinds", "multi_hop", "--question-limit", "1",
           "--agent-model", "m", "--base-url", loopback.base_url, "--out", str(tmp_path / "r.json")]
    refused = invoke(*ask, "--max-reply-bytes", "0")
    assert refused.exit_code == 2 and "--max-reply-bytes" in refused.output
    result = invoke(*ask, "--max-reply-bytes", "100")  # every reply declares more
    assert result.exit_code == 3, result.output
    run_id = json.loads((tmp_path / "r.json").read_text())["run_id"]
    events = events_of(run_id)
    assert events[0].config.settings.max_reply_bytes == 100
    [failed] = [e for e in events if e.type == "Failed"]
    assert (failed.stage, failed.error_class) == ("answer", "ReplyTooLarge")
    assert "over the limit of 100 (max_reply_bytes); none of it was read" in failed.message
