"""The mapper between stored rows and typed events; old schema versions are upcast on read.

The stored row is not the domain event: `StoredEvent` is the row (seq, run, position, chain
hashes, the stored `schema_version`) holding the typed event read from its JSON payload. A row
written under an older `schema_version` of its event class is passed through the registered
upcasters one version at a time (`UPCASTERS[(type, from_version)]`, a pure dict -> dict
function, `benchledger.ledger.upcasts`) before it is validated; the row itself is never
rewritten, so its hash still holds.

`rows_to_stored` maps many rows at once, with the cycle collector paused while the typed events
are built (`benchledger.collector`: most of the cost of reading a long run is otherwise the
collector rescanning them). A row that cannot be read (an unknown type, a payload that does not
validate, such as a number too long for Python to convert) raises LedgerError naming its seq,
never a traceback from the parser.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, ValidationError

from benchledger.collector import building_long_lived
from benchledger.errors import LedgerError
from benchledger.ledger.events import EVENT_TYPES, AnyEvent, Event, any_event_adapter
from benchledger.ledger.events.keys import KEYS
from benchledger.ledger.upcasts import SAME_PAYLOAD, UPCASTERS

__all__ = [
    "StoredEvent", "ROW_COLUMNS", "READ_AS_IS", "EventRow", "ChainRow", "Row", "event_rows", "row_to_stored", "rows_to_stored", "event_row", "stored_event",
]

def _read_as_is() -> frozenset[tuple[str, int]]:
    """(type, stored version) whose payload the current class reads unchanged: the current version,
    and each older one from which every later version changed the key rule only (`SAME_PAYLOAD`)."""
    found = set()
    for name, cls in EVENT_TYPES.items():
        version = cls.schema_version
        found.add((name, version))
        while (name, version - 1) in SAME_PAYLOAD:
            version -= 1
            found.add((name, version))
    return frozenset(found)


READ_AS_IS = _read_as_is()
"""(event type, schema version) of rows validated as they are stored, with no upcaster to run."""

ROW_COLUMNS = ("seq, run_id, position, type, schema_version, recorded_at, idempotency_key, "
               "payload, prev_hash, hash")

class EventRow(NamedTuple):
    """An event row selected as `ROW_COLUMNS`, as modules pass it to each other (hot loops unpack it)."""

    seq: int
    run_id: str
    position: int
    type: str
    schema_version: int
    recorded_at: str
    idempotency_key: str | None
    payload: str | bytes
    """The event's JSON as stored: text, or its UTF-8 bytes."""
    prev_hash: str
    hash: str


class ChainRow(NamedTuple):
    """An event row (`EventRow`'s columns) and then its chain columns, as `ledger.walk` reads it
    along the ledger. Declared beside `EventRow`, with the chain columns last: a column added to
    the one is added to the other here, and the walk reads `chain` and `link` from the end."""

    seq: int
    run_id: str
    position: int
    type: str
    schema_version: int
    recorded_at: str
    idempotency_key: str | None
    payload: str | bytes
    prev_hash: str
    hash: str
    chain: int
    """The row's chain version (`ledger.chain`)."""
    link: str | None
    """A version-2 row's link into the ledger's chain (None for version 1)."""

    def event_row(self) -> EventRow:
        """The row without its chain columns."""
        return EventRow._make(self[:-2])


Row = EventRow


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


def _read_event(type_: str, schema_version: int, payload: str | bytes) -> Event:
    cls = EVENT_TYPES.get(type_)
    if cls is None:
        raise LedgerError(f"unknown event type {type_!r} in the ledger; upgrade benchledger")
    if (type_, schema_version) in READ_AS_IS:
        event: Event = any_event_adapter.validate_json(payload)
        return event
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
    upcast: Event = any_event_adapter.validate_python(data)
    return upcast


def event_rows(rows: Iterable[tuple[object, ...]]) -> list[EventRow]:
    """Rows a query selected as `ROW_COLUMNS`, named."""
    return list(map(EventRow._make, rows))


def row_to_stored(row: Row) -> StoredEvent:
    """A row selected as `ROW_COLUMNS` -> StoredEvent with the (upcast) typed event."""
    seq, run_id, position, type_, version, recorded_at, key, payload, prev_hash, hash_ = row
    try:
        event = _read_event(type_, version, payload)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in error["loc"])
        detail = f"{where}: {error['msg']}" if where else error["msg"]
        raise LedgerError(f"seq {seq} ({type_} of run {run_id}) cannot be read: {detail}") from None
    except ValueError as exc:  # json.loads of an upcast row: a number too long to convert, ...
        detail = str(exc)
        raise LedgerError(f"seq {seq} ({type_} of run {run_id}) cannot be read: {detail}") from None
    # The row and its event were just read from our own file: the wrapper needs no revalidation.
    return stored_event(seq, run_id, position, type_, version, recorded_at, key, hash_, prev_hash,
                        event)


def rows_to_stored(rows: Iterable[Row]) -> list[StoredEvent]:
    """Many rows -> StoredEvents, in the order given (see the module docstring for the cost).

    A row of a current schema version (or of one `READ_AS_IS`) is validated inline; anything else (an upcast, an unknown
    type, a payload that does not validate) takes `row_to_stored`, which names the bad seq.
    """
    current, as_is = {name: cls.schema_version for name, cls in EVENT_TYPES.items()}, READ_AS_IS
    # Each row's class is known from its type column: its own validator skips the union's dispatch.
    validators = {name: cls.__pydantic_validator__.validate_json for name, cls in EVENT_TYPES.items()}
    stored: list[StoredEvent] = []
    with building_long_lived():
        for row in rows:
            seq, run_id, position, type_, version, recorded_at, key, payload, prev_hash, hash_ = row
            if current.get(type_) == version or (type_, version) in as_is:
                try:
                    event: Event = validators[type_](payload)
                except ValueError:
                    pass
                else:
                    stored.append(stored_event(seq, run_id, position, type_, version, recorded_at, key,
                                               hash_, prev_hash, event))
                    continue
            stored.append(row_to_stored(row))
    return stored


def event_row(event: Event) -> tuple[str, int, str, bytes]:
    """(type, schema_version, idempotency_key, payload JSON as UTF-8) of an event to store.

    Only the registered class of each type is stored (a subclass could serialise or key itself
    otherwise), and the key is derived from the payload as it will be read back: exactly
    `event.model_dump_json()`, taken from the serializer as bytes so the hash needs no second
    encoding, validated again as its type (so a `model_construct`ed event that would not read
    back is refused here, not found unreadable later). Raises ValueError when either fails.
    """
    cls = EVENT_TYPES.get(getattr(event, "type", None))  # type: ignore[arg-type]
    if cls is None or type(event) is not cls:
        raise ValueError(f"{type(event).__name__} is not an event type the ledger records; append "
                         "the registered event classes of `benchledger.ledger.events` only")
    payload = cls.__pydantic_serializer__.to_json(event)
    try:
        stored = cls.__pydantic_validator__.validate_json(payload)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in error["loc"])
        raise ValueError(f"its payload does not read back ({where}: {error['msg']})") from None
    return event.type, cls.schema_version, KEYS[event.type](stored), payload
