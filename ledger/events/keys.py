"""Idempotency keys: derived by the store from a row's type and payload, never taken from a caller.

One key per stage and item: a run records each at most once, resume plans "planned minus
recorded" from them, and the fold takes the first event under each. Each event type declares its
key rule with its class (`@declare(key=...)`, `ledger.events.declaration`); `KEYS` is the table of
those rules. The key of a row is `KEYS[type](event)` applied to the event as validated from its
stored payload, so a caller cannot supply one or suppress it (an event subclass overriding a
method changes nothing: the writer refuses classes that are not the registered ones and derives
the key itself), and `verify` re-derives every row's key and compares it with the stored one.

A key rule is frozen history like an upcaster: changing what a key says would make every
earlier row of that type read as tampered.
"""

from __future__ import annotations

from typing import Any

from benchledger.ledger.events.declaration import KEYS

__all__ = ["KEYS", "derive_key", "key_form", "part"]


def part(value: str | None) -> str:
    """One free-text value (an id a release, a user or a memory chose) as a part of a key.

    `:` separates a key's parts, so a value holding one is quoted (`%3A`, and `%` as `%25`), and
    None is `-` (a value that is exactly `-` is `%2D`): two different values never give one part,
    so two subjects never share a key. Most values hold neither and come back as they are.
    """
    if value is None:
        return "-"
    if ":" in value or "%" in value:
        return value.replace("%", "%25").replace(":", "%3A")
    return "%2D" if value == "-" else value


def derive_key(event: Any) -> str:
    """The idempotency key of an event of a registered type (by its `type` literal)."""
    return KEYS[event.type](event)


class _FieldNames:
    """Stands in for an event so its key rule spells the key's form: each field as <name>."""

    def __getattr__(self, name: str) -> str:
        return f"<{name}>"


def key_form(type_name: str) -> str:
    """The form of an event type's idempotency key, from its declared rule (`run:finish:<attempt>`)."""
    return KEYS[type_name](_FieldNames())
