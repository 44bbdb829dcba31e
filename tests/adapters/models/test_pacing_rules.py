"""The pacing rules as arithmetic: AIMD limit, the provider's buckets from headers, Retry-After, the
scheduler's admissions and summary, and the loopback's token buckets, all on an injected clock."""

from __future__ import annotations

import math

import pytest
from benchledger.adapters.models.loopback_limits import RateLimit, format_reset
from benchledger.adapters.models import pacing
from benchledger.adapters.models.pacing import ConcurrencyLimit, HeaderBudget, parse_reset
from benchledger.adapters.models.scheduler import EndpointScheduler


@pytest.fixture
def exact(monkeypatch):
    """The bucket arithmetic without its safety margins, so expected waits read as plain sums."""
    monkeypatch.setattr(pacing, "REFILL_MARGIN", 1.0)
    monkeypatch.setattr(pacing, "RESERVE", 0.0)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(("text", "seconds"), [
    ("1s", 1.0), ("6m0s", 360.0), ("20ms", 0.02), ("1h2m3.5s", 3723.5), ("0.25", 0.25), ("120ms", 0.12),
    ("", None), ("soon", None), ("-1s", None), ("-3", None), ("inf", None), ("1s trailing", None), (None, None),
])
def test_reset_headers_are_read_in_openai_s_duration_format_and_nonsense_is_not_said(text, seconds):
    assert parse_reset(text) == (pytest.approx(seconds) if seconds is not None else None)


def test_the_limit_starts_at_four_and_doubles_per_round_until_the_first_cut():
    limit = ConcurrencyLimit(ceiling=64)
    assert limit.slots == 4
    for _ in range(4):
        limit.succeeded()
    assert limit.slots == 8  # one round of 4 successes doubled it
    for _ in range(100):
        limit.succeeded()
    assert limit.slots == 64  # never past the ceiling


def test_a_low_ceiling_caps_the_start():
    assert ConcurrencyLimit(ceiling=2).slots == 2
    with pytest.raises(ValueError):
        ConcurrencyLimit(ceiling=0)


def test_a_cut_halves_the_limit_once_per_round_and_growth_turns_additive():
    limit = ConcurrencyLimit(ceiling=64, limit=32)
    numbers = [limit.admit() for _ in range(32)]  # one overfull round in flight
    assert limit.congested(numbers[0]) is True
    assert limit.slots == 16
    assert [limit.congested(n) for n in numbers[1:]] == [False] * 31  # the same congestion, seen late
    assert limit.slots == 16 and limit.cuts == 1
    late = limit.admit()  # a call started after the cut is new evidence
    assert limit.congested(late) is True and limit.slots == 8
    for _ in range(8):  # one round of successes now adds about one slot, not eight
        limit.succeeded()
    assert 8.9 < limit.limit < 9.0


def test_the_limit_never_falls_below_one():
    limit = ConcurrencyLimit(ceiling=4, limit=1)
    assert limit.congested(limit.admit()) is True
    assert limit.slots == 1


def test_a_spent_request_bucket_waits_for_its_refill_rate_and_one_with_room_does_not(exact):
    budget = HeaderBudget()
    headers = {"x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "0",
               "x-ratelimit-reset-requests": "60s"}  # refills one request a second
    budget.observe(headers, sent=0.0, requests_since=0, tokens_since=0)
    assert budget.wait_for(0, now=0.0) == pytest.approx(1.0)
    assert budget.wait_for(0, now=0.5) == pytest.approx(0.5)
    assert budget.wait_for(0, now=1.0) == 0.0
    budget.spend(0)  # the request that went at t=1 took that refill
    assert budget.wait_for(0, now=1.0) == pytest.approx(1.0)


def test_calls_started_after_the_call_whose_reply_is_read_count_as_spent(exact):
    budget = HeaderBudget()
    budget.observe({"x-ratelimit-limit-requests": "10", "x-ratelimit-remaining-requests": "3",
                    "x-ratelimit-reset-requests": "7s"}, sent=0.0, requests_since=3, tokens_since=0)
    assert budget.wait_for(0, now=0.0) == pytest.approx(1.0)  # 3 left, 3 sent since: wait a refill


