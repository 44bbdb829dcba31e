"""The store's rules over a run's typed rows, checked by `verify` and by every checked read.

The hash chain says the bytes are the ones written; these say the rows are ones the store would
have written:
- every row's idempotency key is the one its type and payload derive (`ledger.reader.events.keys`): a
  stored key that differs (a NULL, or any other string a raw INSERT chose) is tampering;
- one key, one row: a second row under a key (same stage, item, scorer, segment) is tampering,
  even where the database's UNIQUE constraint was dropped or never held (a NULL key);
- a finished run is sealed (`ledger.seal`): a row after its finish that joins no segment opened by
  its own recorded event was not appended by the store, which refuses it.

Each problem names the row's seq. The check runs over rows the caller has already typed, once per
row: it is on the path of every `show`.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchledger.ledger.events.keys import KEYS
from benchledger.ledger.mapper import StoredEvent
from benchledger.ledger.seal import CLOSERS, Seal
from benchledger.ledger.walk import Problem

__all__ = ["rules_problem"]


def rules_problem(events: Sequence[StoredEvent]) -> Problem | None:
    """The first row of one run (in position order) that breaks a store rule, or None."""
    seen: set[str | None] = set()
    add, keys, seal, sealed = seen.add, KEYS, Seal(), False
    for stored in events:
        event, type_, key = stored.event, stored.type, stored.idempotency_key
        if event.type != type_ or keys[type_](event) != key or key in seen:
            return _broken(stored, [row for row in events if row.idempotency_key == key])
        add(key)
        if sealed or type_ in CLOSERS:  # an open run admits everything: skip the call
            refused = seal.admit(event)
            if refused:
                return stored.seq, f"seq {stored.seq} ({type_} of run {stored.run_id}) is {refused}"
            sealed = not seal.open
    return None


def _broken(stored: StoredEvent, same_key: list[StoredEvent]) -> Problem:
    """What is wrong with a row the loop above doubts (the loop stays inline: it runs per row)."""
    seq, event, where = stored.seq, stored.event, f"seq {stored.seq} ({stored.type} of run {stored.run_id})"
    if event.type != stored.type:
        return seq, f"seq {seq} of run {stored.run_id} is stored as {stored.type} but its payload is a {event.type}"
    key = KEYS[stored.type](event)
    if stored.idempotency_key != key:
        return seq, (f"{where} is stored under key {stored.idempotency_key!r}, but its payload derives "
                     f"{key!r}: the row was not written by the store")
    return seq, f"{where} repeats key {key!r} of seq {same_key[0].seq}: one key is one row, the first recorded"
