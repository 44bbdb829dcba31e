"""The store's rules over a run's typed rows, checked by `verify` and by every checked read.

The hash chain says the bytes are the ones written; these say the rows are ones the store would
have written:
- every row's idempotency key is the one its type and payload derive under the rule of its stored
  schema version (`ledger.events.keys.stored_key_rule`: the current rule, or for a row written
  before a rule changed, the legacy rule its declaration keeps): a stored key that differs (a NULL,
  the other form, or any other string a raw INSERT chose) is tampering;
- one key, one row: a second row under a key (same stage, item, scorer, segment) is tampering,
  even where the database's UNIQUE constraint was dropped or never held (a NULL key); a legacy row
  counts under its current key, so one subject is one row across both forms;
- a finished run is sealed (`ledger.seal`): a row after its finish that joins no segment opened by
  its own recorded event was not appended by the store, which refuses it.

Each problem names the row's seq. The check runs over rows the caller has already typed, once per
row: it is on the path of every `show`.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchledger.ledger.events.keys import CURRENT_VERSIONS, KEYS, is_legacy_form, stored_key_rule
from benchledger.ledger.mapper import StoredEvent
from benchledger.ledger.seal import CLOSERS, Seal
from benchledger.ledger.walk import Problem

__all__ = ["rules_problem", "legacy_key_rows"]


def rules_problem(events: Sequence[StoredEvent]) -> Problem | None:
    """The first row of one run (in position order) that breaks a store rule, or None."""
    seen: dict[str | None, StoredEvent] = {}
    keys, current, seal, sealed = KEYS, CURRENT_VERSIONS, Seal(), False
    for stored in events:
        event, type_, key = stored.event, stored.type, stored.idempotency_key
        if event.type != type_:
            return _broken(stored, None)
        if stored.schema_version != current[type_]:  # written under an older key rule, perhaps
            if stored_key_rule(type_, stored.schema_version)(event) != key:
                return _broken(stored, None)
            key = keys[type_](event)  # its subject, as a current row would name it
        elif keys[type_](event) != key:
            return _broken(stored, None)
        if key in seen:
            return _broken(stored, seen[key])
        seen[key] = stored
        if sealed or type_ in CLOSERS:  # an open run admits everything: skip the call
            refused = seal.admit(event)
            if refused:
                return stored.seq, f"seq {stored.seq} ({type_} of run {stored.run_id}) is {refused}"
            sealed = not seal.open
    return None


def _broken(stored: StoredEvent, first: StoredEvent | None) -> Problem:
    """What is wrong with a row the loop above doubts (the loop stays inline: it runs per row):
    `first` is the earlier row of its subject, when that is what is wrong."""
    seq, event, where = stored.seq, stored.event, f"seq {stored.seq} ({stored.type} of run {stored.run_id})"
    if event.type != stored.type:
        return seq, f"seq {seq} of run {stored.run_id} is stored as {stored.type} but its payload is a {event.type}"
    if first is None:
        key = stored_key_rule(stored.type, stored.schema_version)(event)
        form = (f" (the legacy key form of schema version {stored.schema_version})"
                if is_legacy_form(stored.type, stored.schema_version) else "")
        return seq, (f"{where} is stored under key {stored.idempotency_key!r}, but its payload derives "
                     f"{key!r}{form}: the row was not written by the store")
    key = KEYS[stored.type](event)
    same = "key" if first.idempotency_key == stored.idempotency_key else f"subject (key {key!r} in today's form)"
    return seq, (f"{where} repeats {same} {stored.idempotency_key!r} of seq {first.seq}: one key is one row, "
                 "the first recorded")


def legacy_key_rows(events: Sequence[StoredEvent]) -> list[StoredEvent]:
    """The rows of one run keyed in a legacy form: written before their type's key rule changed
    (their stored schema version is older), and checked against that rule."""
    current = CURRENT_VERSIONS
    return [stored for stored in events
            if stored.schema_version != current[stored.type] and is_legacy_form(stored.type, stored.schema_version)]