def test_a_slow_reply_describing_an_older_budget_never_replaces_a_newer_reading():
    budget = HeaderBudget()
    budget.observe({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "5s"},
                   sent=10.0, requests_since=0, tokens_since=0)
    budget.observe({"x-ratelimit-remaining-requests": "40", "x-ratelimit-reset-requests": "1s"},
                   sent=9.0, requests_since=0, tokens_since=0)  # sent earlier, answered later
    assert budget.wait_for(0, now=10.0) == pytest.approx(5.0)


def test_the_token_bucket_holds_back_a_large_call_but_lets_a_small_one_go(exact):
    budget = HeaderBudget()
    budget.observe({"x-ratelimit-limit-tokens": "1000", "x-ratelimit-remaining-tokens": "300",
                    "x-ratelimit-reset-tokens": "7s"}, sent=0.0, requests_since=0, tokens_since=0)  # 100 tokens/s
    assert budget.wait_for(200, now=0.0) == 0.0
    assert budget.wait_for(500, now=0.0) == pytest.approx(2.0)
    assert budget.wait_for(5000, now=0.0) == pytest.approx(7.0)  # larger than the bucket: wait for a full one


def test_the_margins_wait_a_little_longer_than_the_bare_arithmetic():
    budget = HeaderBudget()
    budget.observe({"x-ratelimit-limit-requests": "100", "x-ratelimit-remaining-requests": "0",
                    "x-ratelimit-reset-requests": "1s"}, sent=0.0, requests_since=0, tokens_since=0)
    # a reserve of 10 requests plus the one asked for, at 98 a second rather than 100
    assert budget.wait_for(0, now=0.0) == pytest.approx(11 / (pacing.REFILL_MARGIN * 100))
    assert pacing.RESERVE == 0.1 and pacing.REFILL_MARGIN == 0.98


def test_a_full_bucket_keeps_the_refill_the_previous_reading_showed(exact):
    budget = HeaderBudget()
    budget.observe({"x-ratelimit-limit-requests": "10", "x-ratelimit-remaining-requests": "5",
                    "x-ratelimit-reset-requests": "5s"}, sent=0.0, requests_since=0, tokens_since=0)
    budget.observe({"x-ratelimit-limit-requests": "10", "x-ratelimit-remaining-requests": "10",
                    "x-ratelimit-reset-requests": "0ms"}, sent=1.0, requests_since=10, tokens_since=0)
    assert budget.wait_for(0, now=1.0) == pytest.approx(1.0)  # all 10 spent since: one a second, as before


def test_without_a_limit_header_a_spent_bucket_waits_for_its_reset_and_then_is_full():
    budget = HeaderBudget()
    budget.observe({"x-ratelimit-remaining-requests": "1", "x-ratelimit-reset-requests": "2s"},
                   sent=10.0, requests_since=0, tokens_since=0)
    assert budget.wait_for(0, now=10.0) == 0.0
    budget.spend(0)
    assert budget.wait_for(0, now=10.5) == pytest.approx(1.5)
    assert budget.wait_for(0, now=12.0) == 0.0


def test_unreadable_headers_change_nothing():
    budget = HeaderBudget()
    budget.observe({"x-ratelimit-remaining-requests": "lots", "x-ratelimit-remaining-tokens": "-5"},
                   sent=0.0, requests_since=0, tokens_since=0)
    assert budget.buckets == {} and budget.wait_for(10**9, now=0.0) == 0.0


def test_a_retry_after_pauses_every_call_until_it_has_passed():
    budget = HeaderBudget()
    budget.pause(3.0, now=5.0)
    assert budget.wait_for(0, now=6.0) == pytest.approx(2.0)
    assert budget.wait_for(0, now=8.0) == 0.0


def test_the_scheduler_admits_up_to_its_limit_then_waits_for_a_call_to_end():
    clock, waits = Clock(), []

    def wait(_condition, timeout):  # never sleeps: a call ending is what the wait would have seen
        waits.append(timeout)
        first.done()

    scheduler = EndpointScheduler(16, clock=clock, wait=wait)
    tickets = [scheduler.admit() for _ in range(4)]
    first = tickets[0]
    fifth = scheduler.admit()
    assert waits == [None]  # blocked on a free slot (no timeout), released when a call ended
    for ticket in (*tickets[1:], fifth):
        ticket.done()
    summary = scheduler.summary()
    assert summary.calls == 5 and summary.peak_in_flight == 4 and summary.waited == 1
    assert summary.final_limit == 9  # five successes in slow start


