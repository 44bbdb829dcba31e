"""Text helpers every layer shares: capping a message before it is recorded."""

from __future__ import annotations

__all__ = ["MESSAGE_CAP", "cap_message"]

MESSAGE_CAP = 500


def cap_message(text: str, cap: int = MESSAGE_CAP) -> str:
    """Cap an error message so a huge exception text never bloats the ledger."""
    return text if len(text) <= cap else text[: cap - 1] + "…"
