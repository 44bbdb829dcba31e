"""The mapper between stored rows and typed events; old schema versions are upcast on read.

The stored row is not the domain event: `StoredEvent` is the row (seq, run, position, chain
hashes, the stored `schema_version`) holding the typed event read from its JSON payload. A row
written under an older `schema_version` of its event class is passed through the registered
upcasters one version at a time (`UPCASTERS[(type, from_version)]`, a pure dict -> dict
function, `benchledger.ledger.upcasts`) before it is validated; the row itself is never
rewritten, so its hash still holds.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict

from benchledger.errors import LedgerError
from benchledger.ledger.events import EVENT_TYPES, AnyEvent, Event, any_event_adapter
from benchledger.ledger.upcasts import UPCASTERS

__all__ = ["StoredEvent", "ROW_COLUMNS", "row_to_stored", "event_row", "stored_event"]

ROW_COLUMNS = ("seq, run_id, position, type, schema_version, recorded_at, idempotency_key, "
               "payload, prev_hash, hash")


class StoredEvent(BaseModel):
    """One ledger row with its typed domain event."""

    model_config = ConfigDict(frozen=True)

    seq: int
    """Global order of the row in the ledger, from 1."""
    run_id: str
    position: int
    """Order within the run, from 1, without gaps."""
    type: str
    schema_version: int
    """The version the row was written under (the event itself is upcast to the current one)."""
    recorded_at: str
    """UTC ISO-8601 time of the append."""
    idempotency_key: str | None
    hash: str
    prev_hash: str
    event: AnyEvent


_FIELDS = set(StoredEvent.model_fields)
_set = object.__setattr__


def stored_event(seq: int, run_id: str, position: int, type_: str, schema_version: int,
                 recorded_at: str, idempotency_key: str | None, hash_: str, prev_hash: str,
                 event: Event) -> StoredEvent:
    """A StoredEvent from trusted values (just written, or read from our own file).

    It sets what `model_construct` sets, without its per-field Python loop, which would cost
    the append path as much as hashing; `test_store` checks it equals a validated StoredEvent.
    """
    stored = StoredEvent.__new__(StoredEvent)
    _set(stored, "__dict__", {
        "seq": seq, "run_id": run_id, "position": position, "type": type_,
        "schema_version": schema_version, "recorded_at": recorded_at,
        "idempotency_key": idempotency_key, "hash": hash_, "prev_hash": prev_hash, "event": event,
    })
    _set(stored, "__pydantic_fields_set__", _FIELDS)
    _set(stored, "__pydantic_extra__", None)
    _set(stored, "__pydantic_private__", None)
    return stored


def _read_event(type_: str, schema_version: int, payload: str) -> Event:
    cls = EVENT_TYPES.get(type_)
    if cls is None:
        raise LedgerError(f"unknown event type {type_!r} in the ledger; upgrade benchledger")
    if schema_version == cls.schema_version:
        return any_event_adapter.validate_json(payload)
    if schema_version > cls.schema_version:
        raise LedgerError(
            f"{type_} row has schema_version {schema_version}, newer than this benchledger "
            f"knows ({cls.schema_version}); upgrade benchledger"
        )
    data = json.loads(payload)
    for version in range(schema_version, cls.schema_version):
        lift = UPCASTERS.get((type_, version))
        if lift is None:
            raise LedgerError(f"no upcaster registered for {type_} schema_version {version}")
        data = lift(data)
    return any_event_adapter.validate_python(data)


def row_to_stored(row: tuple) -> StoredEvent:
    """A row selected as `ROW_COLUMNS` -> StoredEvent with the (upcast) typed event."""
    seq, run_id, position, type_, version, recorded_at, key, payload, prev_hash, hash_ = row
    # The row and its event were just read from our own file: the wrapper needs no revalidation.
    return stored_event(seq, run_id, position, type_, version, recorded_at, key, hash_, prev_hash,
                        _read_event(type_, version, payload))


def event_row(event: Event) -> tuple[str, int, str | None, bytes]:
    """(type, schema_version, idempotency_key, payload JSON as UTF-8) of an event to store.

    The payload is exactly `event.model_dump_json()`, taken from the serializer as bytes so the
    hash needs no second encoding.
    """
    payload = event.__pydantic_serializer__.to_json(event)
    return event.type, type(event).schema_version, event.idempotency_key(), payload
