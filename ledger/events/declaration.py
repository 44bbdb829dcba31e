"""An event type is declared once: `@declare(...)` on its class says everything the store and the fold need.

One declaration per type, beside its class, carries:
- `key`: its idempotency key rule, a function of the event (`ledger.events.keys`: each free-text
  part quoted with `part`, so no two subjects share a key);
- `blobs`: the fields that name a blob body (dotted paths, `*` for every value of a mapping), which
  `verify` requires stored and a copy takes along (`ledger.references`);
- `sealing`: what the event may do once its run has finished (`ledger.seal`): open a segment
  (`Opens`), close the run (`Closes`), join the segment its owner opened (`Joins`), or be
  housekeeping that changes no score (`Housekeeping`); `OPEN_RUN_ONLY` when it joins an open run only;
- `fold`: the name of the handler that folds it in `projections.state` (the ledger cannot import
  the fold; the fold looks the name up in its own table and refuses to load without it);
- `legacy` (optional): the key rules rows of older schema versions were written under
  (`LegacyKey`): a key rule is frozen history, so a changed rule comes with a new schema version
  and the old rule kept beside it, which `verify` checks those rows against.

Everything else is derived from `DECLARATIONS`: the union the mapper reads rows into, the key
table, the blob table, the seal's openers, closers and rules, the fold's dispatch and the
generated reference (`docs/events.md`). The decorator checks at import that every field a
declaration names is a field of the class, and `tests/ledger/test_event_declarations.py` fails when
an event class has no declaration or a declaration lacks a part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from benchledger.ledger.events.base import Event

__all__ = ["Opens", "Closes", "Joins", "Housekeeping", "SealRule", "OPEN_RUN_ONLY", "Declaration", "DECLARATIONS",
           "KEYS", "VERSIONS", "declare", "KeyRule", "LegacyKey"]

KeyRule = Callable[[Any], str]
"""An event (validated as its registered type) -> its idempotency key. Called once per event on
every append and every checked read: keep it one f-string."""


@dataclass(frozen=True)
class Opens:
    """After the run finished, this event opens a segment: `run` (a resume: the run is open again),
    or a `scorer`'s or an `audit`'s, owned by the value of the field `owner`."""

    segment: Literal["run", "scorer", "audit"]
    owner: str | None = None


@dataclass(frozen=True)
class Closes:
    """This event finishes the run: after it, the run is sealed."""


@dataclass(frozen=True)
class Joins:
    """In a sealed run, this event joins the `segment` whose owner is the value of its field `owner`
    (and only that one); with `when` (field, value), only events with that value do."""

    segment: Literal["scorer", "audit"]
    owner: str
    when: tuple[str, str] | None = None


@dataclass(frozen=True)
class Housekeeping:
    """In a sealed run, this event is admitted anywhere: it changes no score (a purge); with `when`
    (field, value), only events with that value are."""

    when: tuple[str, str] | None = None


SealRule = Opens | Closes | Joins | Housekeeping
OPEN_RUN_ONLY: tuple[SealRule, ...] = ()
"""The sealing of an event that joins an open run only: after a finish, it is refused."""


@dataclass(frozen=True)
class LegacyKey:
    """The key rule rows of this type were written under up to schema version `through` (frozen
    history: the form an older benchledger derived, kept so its rows still verify)."""

    through: int
    key: KeyRule


@dataclass(frozen=True)
class Declaration:
    """What the store and the fold know about one event type (see the module docstring)."""

    cls: type[Event]
    key: KeyRule
    blobs: tuple[tuple[str, ...], ...]
    """Paths of the fields naming a blob, each split at its dots."""
    sealing: tuple[SealRule, ...]
    fold: str
    legacy: tuple[LegacyKey, ...] = ()
    """Earlier key rules, oldest first, each for the rows of schema versions up to its `through`."""

    @property
    def type(self) -> str:
        return str(self.cls.__pydantic_fields__["type"].default)


DECLARATIONS: dict[str, Declaration] = {}
"""Event type name -> its declaration, in the order the classes were declared."""
KEYS: dict[str, KeyRule] = {}
"""Event type name -> its key rule: `DECLARATIONS`' keys as a plain dict, for the loops that key every row."""
VERSIONS: dict[str, int] = {}
"""Event type name -> the schema version its class writes (whose rows `KEYS` keys), for the same loops."""

E = TypeVar("E", bound=type[Event])


def declare(*, key: KeyRule, blobs: tuple[str, ...], sealing: tuple[SealRule, ...],
            fold: str, legacy: tuple[LegacyKey, ...] = ()) -> Callable[[E], E]:
    """Register the decorated event class with its key rule, blob fields, sealing and fold handler.

    Every part is required (`blobs=()` and `sealing=OPEN_RUN_ONLY` say "none"): a type cannot be
    declared with a part forgotten. Raises TypeError at import when the class is not an event, is
    declared twice, a part names a field the class does not have, or a legacy key rule is not for
    a schema version older than the class's.
    """

    def register(cls: E) -> E:
        event_class: type = cls
        if not (isinstance(event_class, type) and issubclass(event_class, Event)
                and "type" in event_class.__pydantic_fields__):
            raise TypeError(f"@declare takes an event class with a `type` literal, not {cls!r}")
        declaration = Declaration(event_class, key, tuple(tuple(path.split(".")) for path in blobs), tuple(sealing), fold,
                                  tuple(legacy))
        name = declaration.type
        if name != cls.__name__:
            raise TypeError(f"event class {cls.__name__} has type {name!r}: the type literal is the class name")
        if name in DECLARATIONS:
            raise TypeError(f"event type {name} is declared twice")
        _check_fields(declaration)
        DECLARATIONS[name] = declaration
        KEYS[name] = key
        VERSIONS[name] = event_class.schema_version
        return cls

    return register


def _check_fields(declaration: Declaration) -> None:
    fields, name = declaration.cls.__pydantic_fields__, declaration.type
    named = [path[0] for path in declaration.blobs]
    for rule in declaration.sealing:
        owner = getattr(rule, "owner", None)
        when = getattr(rule, "when", None)
        named += [owner] if owner else []
        named += [when[0]] if when else []
    missing = [field for field in named if field not in fields]
    if missing:
        raise TypeError(f"the declaration of {name} names {', '.join(missing)}, not fields of {name}")
    throughs = [rule.through for rule in declaration.legacy]
    if throughs != sorted(set(throughs)) or any(t >= declaration.cls.schema_version for t in throughs):
        raise TypeError(f"the legacy key rules of {name} must be for schema versions below its own "
                        f"({declaration.cls.schema_version}), oldest first, not {throughs}")
    if not isinstance(declaration.fold, str) or not declaration.fold.isidentifier():
        raise TypeError(f"the declaration of {name} needs its fold handler's name (fold=...), not {declaration.fold!r}")
