"""A real OpenAI-compatible HTTP server on 127.0.0.1, deterministic, with scripted faults.

Run tests, benchmarks and examples use it to exercise the real client path (the `openai` SDK,
real sockets) with no network:

    with LoopbackOpenAI(latency=0.0) as srv:
        os.environ["OPENAI_API_KEY"] = "sk-test-..."
        build_models(agent_model="loopback-agent", judge_model=None, protocol="reference",
                     calls=ModelCalls(base_url=srv.base_url), cache=None)
        srv.faults.push("429", retry_after=1)        # the next request is rate limited
        srv.faults.always("500", contains="What is the deadline")  # that question always fails
        srv.count(role="agent"), srv.count(model="loopback-agent", role="judge")

Endpoints: `POST /v1/chat/completions`, `POST /v1/embeddings` and `GET /v1/models`. Any model name
is accepted. The
role is read from the user prompt: "Retrieved passages:" means the agent, "Gold Answer:" or
"Evaluation Question:" (a Memora criterion) the judge. The agent answers extractively from the
passages in its prompt (the offline answerer's logic); the judge judges lexically (the offline
judge's logic; a gold answer that abstains makes it an abstention question; a criterion is
answered by `lexical_criterion`). Prose replies end with a `Final:` line; a request with a
`json_schema` response_format gets `{answer, abstained}`, `{correct, reason}` or, for a
criterion, `{answer: yes|no, reason}` JSON. The benchmarks' official prompts are read and answered
in their official shapes by `adapters.models.loopback_official`, and an action benchmark's prompt
with the offline agent's tool call (`adapters.models.loopback_actions`: a `tool_calls` entry when the
request offers tools, else the JSON call).

What a memory system asks its own model (no benchmark prompt) is answered by
`adapters.models.loopback_extract`: `json_object` with mem0's extraction shape, `json_schema` with
an instance of the request's schema built from the input's sentences, `tools` with a `tool_calls`
reply. `/v1/embeddings` embeds with a model shipped in a wheel (`adapters.models.loopback_embeddings`,
WordLlama, 256-d, `dimensions` 64/128/256 honoured).

Attributes tests read:
  base_url                 "http://127.0.0.1:<port>/v1" ("https://..." when started with `tls`, a server
                           SSLContext holding the certificate to present)
  faults                   a `FaultScript` (see `adapters.models.loopback_faults` for the kinds)
  latency                  seconds added to every chat reply (settable; for concurrency benchmarks), or
                           a function returning them per reply (a long-tailed distribution)
  limits                   a `RateLimit` (`adapters.models.loopback_limits`) the chat requests must fit,
                           refused with 429 and the provider's rate-limit headers (None: no limit)
  count(model=, role=)     chat requests received, faulted ones included (role "embed": embedding
                           requests; "other": a memory system's own extraction calls)
  authorization_seen       the Authorization header of every request, in order
  requests                 every chat request body received, in order (none with keep_bodies=False,
                           for long benchmarks)
  max_in_flight            the most chat requests handled at the same time
  streamed_bytes           body bytes an `oversized` fault got onto the connection before the client
                           hung up (or all of them)
"""

from __future__ import annotations

import base64
import json
import re
import socket
import ssl
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from benchledger.adapters.memory.protocol import estimate_tokens
from benchledger.adapters.models.abstention import is_abstention
from benchledger.adapters.models.loopback_actions import action_reply, is_action_prompt
from benchledger.adapters.models.loopback_embeddings import EmbeddingRefused, embed
from benchledger.adapters.models.loopback_extract import input_sentences, json_object_reply, schema_instance, tool_call
from benchledger.adapters.models.loopback_faults import Fault, FaultScript
from benchledger.adapters.models.loopback_limits import RateLimit
from benchledger.adapters.models.loopback_official import official_reply, official_role
from benchledger.adapters.models.offline import extractive_answer, lexical_criterion, lexical_verdict

__all__ = ["LoopbackOpenAI", "reply_for", "role_of"]

