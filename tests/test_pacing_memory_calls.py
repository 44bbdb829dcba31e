"""The memory's own model calls share the run's scheduler when they go to the run's endpoint.

Real HTTP through the recording proxy to the loopback endpoint enforcing a rate limit: every call
forwarded is admitted by the scheduler, and the 429s the endpoint gave are the ones it counted.
"""

from __future__ import annotations

import httpx2
import pytest

from benchledger.adapters.memory.recording_proxy import RecordingProxy
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.adapters.models.loopback_limits import RateLimit
from benchledger.adapters.models.scheduler import EndpointScheduler
from benchledger.orchestration.memory_calls import share_scheduler


class _Memory:
    def __init__(self, proxy: RecordingProxy) -> None:
        self.model_calls = proxy


@pytest.fixture
def limited():
    with LoopbackOpenAI(limits=RateLimit(requests=3, tokens=100_000, per=3.0)) as srv:
        yield srv


def test_the_memory_s_calls_to_the_run_s_endpoint_wait_in_the_run_s_scheduler(limited):
    proxy = RecordingProxy(limited.base_url, key_env=None)
    try:
        scheduler = EndpointScheduler(8)
        assert share_scheduler(_Memory(proxy), scheduler, limited.base_url + "/")
        body = {"model": "extractor", "messages": [{"role": "user", "content": "Alice moved to Lyon."}]}
        statuses = [httpx2.post(f"{proxy.base_url}/chat/completions", json=body, timeout=30).status_code
                    for _ in range(6)]
    finally:
        proxy.close()
    summary = scheduler.summary()
    assert statuses.count(200) == limited.limits.admitted == 6 - statuses.count(429)
    assert summary.calls == 6 and summary.refused == limited.limits.refused
    assert summary.waited >= 1  # the burst of 3 was spent: the next calls waited for the refill


def test_a_memory_calling_another_endpoint_keeps_its_own_pace(limited):
    proxy = RecordingProxy(limited.base_url, key_env=None)
    try:
        assert not share_scheduler(_Memory(proxy), EndpointScheduler(8), "https://api.example.com/v1")
        assert proxy.scheduler is None
        assert not share_scheduler(_Memory(proxy), None, limited.base_url)
    finally:
        proxy.close()
