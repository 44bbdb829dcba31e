"""The callbacks a caller hands to a run: how to report progress, and how to redact a message.

Both have harmless defaults, so a library caller can pass neither.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Progress", "Redact", "no_progress", "no_redaction"]

Progress = Callable[[str, int, int], None]
"""progress(stage, done, total): called as a stage advances (ingest, build, questions, recall)."""

Redact = Callable[[str], str]
"""redact(text) -> text with every secret masked; applied to every message before it is recorded."""


def no_progress(stage: str, done: int, total: int) -> None:
    return None


def no_redaction(text: str) -> str:
    return text
