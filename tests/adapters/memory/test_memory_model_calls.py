"""The memory's own model calls go on the ledger: through benchledger's recording proxy, offline.

A real mem0 is pointed at a loopback endpoint the test names as the user's (`--memory-base-url`,
key from the environment). Every call mem0 makes arrives there with the real key, which mem0
itself never held; each becomes a MemoryModelCalled event of the run, attributed to its stage;
the key reaches neither the ledger nor the output; the report shows calls, tokens and seconds per
stage; and the "memory's own model" condition reads the models the calls showed.
"""

from __future__ import annotations

import json
from pathlib import Path

import openai
import pytest

from benchledger.adapters.memory.recording_proxy import PLACEHOLDER_KEY, RecordingProxy
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.ledger.store import Ledger
from benchledger.projections.state import fold_run
from conftest import REPO

from conftest import requires_extra
from ledger_cli import invoke_expecting as invoke

needs_mem0 = requires_extra("mem0", "mem0")

KEY = "sk-memory-key-never-recorded-4711"
LOCOMO = "locomo/locomo-dev.json"


def test_the_proxy_forwards_with_the_key_from_the_environment_and_records_each_call(monkeypatch) -> None:
    monkeypatch.setenv("MEMORY_KEY", KEY)
    with LoopbackOpenAI() as upstream:
        proxy = RecordingProxy(upstream.base_url, key_env="MEMORY_KEY")
        try:
            client = openai.OpenAI(base_url=proxy.base_url, api_key=PLACEHOLDER_KEY, max_retries=0)
            with proxy.stage("build", scope_key="conv-26"):
                client.chat.completions.create(model="small-llm", response_format={"type": "json_object"},
                                               messages=[{"role": "user", "content": "Hello there."}])
            with proxy.stage("recall", question_id="q1"):
                client.embeddings.create(model="embedder", input=["a", "b"], dimensions=64)
            chat, embedding = proxy.drain()
        finally:
            proxy.close()
        assert upstream.authorization_seen == [f"Bearer {KEY}"] * 2  # the placeholder never went upstream
    assert (chat.stage, chat.scope_key, chat.endpoint, chat.model_asked, chat.model_reported) == (
        "build", "conv-26", "chat", "small-llm", "small-llm")
    assert chat.prompt_tokens > 0 and chat.completion_tokens > 0 and chat.status == 200 and chat.latency_ms > 0
    assert (embedding.stage, embedding.question_id, embedding.endpoint, embedding.completion_tokens) == (
        "recall", "q1", "embeddings", 0)
    assert len(chat.request_digest) == 64 and chat.request_digest != embedding.request_digest
    assert proxy.drain() == []


def test_an_unreachable_upstream_is_a_recorded_failed_call_not_a_hang() -> None:
    proxy = RecordingProxy("http://127.0.0.1:9/v1", key_env=None, timeout=2)
    try:
        client = openai.OpenAI(base_url=proxy.base_url, api_key=PLACEHOLDER_KEY, max_retries=0)
        with pytest.raises(openai.APIStatusError):
            client.embeddings.create(model="embedder", input="x")
        (call,) = proxy.drain()
    finally:
        proxy.close()
    assert call.status == 0 and call.response_digest != "" and call.model_reported is None


@needs_mem0
def test_a_mem0_run_records_its_model_calls_per_stage_and_never_the_key(shared_data, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("MEMORY_KEY", KEY)
    ledger_path = tmp_path / "l.db"
    with LoopbackOpenAI() as upstream:
        result = invoke("--ledger", str(ledger_path), "retrieval", "locomo", str(shared_data / LOCOMO),
                        "--conversations", "conv-26", "--question-limit", "4", "--memory", "mem0",
                        "--memory-option", "infer=true", "--memory-option", "granularity=session",
                        "--memory-base-url", upstream.base_url, "--memory-key-env", "MEMORY_KEY")
        chat_calls_seen = upstream.count(role="other")
        embeddings_seen = upstream.count(role="embed")
        named = upstream.base_url
    with Ledger.open(ledger_path, create=False) as ledger:
        (run_id,) = [r.run_id for r in ledger.reader.runs()]
        events = ledger.reader.events(run_id)
    state = fold_run(run_id, events)
    calls = state.memory_calls
    sessions = {doc.channel for doc in _conv26_documents(shared_data)}
    build = [c for c in calls if c.stage == "build"]
    recall = [c for c in calls if c.stage == "recall"]
    assert len([c for c in build if c.endpoint == "chat"]) == len(sessions) == chat_calls_seen
    assert len(calls) == chat_calls_seen + embeddings_seen  # every call the endpoint saw is on the ledger
    assert {c.question_id for c in recall} == set(state.questions) and all(c.endpoint == "embeddings" for c in recall)
    assert all(c.upstream == named and c.status == 200 for c in calls)
    assert {c.model_asked for c in build} == {"gpt-4.1-nano", "text-embedding-3-small"}
    assert KEY not in ledger_path.read_bytes().decode("latin-1") and KEY not in result.output
    shown = invoke("--ledger", str(ledger_path), "show", run_id).output
    assert "memory's own model calls (through benchledger's recording proxy" in shown
    assert f"build   {len(build):>6} calls ({len(sessions)} chat" in shown and KEY not in shown


def _conv26_documents(shared_data: Path):
    from benchledger.adapters.benchmarks.locomo.loader import load_locomo

    (docs,) = load_locomo(shared_data / LOCOMO, conversation_ids=["conv-26"]).scopes.values()
    return docs


@needs_mem0
def test_the_memorys_own_model_is_checked_against_what_its_calls_reported(tmp_path, monkeypatch) -> None:
    """mem0 asks for a cheap model, but its endpoint answers as gpt-5: the agent is then the memory's model."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-agent-key-0000")
    monkeypatch.setenv("MEMORY_KEY", KEY)
    ledger_path = tmp_path / "l.db"
    with LoopbackOpenAI() as upstream:
        upstream.faults.always("other_model", role="other", text="gpt-5")
        invoke("--ledger", str(ledger_path), "run", "groupmem", str(REPO / "examples" / "groupmem-mini"),
               "--domain", "Demo", "--question-limit", "1", "--memory", "mem0", "--memory-option", "infer=true",
               "--memory-option", "granularity=session", "--memory-base-url", upstream.base_url,
               "--memory-key-env", "MEMORY_KEY", "--agent-model", "gpt-5", "--judge-model", "gpt-5",
               "--base-url", upstream.base_url, "--out", str(tmp_path / "r.json"))
    report = json.loads((tmp_path / "r.json").read_text())
    (condition,) = [c for c in report["conditions"] if c["name"] == "reference_protocol"]
    assert "agent model is the memory system's own model" in condition["reason"]
    assert report["memory_model"] == "gpt-4.1-nano"  # what it declared: not gpt-5
    assert "gpt-5" in report["memory_calls"]["models_reported"]