def test_the_scheduler_waits_out_a_retry_after_and_halves_on_the_429():
    clock, waits = Clock(), []

    def wait(_condition, timeout):
        waits.append(timeout)
        clock.now += timeout

    scheduler = EndpointScheduler(8, clock=clock, wait=wait)
    scheduler.admit().refused({}, retry_after=2.0)
    assert scheduler.limit.slots == 2
    scheduler.admit().done()
    assert waits == [pytest.approx(2.0)]
    summary = scheduler.summary()
    assert (summary.refused, summary.cuts, summary.waited, summary.wait_seconds) == (1, 1, 1, 2.0)


def test_the_scheduler_paces_by_the_provider_s_headers_before_any_429(exact):
    clock, waits = Clock(), []

    def wait(_condition, timeout):
        waits.append(timeout)
        clock.now += timeout

    scheduler = EndpointScheduler(8, clock=clock, wait=wait)
    scheduler.admit().done({"x-ratelimit-limit-requests": "10", "x-ratelimit-remaining-requests": "0",
                            "x-ratelimit-reset-requests": "10s"})  # one request a second
    scheduler.admit().done()
    assert waits == [pytest.approx(1.0)]
    assert scheduler.summary().refused == 0


def test_a_fixed_scheduler_counts_but_never_moves_or_pauses():
    clock = Clock()

    def wait(_condition, timeout):
        raise AssertionError("a fixed scheduler under its ceiling never waits")

    scheduler = EndpointScheduler(4, adaptive=False, clock=clock, wait=wait)
    scheduler.admit().refused({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "9s"},
                              retry_after=30.0)
    scheduler.admit().timed_out()
    scheduler.admit().done()
    summary = scheduler.summary()
    assert (summary.final_limit, summary.refused, summary.timeouts, summary.waited, summary.cuts) == (4, 1, 1, 0, 0)


def test_mean_in_flight_is_weighted_by_time():
    clock = Clock()
    scheduler = EndpointScheduler(8, clock=clock)
    a, b = scheduler.admit(), scheduler.admit()
    clock.now += 1.0
    a.done()
    clock.now += 1.0
    b.done()
    assert scheduler.summary().mean_in_flight == pytest.approx(1.5)  # 2 for a second, then 1 for a second


def test_an_attempt_that_ends_otherwise_frees_its_slot_without_moving_the_limit():
    scheduler = EndpointScheduler(8, clock=Clock())
    with pytest.raises(RuntimeError), scheduler.call(10) as _ticket:
        raise RuntimeError("a 500")
    assert scheduler.limit.slots == 4 and scheduler._in_flight == 0


def test_the_loopback_buckets_refuse_with_the_time_until_the_request_fits():
    clock = Clock()
    limit = RateLimit(requests=2, tokens=100, per=1.0, clock=clock)  # 2 requests and 100 tokens a second
    assert limit.take(10).admitted and limit.take(10).admitted
    refused = limit.take(10)
    assert not refused.admitted and refused.retry_after == pytest.approx(0.5)
    assert refused.headers["x-ratelimit-remaining-requests"] == "0"
    assert refused.headers["retry-after-ms"] == "500"
    clock.now += 0.5
    assert limit.take(10).admitted
    assert not limit.take(10).admitted  # the refill of half a second was one request
    assert (limit.admitted, limit.refused) == (3, 2)


def test_the_loopback_token_bucket_refuses_what_does_not_fit():
    clock = Clock()
    limit = RateLimit(requests=100, tokens=100, per=1.0, clock=clock)
    assert limit.take(60).admitted
    refused = limit.take(60)
    assert not refused.admitted and refused.retry_after == pytest.approx(0.2)  # 20 tokens short at 100 a second
    assert refused.headers["x-ratelimit-remaining-tokens"] == "40"
    assert limit.take(40).admitted


@pytest.mark.parametrize(("seconds", "text"), [(0.02, "20ms"), (0.0, "0ms"), (1.5, "1.5s"), (360.0, "6m0s")])
def test_resets_are_written_as_the_client_reads_them(seconds, text):
    assert format_reset(seconds) == text
    assert parse_reset(text) == pytest.approx(seconds)
    assert math.isfinite(parse_reset(text) or 0)
