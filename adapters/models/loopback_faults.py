"""The loopback server's fault script: which request fails, and how.

A fault is either pushed (one-shot, consumed in order by the next matching requests) or a rule
(applies to every matching request until cleared). Matching narrows by role (`agent`/`judge`),
by model, and by a substring of the user prompt (`contains`, e.g. the question text, to make
"this question always fails"). Rules are checked before pushed faults.

Kinds (`FAULT_KINDS`):
  429             rate limited, with `Retry-After: <retry_after>` (default 0)
  500, 503        server errors
  401             authentication error whose body echoes the Authorization header it received
                  (a careless endpoint; the client must still keep the key out of its errors), or
                  given `text`, says `text` with `{key}` replaced by the bare key it was sent
  reset           the connection is dropped with no response (TCP reset)
  slow            the reply comes after `delay` seconds (default 2), past a short client timeout
  malformed_body  HTTP 200 whose body is truncated JSON
  empty           a completion whose content is empty
  no_final        a prose reply without a `Final:` line
  bad_json        a typed reply that is not JSON (for an official prompt too)
  wrong_schema    a typed reply that is JSON but not the requested schema (for an official prompt: the
                  JSON string "yes", valid JSON that is not an object)
  reply           HTTP 200 whose content is exactly `text` (a judge's wording, to test a reading rule)
  other_model     the usual reply, but the response says model `text` answered (an endpoint that
                  serves a sibling such as gpt-5-mini when gpt-5 was asked for)
  usage           the usual reply, but its `usage` claims `text` ("PROMPT,COMPLETION") tokens, such as a
                  negative count no call can have (an endpoint misreporting what a call cost)
  echo_key        the usual reply, after a preamble of more than 500 characters that repeats the
                  bearer token it was sent (an endpoint that echoes the key in a normal answer)
  no_tools        HTTP 400 for a request that offers `tools` (an endpoint without the tools interface)
  oversized       HTTP 200, a chat completion whose content is `size` bytes (default 200 MB), sent in
                  64 KiB chunks with no Content-Length (chunked), so only reading it tells its size; the
                  server stops when the client hangs up (`LoopbackOpenAI.streamed_bytes` says how far it got)
  barrier         (`push_barrier`) the usual reply, but only once `parties` matching requests are
                  held at the same time; if they are not within `delay` seconds, a 503. It proves
                  without timing that a client really has several requests in flight.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass

__all__ = ["FAULT_KINDS", "OVERSIZED", "Fault", "FaultScript"]

FAULT_KINDS = frozenset({
    "429", "500", "503", "401", "reset", "slow", "malformed_body", "empty", "no_final", "bad_json",
    "wrong_schema", "reply", "other_model", "usage", "echo_key", "barrier", "no_tools", "oversized",
})
OVERSIZED = 200 * 1000 * 1000
"""An `oversized` fault's content length by default: the 200 MB reply of issue 32."""


@dataclass(frozen=True)
class Fault:
    kind: str
    retry_after: float | None = None
    delay: float = 2.0
    role: str | None = None
    model: str | None = None
    contains: str | None = None
    text: str = ""
    """The content a `reply` fault answers with; the model an `other_model` fault reports; a `401`
    fault's error message (`{key}` stands for the bare key it was sent)."""
    barrier: threading.Barrier | None = None
    """A `barrier` fault's barrier, shared by the `parties` faults `push_barrier` pushed."""
    size: int = OVERSIZED
    """The bytes of content an `oversized` fault sends."""

    def matches(self, *, role: str, model: str, prompt: str) -> bool:
        return ((self.role is None or self.role == role) and (self.model is None or self.model == model)
                and (self.contains is None or self.contains in prompt))


class FaultScript:
    """Thread-safe queue of one-shot faults plus standing rules."""

    def __init__(self) -> None:
        self._pushed: deque[Fault] = deque()
        self._rules: list[Fault] = []
        self._lock = threading.Lock()
        self.fired: list[str] = []
        """Kinds of the faults applied so far, in order."""

    @staticmethod
    def _fault(kind: str, **fields: object) -> Fault:
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {kind!r}; expected one of {sorted(FAULT_KINDS)}")
        return Fault(kind=kind, **fields)  # type: ignore[arg-type]

    def push(self, kind: str, *, times: int = 1, retry_after: float | None = None, delay: float = 2.0,
             role: str | None = None, model: str | None = None, contains: str | None = None, text: str = "",
             size: int = OVERSIZED) -> None:
        """Fail the next `times` matching requests with this fault."""
        fault = self._fault(kind, retry_after=retry_after, delay=delay, role=role, model=model, contains=contains,
                            text=text, size=size)
        with self._lock:
            self._pushed.extend([fault] * times)

    def push_barrier(self, parties: int, *, timeout: float = 30.0, role: str | None = None,
                     model: str | None = None, contains: str | None = None) -> threading.Barrier:
        """Hold the next `parties` matching requests until all of them are in (or `timeout` passes:
        then each is a 503). Returns the barrier: `broken` says whether they ever met."""
        barrier = threading.Barrier(parties)
        fault = self._fault("barrier", delay=timeout, role=role, model=model, contains=contains, barrier=barrier)
        with self._lock:
            self._pushed.extend([fault] * parties)
        return barrier

    def always(self, kind: str, *, retry_after: float | None = None, delay: float = 2.0,
               role: str | None = None, model: str | None = None, contains: str | None = None, text: str = "",
               size: int = OVERSIZED) -> None:
        """Fail every matching request with this fault until `clear()`."""
        fault = self._fault(kind, retry_after=retry_after, delay=delay, role=role, model=model, contains=contains,
                            text=text, size=size)
        with self._lock:
            self._rules.append(fault)

    def clear(self) -> None:
        with self._lock:
            self._pushed.clear()
            self._rules.clear()

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._pushed)

    def take(self, *, role: str, model: str, prompt: str) -> Fault | None:
        """The fault for this request, if any (a pushed one is consumed)."""
        with self._lock:
            chosen = next((r for r in self._rules if r.matches(role=role, model=model, prompt=prompt)), None)
            if chosen is None:
                for index, fault in enumerate(self._pushed):
                    if fault.matches(role=role, model=model, prompt=prompt):
                        chosen = fault
                        del self._pushed[index]
                        break
            if chosen is not None:
                self.fired.append(chosen.kind)
            return chosen