_QUESTION = re.compile(r"Question:\n(.*?)\n\n(?:Retrieved passages|Gold Answer):\n", re.DOTALL)
_PASSAGES = re.compile(r"Retrieved passages:\n(.*?)\n\nAnswer the question", re.DOTALL)
_GOLD = re.compile(r"Gold Answer:\n(.*?)\n\nAgent Answer:\n(.*)\Z", re.DOTALL)
_CRITERION = re.compile(r"Candidate Answer:\n(.*?)\n\nEvaluation Question:\n(.*)\Z", re.DOTALL)
_PASSAGE_SPLIT = re.compile(r"\n\n(?=\[\d+\] )")
_PASSAGE_HEAD = re.compile(r"\A\[\d+\] (?:\[[^\n]*\]\n)?")


def role_of(prompt: str) -> str:
    if "Gold Answer:" in prompt or "Evaluation Question:" in prompt:
        return "judge"
    if "Retrieved passages:" in prompt or is_action_prompt(prompt):
        return "agent"
    return official_role(prompt) or "other"


def _user_prompt(body: dict) -> str:
    """The last user message (or, as LoCoMo sends gpt-3.5 its query, the last message of any role)."""
    messages = [m for m in body.get("messages", []) if isinstance(m, dict)]
    users = [m.get("content") for m in messages if m.get("role") == "user"] or \
        [m.get("content") for m in messages[-1:]]
    last = users[-1] if users else ""
    if isinstance(last, list):  # content parts (LongMemEval-V2's reader): the text parts, in order
        return "".join(str(part.get("text", "")) for part in last
                       if isinstance(part, dict) and part.get("type") == "text")
    return last if isinstance(last, str) else ""


def _official_faulted(text: str, fault: Fault | None) -> str:
    kind = fault.kind if fault else None
    if kind == "empty":
        return ""
    if kind == "bad_json":
        return '{"answer": "unterminated'
    if kind == "wrong_schema":
        return json.dumps("yes")  # valid JSON, but not the object the official readers expect
    return text


def reply_for(body: dict, *, fault: Fault | None = None) -> str:
    """The deterministic reply text for a chat request (after content-level faults)."""
    if fault is not None and fault.kind == "reply":
        return fault.text
    prompt = _user_prompt(body)
    if (official := official_reply(prompt)) is not None and "Retrieved passages:" not in prompt:
        return _official_faulted(official[1], fault)
    role = role_of(prompt)
    question = (m.group(1) if (m := _QUESTION.search(prompt)) else "").strip()
    typed = (body.get("response_format") or {}).get("type") == "json_schema"
    content: object
    if role == "agent":
        block = m.group(1) if (m := _PASSAGES.search(prompt)) else ""
        passages = [_PASSAGE_HEAD.sub("", p.strip()) for p in _PASSAGE_SPLIT.split(block) if p.strip()]
        answer = extractive_answer(question, passages)
        content, prose = {"answer": answer, "abstained": is_abstention(answer)}, f"Final: {answer}"
        reasoning = f"I compared the question with {len(passages)} retrieved passages."
    elif role == "judge" and (m := _CRITERION.search(prompt)):
        said, reason = lexical_criterion(m.group(2).strip(), m.group(1).strip())
        content, prose = {"answer": said, "reason": reason}, f"Final: {said.capitalize()}"
        reasoning = f"Lexical check of the criterion: {reason}."
    elif role == "judge":
        gold, agent = (m.group(1).strip(), m.group(2).strip()) if (m := _GOLD.search(prompt)) else ("", "")
        verdict, reason = lexical_verdict(question=question, gold=gold, answer=agent, abstention=is_abstention(gold))
        content, prose = {"correct": verdict == "correct", "reason": reason}, f"Final: {verdict.capitalize()}"
        reasoning = f"Lexical comparison with the gold answer: {reason}."
    elif (extracted := _memory_reply(body)) is not None:
        content, prose, reasoning, typed = extracted, json.dumps(extracted), "Extraction.", True
    else:
        content, prose, reasoning = {"answer": "ok", "abstained": False}, "Final: ok", "No benchmark prompt."
    kind = fault.kind if fault else None
    if kind == "empty":
        return ""
    if kind == "no_final":
        return reasoning
    if kind == "bad_json":
        return '{"answer": "unterminated'
    if kind == "wrong_schema":
        return json.dumps({"result": 42})
    return json.dumps(content) if typed else f"{reasoning}\n{prose}"


