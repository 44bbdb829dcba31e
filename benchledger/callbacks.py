"""The callbacks a caller hands to a run: how to report progress, and how to redact a message.

Both have harmless defaults, so a library caller can pass neither.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

__all__ = ["Progress", "Redact", "no_progress", "no_redaction"]


class Progress(Protocol):
    """progress(stage, done, total, **detail): called as a stage advances (ingest, build, questions,
    recall). Ingest and build add `scopes_done`, `scopes` and `memory_calls` (the memory's own model
    calls so far), and are also called while a long batch runs, with the same counts."""

    def __call__(self, stage: str, done: int, total: int, /, **detail: int) -> None: ...


Redact = Callable[[str], str]
"""redact(text) -> text with every secret masked; applied to every message before it is recorded."""


def no_progress(stage: str, done: int, total: int, /, **detail: int) -> None:
    return None


def no_redaction(text: str) -> str:
    return text
