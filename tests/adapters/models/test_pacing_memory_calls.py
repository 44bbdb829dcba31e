"""The memory's own model calls share the run's scheduler when they go to the run's endpoint.

Real HTTP through the recording proxy to the loopback endpoint enforcing a rate limit: every call
forwarded is admitted by the scheduler, and the 429s the endpoint gave are the ones it counted.
"""

from __future__ import annotations

import json

import httpx2
import pytest
from click.testing import CliRunner

from benchledger.adapters.memory.recording_proxy import RecordingProxy
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.adapters.models.loopback_limits import RateLimit
from benchledger.adapters.models.scheduler import EndpointScheduler
from benchledger.cli.main import cli
from benchledger.ledger.store import Ledger
from benchledger.orchestration.memory_calls import share_scheduler
from conftest import REPO

from conftest import requires_extra

needs_mem0 = requires_extra("mem0", "mem0")


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


@needs_mem0
def test_a_mem0_run_at_one_limited_endpoint_paces_its_memory_answer_and_judge_calls_together(tmp_path, monkeypatch):
    """Needs the mem0 extra, as tests/adapters/memory/test_memory_mem0.py does (CI installs it)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-agent-key-0000")
    ledger_path = tmp_path / "l.db"
    with LoopbackOpenAI(limits=RateLimit(requests=20, tokens=1_000_000, per=1.0)) as upstream:
        result = CliRunner().invoke(cli, [
            "--ledger", str(ledger_path), "run", "groupmem", str(REPO / "examples" / "groupmem-mini"),
            "--domain", "Demo", "--question-limit", "1", "--memory", "mem0", "--memory-option", "infer=true",
            "--memory-option", "granularity=session", "--memory-base-url", upstream.base_url,
            "--memory-key-env", "OPENAI_API_KEY", "--agent-model", "gpt-5", "--judge-model", "gpt-5",
            "--base-url", upstream.base_url, "--backoff-base", "0.05", "--out", str(tmp_path / "r.json")],
            catch_exceptions=False)
        assert result.exit_code == 0, result.output
        chat = upstream.limits.admitted + upstream.limits.refused  # the limit sees every chat request
        embeddings = upstream.count(role="embed")
    run_id = json.loads((tmp_path / "r.json").read_text())["run_id"]
    with Ledger.open(ledger_path) as ledger:
        events = [stored.event for stored in ledger.reader.events(run_id)]
    (paced,) = [e for e in events if e.type == "EndpointPaced"]
    memory_calls = [e for e in events if e.type == "MemoryModelCalled" and e.endpoint == "chat"]
    assert memory_calls  # mem0 extracted through the limited endpoint
    assert embeddings and paced.calls == chat + embeddings  # every call to the endpoint, the memory's included
    assert paced.calls > sum(1 for e in events if e.type in ("QuestionAnswered", "Judged"))
