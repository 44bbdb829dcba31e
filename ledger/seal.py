"""A finished run is sealed: later events join it only inside a segment their own event opened.

A run is open from its first event until a `RunFinished`. After it, the run is sealed, and an
event joins it only as one of these:
- an opener, recorded as its own event naming where its model calls go: `RunResumed` (a resume;
  the run is open again until its next finish), `ScorerStarted` or `ScorerContinued` (a scorer's
  segment), `AuditStarted` or `AuditContinued` (an audit's segment);
- inside the segment the latest opener opened: a scorer's own verdicts and judge failures
  (`Judged`, `Failed` at stage judge, of that scorer id), an audit's own plants (`PlantJudged`,
  `PlantFailed` of that audit id);
- housekeeping that changes no score: `ScopePurged` and `Failed` at stage purge (`benchledger
  purge` after the run).

Anything else after a finish (a second answer, another finish, a verdict of another scorer, a run
failure) is refused at append (`RunSealed`, nothing written) and named by seq in `verify` and in
every checked read. Each event type declares its part with its class (`@declare(sealing=...)`,
`ledger.events.declaration`: `Opens`, `Closes`, `Joins`, `Housekeeping`), and `Seal` is the one rule
over those declarations that both use: the writer replays the run's openers and finishes (few
rows, found by their idempotency keys) and admits its batch; `ledger.rules` admits every row of a
run in order.
"""

from __future__ import annotations

from typing import Any

from benchledger.ledger.events import DECLARATIONS
from benchledger.ledger.events.declaration import Closes, Housekeeping, Joins, Opens, SealRule
from benchledger.ledger.events.keys import key_form

__all__ = ["Seal", "OPENERS", "CLOSERS", "CONTROL_KEY_RANGES", "SEALING"]

SEALING: dict[str, tuple[SealRule, ...]] = {name: d.sealing for name, d in DECLARATIONS.items()}
"""Event type -> what it may do in a finished run, as its declaration says."""
OPENERS = frozenset(name for name, rules in SEALING.items() if any(isinstance(rule, Opens) for rule in rules))
"""Event types that open a segment of a sealed run."""
CLOSERS = frozenset(name for name, rules in SEALING.items() if any(isinstance(rule, Closes) for rule in rules))
"""Event types that seal a run."""
CONTROL_KEY_RANGES = tuple((f"{family}:", f"{family};") for family in sorted(
    {key_form(name).split(":", 1)[0] for name in OPENERS | CLOSERS}))
"""Idempotency key ranges that hold every opener and finish (with whatever else shares their keys'
first word, a run's start and plan, its audits' plants, which `Seal` passes over): how the writer
finds them without reading the run."""

_OPEN = "open"
_SEALED = "sealed"


class Seal:
    """Where a run stands as its events are admitted in order; see the module docstring."""

    def __init__(self) -> None:
        self.segment: tuple[str, str | None] = (_OPEN, None)
        """("open", None), ("sealed", None), ("scorer", scorer id) or ("audit", audit id)."""

    @property
    def open(self) -> bool:
        return self.segment[0] == _OPEN

    def admit(self, event: Any) -> str | None:
        """Take the next event of the run; why it may not join the run, or None when it may."""
        type_ = event.type
        if self.segment[0] == _OPEN:
            if type_ in CLOSERS:
                self.segment = (_SEALED, None)
            return None
        for rule in SEALING[type_]:
            if isinstance(rule, Opens):
                self.segment = ((_OPEN, None) if rule.segment == "run"
                                else (rule.segment, getattr(event, rule.owner) if rule.owner else None))
                return None
            if isinstance(rule, (Joins, Housekeeping)) and rule.when and getattr(event, rule.when[0]) != rule.when[1]:
                continue
            if isinstance(rule, Housekeeping):
                return None
            if isinstance(rule, Joins) and self.segment == (rule.segment, getattr(event, rule.owner)):
                return None
        where = ("after it finished" if self.segment[0] == _SEALED
                 else f"inside the segment of {self.segment[0]} {self.segment[1]}")
        return (f"a {type_} {where} joins no segment of the run: a finished run takes only a resume, "
                "a scorer or an audit recorded as its own event, and what that segment records")
