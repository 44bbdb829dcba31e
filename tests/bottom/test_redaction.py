"""The one redaction (`benchledger.redaction`): what it masks, what it leaves, and that it runs before
any cut, so that no part of a secret survives a capped message. Also the structlog processor that
applies it to every log line."""

from __future__ import annotations

import json
import os

import pytest
import structlog
from hypothesis import given, settings
from hypothesis import strategies as st

from benchledger.cli.logging_setup import configure_logging
from benchledger.redaction import redact, register_secret_env, safe_message, strip_url_credentials

TOKEN = "mtok-SECRET123-abcdef"


@pytest.fixture
def registered_token(monkeypatch: pytest.MonkeyPatch) -> str:
    register_secret_env("BENCH_REDACTION_TOKEN")
    monkeypatch.setenv("BENCH_REDACTION_TOKEN", TOKEN)
    return TOKEN


def test_registered_variables_and_given_secrets_are_masked(registered_token: str) -> None:
    assert redact(f"token {registered_token} was refused") == "token *** was refused"
    assert redact("held plainsecretvalue here", ("plainsecretvalue",)) == "held *** here"
    assert redact("abc is short", ("abc",)) == "abc is short", "values under 4 characters would mask words"


@pytest.mark.parametrize(("text", "expected"), [
    ("Authorization: Bearer abc.def", "Authorization: Bearer ***"),
    ("{'authorization': 'Basic dXNlcjpwdw=='}", "{'authorization': 'Basic ***'}"),
    ('"Proxy-Authorization": "opaque-value"', '"Proxy-Authorization": "***"'),
    ("invalid credentials in header Bearer sk-proj-XYZ123456789", "invalid credentials in header Bearer ***"),
    ("key sk-live-ABCDEFGHIJKL end", "key sk-*** end"),
    ("GET http://user:p@ss@host:8080/v1?q=1 failed", "GET http://***@host:8080/v1?q=1 failed"),
    ("see https://bench-user@[::1]:9/x", "see https://***@[::1]:9/x"),
])
def test_credentials_are_masked_where_they_are_recognisable(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize("text", [
    "missing or wrong bearer token",
    "authorization failed for the user",
    "the task-identifier-12345678 is fine",
    "mail me at http://host/v1?from=a@b",
])
def test_prose_and_urls_without_credentials_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(("url", "stripped"), [
    ("http://user:pw@host/v1", "http://host/v1"),
    ("https://user@host:8443/v1/", "https://host:8443/v1/"),
    ("http://u:p@ss@127.0.0.1:9/v1", "http://127.0.0.1:9/v1"),
    ("https://api.openai.com/v1", "https://api.openai.com/v1"),
    ("http://host/path?mail=a@b", "http://host/path?mail=a@b"),
])
def test_strip_url_credentials(url: str, stripped: str) -> None:
    assert strip_url_credentials(url) == stripped


@settings(max_examples=200, deadline=None)
@given(before=st.integers(min_value=0, max_value=600), cap=st.integers(min_value=20, max_value=500),
       wrapper=st.sampled_from(["{}", "Bearer {}", "token={}", '"{}"']))
def test_a_capped_message_holds_no_part_of_a_secret(before: int, cap: int, wrapper: str) -> None:
    register_secret_env("BENCH_REDACTION_TOKEN")
    os.environ["BENCH_REDACTION_TOKEN"] = TOKEN  # hypothesis runs many examples per call: no monkeypatch
    try:
        message = safe_message("x" * before + wrapper.format(TOKEN) + " tail" * 40, cap=cap)
    finally:
        del os.environ["BENCH_REDACTION_TOKEN"]
    assert len(message) <= cap
    assert not any(TOKEN[i:i + 6] in message for i in range(len(TOKEN) - 5)), message


def test_every_log_line_is_redacted_nested_values_included(registered_token: str, capsys) -> None:
    configure_logging("json", 0)
    try:
        structlog.get_logger("test").warning("call failed", message=f"Bearer {registered_token}",
                                             detail={"headers": [f"x {registered_token}"]},
                                             url="http://user:pw@host/v1", attempts=3)
    finally:
        structlog.reset_defaults()
    line = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert TOKEN not in json.dumps(line) and "pw@" not in json.dumps(line)
    assert line["message"] == "Bearer ***" and line["detail"] == {"headers": ["x ***"]}
    assert line["url"] == "http://***@host/v1" and line["attempts"] == 3