def _request_tokens(body: dict) -> float:
    """What a request costs a token budget: its messages' estimated tokens plus its completion limit."""
    prompt = sum(len(str(m.get("content") or "")) for m in body.get("messages", []) if isinstance(m, dict)) / 4
    return prompt + float(body.get("max_completion_tokens") or body.get("max_tokens") or 0)


def _memory_reply(body: dict) -> object | None:
    """The JSON a memory system's extraction call asks for, built from its input; None for prose."""
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_object":
        return json_object_reply(body)
    if response_format.get("type") == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
        if isinstance(schema, dict):
            return schema_instance(schema, input_sentences(body))
    return None


def _met(fault: Fault) -> bool:
    """Wait at a `barrier` fault's barrier; False when the other requests never came in time."""
    assert fault.barrier is not None
    try:
        fault.barrier.wait(fault.delay)
    except threading.BrokenBarrierError:
        return False
    return True


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like real endpoints
    disable_nagle_algorithm = True  # headers and body go out separately; Nagle would add ~40 ms
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionError, BrokenPipeError, OSError):
            pass  # the client gave up (timeout) or we reset it on purpose

    def _send_json(self, status: int, payload: object, headers: dict[str, str] | None = None) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_oversized(self, loop: LoopbackOpenAI, model: str, size: int) -> None:
        """A chat completion of `size` bytes of content, chunked (no Content-Length), until the client
        hangs up; never built in memory, so a 200 MB one costs the server one chunk."""
        head = json.dumps({"id": "chatcmpl-oversized", "object": "chat.completion", "created": 0, "model": model,
                           "choices": [{"index": 0, "message": {"role": "assistant", "content": "@"}}]})
        text = head.encode()
        at = text.rindex(b'"@"') + 1  # the content's place: after the model's name, whatever it is
        opening, closing = text[:at], text[at + 1:]
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.close_connection = True
        chunk = b"x" * (64 * 1024)
        try:
            self._chunk(loop, opening)
            for start in range(0, size, len(chunk)):
                self._chunk(loop, chunk[: min(len(chunk), size - start)])
            self._chunk(loop, closing)
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass  # the client hung up at its limit, as it should

    def _chunk(self, loop: LoopbackOpenAI, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        with loop._lock:
            loop.streamed_bytes += len(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/") != "/v1/models":
            return self._send_json(404, {"error": {"message": f"no route {self.path}"}})
        names = sorted(self.server.loopback.models_seen() | {"loopback-1"})
        self._send_json(200, {"object": "list", "data": [
            {"id": n, "object": "model", "created": 0, "owned_by": "loopback"} for n in names]})

    def do_POST(self) -> None:
        route = self.path.rstrip("/")
        if route not in ("/v1/chat/completions", "/v1/embeddings"):
            return self._send_json(404, {"error": {"message": f"no route {self.path}"}})
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            return self._send_json(400, {"error": {"message": "request body is not JSON"}})
        loop = self.server.loopback
        with loop.in_flight():
            if route == "/v1/embeddings":
                self._embed(loop, body)
            else:
                self._complete(loop, body)

    def _embed(self, loop: LoopbackOpenAI, body: dict) -> None:
        model = str(body.get("model", ""))
        loop.record_embedding(model, self.headers.get("Authorization", ""))
        fault = loop.faults.take(role="embed", model=model, prompt=json.dumps(body.get("input", "")))
        if fault is not None and fault.kind == "barrier":
            if not _met(fault):
                return self._send_json(503, {"error": {"message": "injected barrier: the other requests never came",
                                                       "type": "server_error"}})
            fault = None
        if fault is not None and fault.kind in ("500", "503", "429"):
            return self._send_json(int(fault.kind), {"error": {"message": f"injected {fault.kind}", "type": "server_error"}})
        given = body.get("input")
        texts = [given] if isinstance(given, str) else given
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return self._send_json(400, {"error": {"message": "input must be a string or a list of strings",
                                                   "type": "invalid_request_error"}})
        try:
            vectors = embed(texts, body.get("dimensions"))
        except EmbeddingRefused as err:
            return self._send_json(400, {"error": {"message": str(err), "type": "invalid_request_error"}})
        tokens = sum(estimate_tokens(t) for t in texts)
        if body.get("encoding_format") == "base64":  # the openai SDK asks for this unless told otherwise
            vectors = [base64.b64encode(struct.pack(f"<{len(v)}f", *v)).decode() for v in vectors]  # type: ignore[misc]
        self._send_json(200, {"object": "list", "model": model,
                              "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)],
                              "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    def _complete(self, loop: LoopbackOpenAI, body: dict) -> None:
        model, prompt = str(body.get("model", "")), _user_prompt(body)
        role = role_of(prompt)
        loop.record(model, role, body, self.headers.get("Authorization", ""))
        limit_headers: dict[str, str] = {}
        if loop.limits is not None:
            admission = loop.limits.take(_request_tokens(body))
            if not admission.admitted:  # refused at once, as a provider does, before any work
                return self._send_json(429, {"error": {"message": "rate limit reached", "type": "requests",
                                                       "code": "rate_limit_exceeded"}}, admission.headers)
            limit_headers = admission.headers
        fault = loop.faults.take(role=role, model=model, prompt=prompt)
        if fault is not None and fault.kind == "barrier":
            if not _met(fault):
                return self._send_json(503, {"error": {"message": "injected barrier: the other requests never came",
                                                       "type": "server_error"}})
            fault = None
        if delay := (loop.latency() if callable(loop.latency) else loop.latency):
            time.sleep(delay)
        kind = fault.kind if fault else None
        if kind == "429":
            retry = fault.retry_after or 0  # type: ignore[union-attr]
            return self._send_json(429, {"error": {"message": "rate limited", "type": "rate_limit"}},
                                   {"Retry-After": f"{retry:g}"})
        if kind in ("500", "503"):
            return self._send_json(int(kind), {"error": {"message": f"injected {kind}", "type": "server_error"}})
        if kind == "401":
            seen = self.headers.get("Authorization", "")
            said = f"invalid credentials in header {seen}"
            if fault is not None and fault.text:
                said = fault.text.replace("{key}", seen.removeprefix("Bearer "))
            return self._send_json(401, {"error": {"message": said}})
        if kind == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return None
        if kind == "slow":
            time.sleep(fault.delay)  # type: ignore[union-attr]
        if kind == "malformed_body":
            return self._send_json(200, b'{"id": "chatcmpl-broken", "choices": [{"message": ')
        if kind == "oversized":
            return self._send_oversized(loop, model, fault.size)  # type: ignore[union-attr]
        if kind == "no_tools" and body.get("tools"):
            return self._send_json(400, {"error": {"message": "this endpoint does not support tools",
                                                   "type": "invalid_request_error"}})
        acted = action_reply(body, prompt) if role == "agent" else None
        if acted is not None:
            call, text = acted
            if kind in ("reply", "empty", "bad_json"):
                call, text = None, _official_faulted(text, fault) if kind != "reply" else fault.text  # type: ignore[union-attr]
        else:
            call = tool_call(body) if fault is None else None
            text = "" if call else reply_for(body, fault=fault)
        if kind == "echo_key":  # past any message cap: only redacting the whole reply catches it
            token = self.headers.get("Authorization", "").removeprefix("Bearer ")
            text = f"{'Let me think this through carefully. ' * 15}(by the way, I was called with {token}.)\n{text}"
        message: dict = {"role": "assistant", "content": None, "tool_calls": [call]} if call else \
            {"role": "assistant", "content": text}
        prompt_tokens = sum(estimate_tokens(str(m.get("content", ""))) for m in body.get("messages", []))
        completion_tokens = estimate_tokens(call["function"]["arguments"] if call else text) if (call or text) else 0
        if kind == "usage":
            prompt_tokens, completion_tokens = (int(n) for n in fault.text.split(","))  # type: ignore[union-attr]
        self._send_json(200, {
            "id": f"chatcmpl-loopback-{loop.count()}", "object": "chat.completion", "created": int(time.time()),
            "model": fault.text if kind == "other_model" else model,  # type: ignore[union-attr]
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if call else "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }, limit_headers)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    loopback: LoopbackOpenAI


class LoopbackOpenAI:
    """A deterministic OpenAI-compatible server in a background thread (see module docstring)."""

    def __init__(self, *, latency: float | Callable[[], float] = 0.0, keep_bodies: bool = True,
                 tls: ssl.SSLContext | None = None, limits: RateLimit | None = None) -> None:
        self.latency, self.keep_bodies, self.tls, self.limits = latency, keep_bodies, tls, limits
        self.faults = FaultScript()
        self.authorization_seen: list[str] = []
        self.requests: list[dict] = []
        self.max_in_flight = 0
        self.streamed_bytes = 0
        self._calls: Counter[tuple[str, str]] = Counter()
        self._in_flight = 0
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the loopback server is not started")
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self, port: int = 0) -> LoopbackOpenAI:
        """Listen on 127.0.0.1:port (0: a free port the OS picks; `base_url` names it)."""
        self._server = _Server(("127.0.0.1", port), _Handler)
        if self.tls is not None:  # HTTPS with the caller's certificate (tests: one a test CA signed)
            self._server.socket = self.tls.wrap_socket(self._server.socket, server_side=True)
        self._server.loopback = self
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="loopback-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> LoopbackOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def record(self, model: str, role: str, body: dict, authorization: str) -> None:
        with self._lock:
            self._calls[(model, role)] += 1
            if self.keep_bodies:
                self.requests.append(body)
            self.authorization_seen.append(authorization)

    def record_embedding(self, model: str, authorization: str) -> None:
        with self._lock:
            self._calls[(model, "embed")] += 1
            self.authorization_seen.append(authorization)

    def count(self, *, model: str | None = None, role: str | None = None) -> int:
        """Chat requests received for this model and role (None means any)."""
        with self._lock:
            return sum(n for (m, r), n in self._calls.items()
                       if (model is None or m == model) and (role is None or r == role))

    def models_seen(self) -> set[str]:
        with self._lock:
            return {model for model, _ in self._calls}

    def in_flight(self) -> _InFlight:
        return _InFlight(self)


class _InFlight:
    """Counts concurrent chat requests so tests can see the client really runs them in parallel."""

    def __init__(self, loop: LoopbackOpenAI) -> None:
        self.loop = loop

    def __enter__(self) -> None:
        with self.loop._lock:
            self.loop._in_flight += 1
            self.loop.max_in_flight = max(self.loop.max_in_flight, self.loop._in_flight)

    def __exit__(self, *exc: object) -> None:
        with self.loop._lock:
            self.loop._in_flight -= 1


def main(argv: list[str] | None = None) -> int:
    """`python -m benchledger.adapters.models.loopback [--port N] [--latency S]`: serve until Ctrl-C."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m benchledger.adapters.models.loopback",
        description="Serve a deterministic OpenAI-compatible endpoint on 127.0.0.1 for demos and tests: the "
                    "agent answers extractively from the passages it is given, the judge judges lexically "
                    "(the offline models' logic over HTTP). Prints its base URL; point a run at it with "
                    "--base-url URL and any API key (OPENAI_API_KEY=dummy). Ctrl-C stops it.")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one, printed)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every reply (default: 0)")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535 or args.latency < 0:
        parser.error("--port must be 0..65535 and --latency at least 0")
    try:
        server = LoopbackOpenAI(latency=args.latency, keep_bodies=False).start(args.port)
    except OSError as err:
        parser.error(f"cannot listen on 127.0.0.1:{args.port}: {err.strerror or err}")
    print(f"serving a deterministic OpenAI-compatible endpoint at {server.base_url} (Ctrl-C stops it)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()
    return 0


if __name__ == "__main__":  # `python -m benchledger.adapters.models.loopback --help`
    raise SystemExit(main())
