"""One chat call to any OpenAI-compatible endpoint: bounded retries, a response cache, no secrets.

`ChatClient.complete` sends one chat completion through the `openai` SDK with the SDK's own
retries turned off, so this module decides and counts every attempt:

- 429 (waiting at least its `Retry-After`), 408, 5xx, timeouts and connection errors are retried
  under the shared `RetryPolicy` (`benchledger.retry`: exponential backoff with full jitter, up to
  `max_attempts` attempts in all); when they run out, `TransientModelError` is raised.
- Other HTTP errors (400, 401, 404, ...) raise `ModelError` at once; a body that is not a chat
  completion raises `ModelParseError`; an empty completion raises `EmptyResponseError`.
- A reply is read in chunks up to `max_reply_bytes` and refused as soon as it passes it
  (`ReplyTooLarge`, not retried: `adapters.models.reply_limit`); within it, the body is parsed with the
  bounded parser first (`benchledger.json_input`: a body nested past its depth is a `ModelParseError`,
  not the SDK's `RecursionError`).
- Error messages never contain the API key: every message is redacted (`benchledger.redaction`:
  the key, bearer tokens, `sk-` keys, URL credentials) and only then capped, before it leaves
  this module. A successful reply is redacted the same way, whole, before anything reads it: an
  endpoint that echoes the key in a normal answer must not get it recorded, cached or printed.

With a `ResponseCache` (see `adapters.models.response_cache`) a call whose `cache_key` is stored
is answered from it with `cache_hit=True` and the usage first paid for. Only complete, non-empty
responses that pass the caller's `validate` are stored, so an error or an unparsable reply is
asked again next time.

With an `EndpointScheduler` (`adapters.models.scheduler`) every HTTP attempt first waits for a slot
at the endpoint and then reports how it ended, with the reply's rate-limit headers (read through
the SDK's `with_raw_response`), so answer and judge calls to one endpoint share one adaptive limit
and one view of the provider's budget. The attempt's tokens are estimated before it is sent (the
prompt's characters / 4, plus `max_tokens` or `max_completion_tokens` when the call sets one).

A call that offers `tools` is answered with the reply's message, content and tool calls both,
as `adapters.models.tool_calls.tool_reply_text` records it (the arguments exactly as the endpoint
sent them): a reply with no content and no call is the agent's answer (no call), not an empty one.

The client is safe to share between threads (the SDK client is; counters take a lock).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from typing import Any, cast

from pydantic import BaseModel, ConfigDict

from benchledger.adapters.models.base import (
    EmptyResponseError, ModelError, ModelParseError, TransientModelError, Usage,
)
from benchledger.adapters.models.response_cache import ResponseCache, cache_key
from benchledger.adapters.models.scheduler import EndpointScheduler, Ticket
from benchledger.adapters.models.tool_calls import tool_reply_text
from benchledger.clock import monotonic_ms
from benchledger.errors import BadInput
from benchledger.json_input import load_json
from benchledger.providers import OPENAI_DEFAULT_BASE_URL
from benchledger.redaction import redact, safe_message
from benchledger.retry import RetryPolicy, retry_after_seconds
from benchledger.settings import ModelCalls

__all__ = ["ChatResult", "ChatClient", "DEFAULT_BASE_URL"]

DEFAULT_BASE_URL = OPENAI_DEFAULT_BASE_URL


class ChatResult(BaseModel):
    """One completed chat call (from the endpoint or from the cache)."""

    model_config = ConfigDict(frozen=True)

    text: str
    model: str
    """The model the endpoint says answered."""
    usage: Usage
    cache_hit: bool = False
    latency_ms: float = 0.0
    attempts: int = 0
    """HTTP attempts made for this call (0 on a cache hit)."""


class ChatClient:
    """A chat-completions client with counted, bounded retries and an optional response cache."""

    def __init__(
        self,
        calls: ModelCalls = ModelCalls(),
        *,
        cache: ResponseCache | None = None,
        scheduler: EndpointScheduler | None = None,
    ) -> None:
        api_key = os.environ.get(calls.api_key_env, "")
        if not api_key:
            raise BadInput(f"set the environment variable {calls.api_key_env} to the endpoint's API key "
                           "(or name another variable)", field="api_key_env")
        # Never $OPENAI_BASE_URL here: the endpoint is the one the settings name (and the ledger
        # records); the CLI reads the variable into the setting where it means to.
        self.base_url = (calls.base_url or DEFAULT_BASE_URL).rstrip("/")
        self.timeout = calls.timeout
        self.retry = RetryPolicy(max_attempts=calls.max_attempts, backoff_base=calls.backoff_base,
                                 max_retry_after=calls.max_retry_after)
        self.cache = cache
        self.scheduler = scheduler
        self._secrets = (api_key,)
        import openai  # imported on first use: the SDK is a large share of every command's start-up

        from benchledger.adapters.models.reply_limit import bounded_http_client  # imports httpx2, as the SDK does

        self.max_reply_bytes = calls.max_reply_bytes
        self._sdk = openai.OpenAI(api_key=api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0,
                                  http_client=bounded_http_client(self.base_url, self.max_reply_bytes))
        self._lock = threading.Lock()
        self.stats = {"calls": 0, "attempts": 0, "retries": 0, "cache_hits": 0, "failures": 0}

    def _count(self, **increments: int) -> None:
        with self._lock:
            for name, value in increments.items():
                self.stats[name] += value

    def complete(
        self,
        *,
        model: str,
        messages: list[dict],
        params: dict | None = None,
        validate: Callable[[str], object] | None = None,
    ) -> ChatResult:
        """One chat completion; `validate(text)` must accept the text before it is cached."""
        params = dict(params or {})
        key = cache_key(base_url=self.base_url, model=model, messages=messages, params=params)
        self._count(calls=1)
        if self.cache is not None and (stored := self.cache.get(key)) is not None:
            if validate is not None:
                validate(stored["text"])
            self._count(cache_hits=1)
            return ChatResult(text=stored["text"], model=stored.get("model", model),
                              usage=Usage(**stored.get("usage", {})), cache_hit=True)
        started = monotonic_ms()
        text, answered_by, usage, attempts = self._request_with_retries(model, messages, params)
        if validate is not None:
            validate(text)
        if self.cache is not None:
            self.cache.put(key, {"text": text, "model": answered_by, "usage": usage.model_dump()}, model=model)
        return ChatResult(text=text, model=answered_by, usage=usage,
                          latency_ms=monotonic_ms() - started, attempts=attempts)

    def _request_with_retries(self, model: str, messages: list[dict], params: dict) -> tuple[str, str, Usage, int]:
        try:
            (text, answered_by, usage), attempts = self.retry.call(
                lambda: self._request_once(model, messages, params),
                before_retry=lambda _error: self._count(retries=1))
        except TransientModelError as error:
            self._count(failures=1)
            raise TransientModelError(
                f"{model}: gave up after {self.retry.max_attempts} attempts: {error}") from None
        except ModelError:
            self._count(failures=1)
            raise
        return text, answered_by, usage, attempts

    def _request_once(self, model: str, messages: list[dict], params: dict) -> tuple[str, str, Usage]:
        import openai  # already loaded by __init__; a dictionary lookup

        self._count(attempts=1)
        if self.scheduler is None:
            return self._attempt(model, messages, params, None)
        with self.scheduler.call(_estimated_tokens(messages, params)) as ticket:
            return self._attempt(model, messages, params, ticket)

    def _attempt(self, model: str, messages: list[dict], params: dict,
                 ticket: Ticket | None) -> tuple[str, str, Usage]:
        import openai

        from benchledger.adapters.models.reply_limit import ReplyTooLarge

        try:
            # messages are plain role/content dicts, built per protocol; the SDK's TypedDicts add nothing here
            raw = self._sdk.chat.completions.with_raw_response.create(
                model=model, messages=cast(Any, messages), **params)
            if ticket is not None:
                ticket.done(raw.headers)
            # jiter first: the SDK's json.loads would recurse past Python's limit on a deep body
            load_json(raw.http_response.content, source="the reply", limit=self.max_reply_bytes)
            completion = raw.parse()
        except ReplyTooLarge as error:
            raise ReplyTooLarge(safe_message(f"{model}: {error}", self._secrets)) from None
        except BadInput as error:
            raise ModelParseError(self._message(model, "the endpoint's reply is not a chat completion", error)) from None
        except openai.RateLimitError as error:
            retry_after = retry_after_seconds(error.response.headers)
            if ticket is not None:
                ticket.refused(error.response.headers, retry_after)
            raise self._transient(error, retry_after=retry_after) from None
        except openai.InternalServerError as error:
            raise self._transient(error, retry_after=None) from None
        except openai.APITimeoutError as error:
            if ticket is not None:
                ticket.timed_out()
            raise self._transient(error, retry_after=None) from None
        except openai.APIConnectionError as error:
            raise self._transient(error, retry_after=None) from None
        except openai.APIResponseValidationError as error:
            raise ModelParseError(self._message(model, "the endpoint's reply is not a chat completion", error)) from None
        except openai.APIStatusError as error:
            if error.status_code == 408:  # the server's own request timeout
                raise self._transient(error, retry_after=None) from None
            refused = ModelError(self._message(model, f"HTTP {error.status_code}", error))
            refused.status_code = error.status_code
            raise refused from None
        except (openai.OpenAIError, json.JSONDecodeError, ValueError, TypeError) as error:
            raise ModelParseError(self._message(model, "the endpoint's reply is not a chat completion", error)) from None
        try:  # the SDK builds replies leniently, so a foreign body shows up as missing attributes
            message = completion.choices[0].message
            text = message.content or ""
            if not isinstance(text, str):
                raise TypeError("content is not text")
            if "tools" in params:
                text = tool_reply_text(message.content, [
                    (str(call.function.name), str(call.function.arguments)) for call in message.tool_calls or ()])
        except (AttributeError, IndexError, TypeError):
            raise ModelParseError(f"{model}: the endpoint's reply is not a chat completion (no choices)") from None
        if not text.strip():
            raise EmptyResponseError(f"{model}: the endpoint returned an empty completion")
        usage = Usage(prompt_tokens=getattr(completion.usage, "prompt_tokens", 0) or 0,
                      completion_tokens=getattr(completion.usage, "completion_tokens", 0) or 0)
        return redact(text, self._secrets), redact(completion.model or model, self._secrets), usage

    def _transient(self, error: Exception, *, retry_after: float | None) -> TransientModelError:
        status = getattr(error, "status_code", None)
        what = f"HTTP {status}" if status else type(error).__name__
        transient = TransientModelError(self._message("", what, error).lstrip(": "))
        transient.retry_after = retry_after
        return transient

    def _message(self, model: str, what: str, error: Exception) -> str:
        return safe_message(f"{model}: {what}: {error}", self._secrets)


def _estimated_tokens(messages: list[dict], params: dict) -> float:
    """What an attempt will count against a token budget: the prompt (about four characters a token,
    as `estimate_tokens`) plus the completion limit the call sets, if any."""
    characters = sum(len(str(message.get("content") or "")) for message in messages)
    completion = params.get("max_completion_tokens") or params.get("max_tokens") or 0
    return characters / 4 + float(completion)
