"""Idempotency keys: derived by the store from a row's type and payload, never taken from a caller.

One key per stage and item: a run records each at most once, resume plans "planned minus
recorded" from them, and the fold takes the first event under each. Each event type declares its
key rule with its class (`@declare(key=...)`, `ledger.events.declaration`); `KEYS` is the table of
those rules. The key of a row is `KEYS[type](event)` applied to the event as validated from its
stored payload, so a caller cannot supply one or suppress it (an event subclass overriding a
method changes nothing: the writer refuses classes that are not the registered ones and derives
the key itself), and `verify` re-derives every row's key and compares it with the stored one.

A key rule is frozen history like an upcaster: changing what a key says would make every
earlier row of that type read as tampered. So a changed rule is a new schema version of its type
(with an upcaster that keeps the payload, `ledger.upcasts`), and the old rule stays in the
declaration (`legacy=(LegacyKey(through=1, key=...),)`): a row says by its stored schema version
which rule wrote its key (`stored_key_rule`), `verify` checks it against that one and names such
rows as in the legacy key form (`is_legacy_form`), and the store's rules hold one row per subject
across both forms (`derive_key` of the upcast event, the current form, is what must not repeat).

Issue 32 item 5 is why rules changed: the `failed:` key said `failed:<stage>:<scorer>:<item>`,
where the item was a question id or a scope key, so a question and a scope of one name shared a
key; the judge, scorer and audit keys joined free-text ids with `:` unquoted. Every key now names
the kind of each subject it holds (`question:`, `scope:`, `scorer:`, `plant:`) and quotes it with
`part`; the keys whose one free-text part is fixed by the type (`recall:<question id>`,
`ingest:<preparation>:<scope key>:<batch>`, where the parts around it are numbers or literals)
cannot collide and keep their form.
"""

from __future__ import annotations

from typing import Any

from benchledger.ledger.events.declaration import DECLARATIONS, KEYS, VERSIONS, KeyRule

__all__ = ["KEYS", "derive_key", "key_form", "legacy_key_form", "part", "stored_key_rule", "is_legacy_form",
           "CURRENT_VERSIONS"]

CURRENT_VERSIONS = VERSIONS
"""Event type -> the schema version this code writes (whose rows are keyed by `KEYS`; filled as
each type is declared)."""


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


def stored_key_rule(type_name: str, schema_version: int) -> KeyRule:
    """The rule a row of this type and stored schema version was keyed by: the declared rule for
    the current version, else the oldest legacy rule whose `through` covers the version."""
    if schema_version >= CURRENT_VERSIONS[type_name]:
        return KEYS[type_name]
    for legacy in DECLARATIONS[type_name].legacy:
        if schema_version <= legacy.through:
            return legacy.key
    return KEYS[type_name]


def is_legacy_form(type_name: str, schema_version: int) -> bool:
    """True when a row of this type and stored schema version is keyed in a legacy form."""
    return stored_key_rule(type_name, schema_version) is not KEYS[type_name]


class _FieldNames:
    """Stands in for an event so its key rule spells the key's form: each field as <name>."""

    def __getattr__(self, name: str) -> str:
        return f"<{name}>"


def key_form(type_name: str) -> str:
    """The form of an event type's idempotency key, from its declared rule (`run:finish:<attempt>`)."""
    return KEYS[type_name](_FieldNames())


def legacy_key_form(type_name: str) -> list[tuple[int, str]]:
    """(through schema version, the key's form then) for each legacy key rule of an event type."""
    return [(legacy.through, legacy.key(_FieldNames())) for legacy in DECLARATIONS[type_name].legacy]
