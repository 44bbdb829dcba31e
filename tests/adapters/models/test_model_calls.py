"""Model-call settings travel as one typed object, `ModelCalls`, and each default lives once.

`RunSettings` records them (they are part of a run's config) with `ModelCalls`' defaults and
constraints; `RunSettings.model_calls` hands them on as one object through the session and the model
factory to the chat client that uses them, and no signature on the way restates a default. A command
that goes on with a recorded run (resume, rejudge, audit) passes what it changes as one `Overrides`.
"""

from __future__ import annotations

import inspect

import pytest
from pydantic import ValidationError

from benchledger.adapters.models.factory import build_models, model_context
from benchledger.adapters.models.openai_chat import ChatClient
from benchledger.errors import BadInput
from benchledger.orchestration.session import settings_context
from benchledger.settings import ModelCalls, Overrides, RunSettings


def test_run_settings_take_their_model_call_defaults_and_limits_from_model_calls() -> None:
    assert RunSettings().model_calls == ModelCalls()
    for name, declared in ModelCalls.model_fields.items():
        recorded = RunSettings.model_fields[name]
        assert (recorded.default, recorded.metadata) == (declared.default, declared.metadata), name
    for field, value in (("timeout", 0), ("max_attempts", 0), ("max_attempts", 21), ("backoff_base", -1)):
        with pytest.raises(ValidationError):
            ModelCalls(**{field: value})
        with pytest.raises(ValidationError):
            RunSettings(**{field: value})
    assert ModelCalls(max_attempts=20).max_attempts == RunSettings(max_attempts=20).max_attempts == 20


def test_no_call_below_the_settings_restates_a_model_call_setting() -> None:
    for function in (ChatClient.__init__, model_context, build_models):
        restated = set(inspect.signature(function).parameters) & set(ModelCalls.model_fields)
        assert restated == set(), (function.__qualname__, restated)


def test_settings_other_than_the_defaults_reach_the_chat_client(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = RunSettings(agent_model="m", base_url="http://127.0.0.1:9/v1", api_key_env="HOUSE_CALLS_KEY",
                           timeout=2.5, max_attempts=3, backoff_base=0.25, max_reply_bytes=4096)
    with pytest.raises(BadInput, match="HOUSE_CALLS_KEY") as missing:
        settings_context(None, settings).client()
    assert missing.value.field == "api_key_env"
    monkeypatch.setenv("HOUSE_CALLS_KEY", "sk-house-calls-0000")
    client = settings_context(None, settings).client()
    assert (client.base_url, client.timeout) == ("http://127.0.0.1:9/v1", 2.5)
    assert (client.retry.max_attempts, client.retry.backoff_base, client.max_reply_bytes) == (3, 0.25, 4096)
    default = settings_context(None, RunSettings(agent_model="m", api_key_env="HOUSE_CALLS_KEY")).client()
    assert (default.timeout, default.retry.max_attempts) == (ModelCalls().timeout, ModelCalls().max_attempts)


def test_the_retry_policy_and_both_clients_take_their_retry_defaults_from_one_place(
        monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from benchledger.adapters.memory.http_client import HttpMemory
    from benchledger.adapters.memory.http_server import MemoryServer
    from benchledger.adapters.memory.registry import open_memory
    from benchledger.retry import RetryPolicy

    policy = RetryPolicy()
    assert (policy.max_attempts, policy.backoff_base) == (ModelCalls().max_attempts, ModelCalls().backoff_base)
    monkeypatch.setenv("HOUSE_CALLS_KEY", "sk-house-calls-0000")
    model_retry = ChatClient(ModelCalls(api_key_env="HOUSE_CALLS_KEY", max_attempts=2, backoff_base=0.1)).retry
    with MemoryServer(open_memory("sqlite", tmp_path / "served.db")) as server:
        memory = HttpMemory(tmp_path / "unused.db", url=server.url)
        memory_retry = memory.retry
        memory.close()
    for retry in (model_retry, memory_retry):  # the caps are the policy's, stated nowhere else
        assert (retry.backoff_max, retry.max_retry_after) == (policy.backoff_max, policy.max_retry_after)
    assert (model_retry.max_attempts, model_retry.backoff_base) == (2, 0.1)
    assert memory_retry.max_attempts != policy.max_attempts  # the memory client keeps its own patience


def test_a_run_honours_a_retry_after_up_to_its_max_retry_after_and_records_it(monkeypatch) -> None:
    import json
    import time
    from pathlib import Path

    from benchledger.adapters.models.loopback import LoopbackOpenAI
    from conftest import MINI
    from ledger_cli import events_of, invoke_expecting

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-0000")
    with LoopbackOpenAI() as server:
        server.faults.push("429", retry_after=30, role="agent")  # far longer than the run will wait
        started = time.monotonic()
        invoke_expecting("run", "groupmem", str(MINI), "--domain", "Demo", "--kinds", "multi_hop",
                         "--question-limit", "1", "--agent-model", "m", "--base-url", server.base_url,
                         "--backoff-base", "0.01", "--max-retry-after", "1.5", "--out", "r.json")
        waited = time.monotonic() - started
        assert server.faults.fired == ["429"]
    assert 1.5 <= waited < 20  # the endpoint's 30 s, cut to the run's 1.5 s, by the scheduler and the retry
    events = events_of(json.loads(Path("r.json").read_text())["run_id"])
    assert events[0].config.settings.max_retry_after == 1.5
    assert RunSettings().max_retry_after == ModelCalls().max_retry_after == 120.0


def test_overrides_of_a_recorded_run_change_only_what_they_name_and_are_checked_as_settings() -> None:
    recorded = RunSettings(base_url="http://127.0.0.1:9/v1", concurrency=3, max_attempts=2,
                           memory_options={"url": "http://127.0.0.1:8"})
    assert Overrides().applied_to(recorded) == recorded
    changed = Overrides(base_url="http://127.0.0.1:10/v1", max_attempts=5).applied_to(recorded)
    assert (changed.base_url, changed.max_attempts, changed.concurrency, changed.memory_options) == (
        "http://127.0.0.1:10/v1", 5, 3, {"url": "http://127.0.0.1:8"})
    with pytest.raises(ValidationError):
        Overrides(max_attempts=21).applied_to(recorded)
    assert set(Overrides.model_fields) <= set(RunSettings.model_fields)


def test_commands_that_go_on_with_a_run_take_its_overrides_as_one_object() -> None:
    from benchledger.orchestration import audit, gold_overlay, rejudge, resume

    unpacked = set(Overrides.model_fields)
    for function in (rejudge._rejudge_run, audit.audit_judge, audit.open_audit, gold_overlay.rejudge_with_overlay,
                     resume._resume_run, resume.recorded_settings):
        parameters = set(inspect.signature(function).parameters)
        assert "overrides" in parameters and not parameters & unpacked, function.__qualname__


def test_every_integer_option_named_after_a_setting_has_that_settings_limits() -> None:
    import click

    from benchledger.cli.main import cli

    def commands(group: click.Group):
        for command in group.commands.values():
            yield from commands(command) if isinstance(command, click.Group) else (command,)

    checked = 0
    for command in commands(cli):
        for param in command.params:
            field = RunSettings.model_fields.get(param.name or "")
            if field is None or not isinstance(param.type, click.IntRange):
                continue
            limits = (next((m.ge for m in field.metadata if hasattr(m, "ge")), None),
                      next((m.le for m in field.metadata if hasattr(m, "le")), None))
            assert (param.type.min, param.type.max) == limits, (command.name, param.name)
            checked += 1
    assert checked >= 20  # k, token budget, concurrency and attempts on every run, resume, rejudge and audit
