"""A chat client that sends nothing: it counts what each call would cost, for a forecast.

`ForecastClient.complete` takes the same arguments as `ChatClient.complete`, so the benchmark's own
answer and judge models build their real messages (the released prompts, the passage format, the
official templates) and hand them here. Each call is counted under the stage the caller set
(`client.stage = "answer"`): its prompt's estimated tokens (characters / 4, `estimate_tokens`'s
rule, which the pacing uses too) and its completion limit (`max_tokens` / `max_completion_tokens`,
the most it can cost; 0 when the call sets none). The reply is the loopback endpoint's
deterministic one for that request (`adapters.models.loopback.reply_for`), so the judge is asked
about an answer of a plausible length and every protocol's parser accepts it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from benchledger.adapters.models.base import Usage
from benchledger.adapters.models.loopback import reply_for
from benchledger.adapters.models.openai_chat import ChatClient, ChatResult
from benchledger.retry import RetryPolicy

__all__ = ["ForecastClient", "StageCount"]


@dataclass
class StageCount:
    """The calls one stage would make, and their estimated tokens, per model."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    """The completion limits the calls set: an upper bound."""
    by_model: dict[str, list[int]] = field(default_factory=dict)
    """model -> [calls, prompt tokens, completion tokens]."""


class ForecastClient(ChatClient):
    """Counts calls per stage; never opens a connection, never reads a key (see the module docstring)."""

    def __init__(self) -> None:  # no super().__init__: there is no endpoint, no key and no SDK client
        self.base_url, self.cache, self.scheduler = "forecast", None, None
        self.retry = RetryPolicy(max_attempts=1)
        self.stage = "answer"
        self.stages: dict[str, StageCount] = {}
        self._lock = threading.Lock()

    def complete(self, *, model: str, messages: list[dict], params: dict | None = None,
                 validate: Callable[[str], object] | None = None) -> ChatResult:
        params = dict(params or {})
        prompt = sum(max(1, (len(str(m.get("content") or "")) + 3) // 4) for m in messages)
        completion = int(params.get("max_completion_tokens") or params.get("max_tokens") or 0)
        with self._lock:
            count = self.stages.setdefault(self.stage, StageCount())
            count.calls += 1
            count.prompt_tokens += prompt
            count.completion_tokens += completion
            row = count.by_model.setdefault(model, [0, 0, 0])
            row[0], row[1], row[2] = row[0] + 1, row[1] + prompt, row[2] + completion
        text = reply_for({"model": model, "messages": messages, **params})
        return ChatResult(text=text or "Final: unknown", model=model,
                          usage=Usage(prompt_tokens=prompt, completion_tokens=completion))
