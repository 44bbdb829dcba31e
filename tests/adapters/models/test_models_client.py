"""The chat client against a real loopback HTTP server: retries, faults, cache, secrets, threads."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from benchledger.adapters.models.base import (
    EmptyResponseError, ModelError, ModelParseError, TransientModelError,
)
from benchledger.adapters.models.loopback import LoopbackOpenAI
from benchledger.adapters.models.openai_chat import ChatClient
from benchledger.redaction import redact
from benchledger.adapters.models.response_cache import InMemoryResponseCache, cache_key
from benchledger.errors import BadInput
from benchledger.settings import ModelCalls

KEY = "sk-test-Zq81kLmN0pQrStUv"


@pytest.fixture
def server():
    with LoopbackOpenAI() as srv:
        yield srv


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def agent_messages(question: str = "What is the deadline for the Finance report?") -> list[dict]:
    prompt = (f"Question:\n{question}\n\nRetrieved passages:\n[1] [user=User_1 / msg_node=Msg_1]\n"
              "The deadline for the Finance report is 2025-07-18. Lunch is at noon.\n\n"
              "Answer the question using the retrieved passages.")
    return [{"role": "system", "content": "Answer."}, {"role": "user", "content": prompt}]


def client_for(server, **options) -> ChatClient:
    """A client of the loopback server: ModelCalls fields among `options` travel as one ModelCalls."""
    settings = {"timeout": 2.0, "max_attempts": 4, "backoff_base": 0.01} | options
    calls = {name: settings.pop(name) for name in list(settings) if name in ModelCalls.model_fields}
    return ChatClient(ModelCalls(base_url=server.base_url, **calls), **settings)


@pytest.mark.parametrize("kind", ["429", "500", "503", "reset", "slow"])
def test_transient_faults_are_retried_until_the_call_succeeds(server, kind):
    client = client_for(server, timeout=0.4)
    server.faults.push(kind, times=2, delay=1.0)
    result = client.complete(model="m", messages=agent_messages())
    assert result.text.endswith("Final: The deadline for the Finance report is 2025-07-18.")
    assert result.attempts == 3
    assert server.count(model="m", role="agent") == 3
    assert client.stats["retries"] == 2
    assert server.faults.fired == [kind, kind]


def test_exhausted_retries_raise_a_transient_error_after_max_attempts(server):
    client = client_for(server, max_attempts=4)
    server.faults.always("503")
    started = time.monotonic()
    with pytest.raises(TransientModelError, match="gave up after 4 attempts") as caught:
        client.complete(model="m", messages=agent_messages())
    assert server.count() == 4
    assert time.monotonic() - started < 2.0
    assert "503" in str(caught.value)


@pytest.mark.parametrize(("kind", "error"), [
    ("401", ModelError), ("malformed_body", ModelParseError), ("empty", EmptyResponseError),
])
def test_permanent_faults_fail_at_once_with_their_error_class(server, kind, error):
    client = client_for(server)
    server.faults.always(kind)
    with pytest.raises(error) as caught:
        client.complete(model="m", messages=agent_messages())
    assert not isinstance(caught.value, TransientModelError)
    assert server.count() == 1


def test_retry_after_is_honoured(server):
    client = client_for(server, backoff_base=0.01)
    server.faults.push("429", retry_after=1)
    started = time.monotonic()
    result = client.complete(model="m", messages=agent_messages())
    elapsed = time.monotonic() - started
    assert elapsed >= 1.0
    assert elapsed < 3.0
    assert result.attempts == 2


def test_a_repeated_call_is_served_from_the_cache(server):
    cache = InMemoryResponseCache()
    client = client_for(server, cache=cache)
    first = client.complete(model="m", messages=agent_messages(), params={"temperature": 0.2})
    second = client.complete(model="m", messages=agent_messages(), params={"temperature": 0.2})
    assert (first.cache_hit, second.cache_hit) == (False, True)
    assert second.text == first.text and second.usage == first.usage and second.model == first.model
    assert server.count() == 1
    assert client.stats["cache_hits"] == 1


def test_the_cache_key_ignores_timeouts_and_retries_but_not_what_shapes_the_output(server):
    cache = InMemoryResponseCache()
    client_for(server, cache=cache, timeout=5.0, max_attempts=2).complete(model="m", messages=agent_messages())
    again = client_for(server, cache=cache, timeout=9.0, max_attempts=6).complete(model="m", messages=agent_messages())
    assert again.cache_hit and server.count() == 1

    base = {"base_url": server.base_url, "model": "m", "messages": agent_messages(), "params": {"temperature": 0.2}}
    variants = [
        base | {"base_url": "http://127.0.0.1:1/v1"}, base | {"model": "m2"},
        base | {"messages": agent_messages("Who owns the report?")}, base | {"params": {"temperature": 0.0}},
        base | {"params": {"temperature": 0.2, "response_format": {"type": "json_object"}}},
    ]
    keys = {cache_key(**variant) for variant in variants}
    assert cache_key(**base) not in keys and len(keys) == len(variants)
    reordered = {"params": base["params"], "messages": base["messages"], "model": "m", "base_url": server.base_url}
    assert cache_key(**reordered) == cache_key(**base)


@pytest.mark.parametrize("kind", ["empty", "500"])
def test_errors_and_empty_replies_are_never_cached(server, kind):
    cache = InMemoryResponseCache()
    client = client_for(server, cache=cache, max_attempts=1)
    server.faults.push(kind)
    with pytest.raises(ModelError):
        client.complete(model="m", messages=agent_messages())
    assert len(cache) == 0
    result = client.complete(model="m", messages=agent_messages())
    assert not result.cache_hit and server.count() == 2 and len(cache) == 1


def test_a_reply_the_caller_rejects_is_not_cached(server):
    cache = InMemoryResponseCache()
    client = client_for(server, cache=cache)

    def reject(text: str) -> None:
        raise ModelParseError("not what I asked for")

    with pytest.raises(ModelParseError):
        client.complete(model="m", messages=agent_messages(), validate=reject)
    assert len(cache) == 0


def test_the_api_key_goes_only_into_the_authorization_header(server):
    client = client_for(server, max_attempts=2)
    server.faults.push("401")
    with pytest.raises(ModelError) as unauthorised:
        client.complete(model="m", messages=agent_messages())
    server.faults.always("500")
    with pytest.raises(TransientModelError) as exhausted:
        client.complete(model="m", messages=agent_messages())
    for error in (unauthorised.value, exhausted.value):
        assert KEY not in str(error) and KEY not in repr(error) and KEY[3:] not in str(error)
    assert "invalid credentials" in str(unauthorised.value)
    assert server.authorization_seen == [f"Bearer {KEY}"] * 3
    assert KEY not in json.dumps(server.requests)


def test_redact_masks_the_secret_and_anything_like_a_key():
    text = redact(f"key {KEY} header Bearer abc.def other sk-live-ABCDEFGHIJKL", (KEY,))
    assert KEY not in text and "abc.def" not in text and "ABCDEFGHIJKL" not in text
    assert text.startswith("key ***")


def test_a_missing_key_is_bad_input_naming_the_variable(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(BadInput, match="OPENAI_API_KEY"):
        client_for(server)
    monkeypatch.setenv("BENCH_ENDPOINT_KEY", KEY)
    client = client_for(server, api_key_env="BENCH_ENDPOINT_KEY")
    assert client.complete(model="m", messages=agent_messages()).text
    assert server.authorization_seen == [f"Bearer {KEY}"]


def test_one_client_serves_many_threads_at_once(server):
    server.latency = 0.2
    client = client_for(server, cache=InMemoryResponseCache())
    server.faults.push("500", times=3)
    questions = [f"What is the deadline for the Finance report number {n}?" for n in range(8)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda q: client.complete(model="m", messages=agent_messages(q)), questions))
    assert all("2025-07-18" in result.text for result in results)
    assert server.count() == 8 + 3
    assert client.stats["attempts"] == 11 and client.stats["retries"] == 3
    assert server.max_in_flight >= 4  # the calls overlapped at the server: nothing serialises them
