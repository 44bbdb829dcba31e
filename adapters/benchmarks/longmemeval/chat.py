"""The one shape of every official LongMemEval model call (judge, reader, chain-of-note).

Each sends a single message with role "user" and `n=1`, `temperature=0`; only the model, the
prompt and `max_tokens` vary (judge 10, reader 500 or 800 with cot, chain-of-note 500).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ChatRequest"]


@dataclass(frozen=True)
class ChatRequest:
    model: str
    prompt: str
    max_tokens: int
    question_id: str | None = None
    role: str = "user"
    n: int = 1
    temperature: int = 0

    def create_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of `client.chat.completions.create`."""
        return {"model": self.model, "messages": [{"role": self.role, "content": self.prompt}],
                "n": self.n, "temperature": self.temperature, "max_tokens": self.max_tokens}
