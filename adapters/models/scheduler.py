"""One scheduler per endpoint: every model call to it waits here for a slot, and reports back.

`EndpointScheduler.call(tokens)` is a context manager around one HTTP attempt. It blocks until the
endpoint's rules (`adapters.models.pacing`) let the call start: fewer calls in flight than the
adaptive limit, the provider's request and token buckets (from its `x-ratelimit-*` headers) able
to take it, and no `Retry-After` pause running. The caller then says how it went
(`ticket.done(headers)`, `ticket.refused(headers, retry_after)`, `ticket.timed_out()`); an attempt
that ends any other way counts as neither success nor congestion.

With `adaptive=False` the scheduler only counts: the limit stays at the ceiling and headers and
Retry-After pause nothing (the fixed `--concurrency` of old, kept for comparison and for
endpoints that misreport their limits). Either way `summary()` says what happened: calls, 429s,
timeouts, how many calls waited and for how long, peak and time-weighted mean in flight, the
final limit. The answer and judge models of a run share one `ChatClient` and so one scheduler.

Thread-safe: one condition variable guards the rules; the clock is injected (tests pass a fake
one together with `wait=`, so nothing sleeps).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from benchledger.adapters.models.budget_room import BudgetRoom, LocalRoom, Stamp
from benchledger.adapters.models.pacing import ConcurrencyLimit
from benchledger.ledger.events import EndpointPaced
from benchledger.settings import ModelCalls

__all__ = ["EndpointScheduler", "Ticket"]


class Ticket:
    """One admitted call: tell the scheduler how it ended."""

    def __init__(self, scheduler: EndpointScheduler, number: int, tokens: float, stamp: Stamp | None) -> None:
        self.scheduler, self.number, self.tokens, self.stamp = scheduler, number, tokens, stamp
        """`stamp`: when the call started and what had started before it, as the budget's room saw it."""
        self.outcome: str | None = None

    def done(self, headers: Mapping[str, str] | None = None) -> None:
        self._end("done", headers, None)

    def refused(self, headers: Mapping[str, str] | None = None, retry_after: float | None = None) -> None:
        self._end("refused", headers, retry_after)

    def timed_out(self) -> None:
        self._end("timeout", None, None)

    def _end(self, outcome: str, headers: Mapping[str, str] | None, retry_after: float | None) -> None:
        if self.outcome is None:
            self.outcome = outcome
            self.scheduler._finish(self, outcome, headers, retry_after)


class EndpointScheduler:
    """Admits calls to one endpoint under an adaptive limit and the provider's advertised budget."""

    def __init__(self, ceiling: int, *, adaptive: bool = True, max_pause: float = ModelCalls().max_retry_after,
                 clock: Callable[[], float] = time.monotonic,
                 wait: Callable[[threading.Condition, float | None], object] | None = None,
                 room: BudgetRoom | None = None) -> None:
        self.adaptive = adaptive
        self.limit = ConcurrencyLimit(ceiling=ceiling, limit=0.0 if adaptive else float(ceiling))
        self.room: BudgetRoom = room if room is not None else LocalRoom()
        """Where the provider's budget is kept: this process, or a database every worker shares."""
        self.max_pause = max_pause
        self._clock = clock
        self._wait = wait or (lambda condition, timeout: condition.wait(timeout))
        self._condition = threading.Condition()
        self._in_flight = 0
        self._tokens_in_flight = 0.0
        self._counts = {"calls": 0, "refused": 0, "timeouts": 0, "waited": 0}
        self._wait_seconds = 0.0
        self._peak = 0
        self._area = 0.0
        self._first: float | None = None
        self._last_change = 0.0
        self._last_end = 0.0

    @contextmanager
    def call(self, tokens: float = 0.0) -> Iterator[Ticket]:
        """Wait for a slot, yield the ticket; an attempt that ends without a verdict just frees it."""
        ticket = self.admit(tokens)
        try:
            yield ticket
        finally:
            ticket._end("other", None, None)

    def admit(self, tokens: float = 0.0) -> Ticket:
        """Block until a call of `tokens` estimated tokens may start; the ticket of the started call."""
        with self._condition:
            began, waited = self._clock(), False
            while True:
                now = self._clock()
                wait, stamp = self._admission_wait(tokens, now)
                if wait <= 0:
                    break
                waited = True
                self._wait(self._condition, None if math.isinf(wait) else wait)
            if waited:
                self._counts["waited"] += 1
                self._wait_seconds += now - began
            self._move(now, +1, tokens)
            self._counts["calls"] += 1
            return Ticket(self, self.limit.admit(), tokens, stamp)

    def _admission_wait(self, tokens: float, now: float) -> tuple[float, Stamp | None]:
        """Seconds to wait before a call may start (inf: until another call ends); at 0 the call has
        started in the budget's room, and its stamp says when."""
        if self._in_flight >= self.limit.slots:
            return math.inf, None
        if not self.adaptive:
            return 0.0, None
        # the headers promise nothing and no reply is coming to say more: ask (`force`)
        wait, stamp = self.room.take(tokens, now, force=self._in_flight == 0)
        if stamp is not None:
            return 0.0, stamp
        return (min(wait, self.max_pause) if not math.isinf(wait) else wait), None

    def _finish(self, ticket: Ticket, outcome: str, headers: Mapping[str, str] | None,
                retry_after: float | None) -> None:
        with self._condition:
            now = self._clock()
            self._move(now, -1, ticket.tokens)
            self._last_end = now
            if outcome == "refused":
                self._counts["refused"] += 1
            elif outcome == "timeout":
                self._counts["timeouts"] += 1
            if self.adaptive:
                if ticket.stamp is not None and (headers or retry_after):
                    self.room.settle(ticket.stamp, ticket.tokens, headers,
                                     min(retry_after, self.max_pause) if retry_after else None, now)
                if outcome == "done":
                    self.limit.succeeded()
                elif outcome in ("refused", "timeout"):
                    self.limit.congested(ticket.number)
            self._condition.notify_all()

    def _move(self, now: float, step: int, tokens: float) -> None:
        if self._first is None:
            self._first = self._last_change = now
        self._area += self._in_flight * (now - self._last_change)
        self._last_change = now
        self._in_flight += step
        self._tokens_in_flight += step * tokens
        self._peak = max(self._peak, self._in_flight)

    def summary(self, *, attempt: int = 1) -> EndpointPaced:
        """What it decided, as the event a segment records (`attempt` names the segment)."""
        with self._condition:
            span = (self._last_end - self._first) if self._first is not None else 0.0
            return EndpointPaced(
                attempt=attempt, pacing="adaptive" if self.adaptive else "fixed", ceiling=self.limit.ceiling, calls=self._counts["calls"],
                refused=self._counts["refused"], timeouts=self._counts["timeouts"], waited=self._counts["waited"],
                wait_seconds=round(self._wait_seconds, 3), peak_in_flight=self._peak,
                mean_in_flight=round(self._area / span, 2) if span > 0 else float(self._peak),
                final_limit=self.limit.slots, cuts=self.limit.cuts)
