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
every checked read. `Seal` is the one rule both use: the writer replays the run's openers and
finishes (few rows, found by their idempotency keys) and admits its batch; `ledger.rules` admits
every row of a run in order.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Seal", "OPENERS", "CLOSERS", "CONTROL_KEY_RANGES"]

OPENERS = frozenset({"RunResumed", "ScorerStarted", "ScorerContinued", "AuditStarted", "AuditContinued"})
"""Event types that open a segment of a sealed run."""
CLOSERS = frozenset({"RunFinished"})
"""Event types that seal a run."""
CONTROL_KEY_RANGES = (("run:", "run;"), ("scorer:", "scorer;"), ("audit:", "audit;"))
"""Idempotency key ranges that hold every opener and finish (with a run's start and plan, and
its audits' plants, which `Seal` passes over): how the writer finds them without reading the run."""

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
        if type_ == "RunResumed":
            self.segment = (_OPEN, None)
        elif type_ in ("ScorerStarted", "ScorerContinued"):
            self.segment = ("scorer", event.scorer_id)
        elif type_ in ("AuditStarted", "AuditContinued"):
            self.segment = ("audit", event.audit_id)
        elif not (_housekeeping(event) or self._inside(event)):
            where = ("after it finished" if self.segment[0] == _SEALED
                     else f"inside the segment of {self.segment[0]} {self.segment[1]}")
            return (f"a {type_} {where} joins no segment of the run: a finished run takes only a resume, "
                    "a scorer or an audit recorded as its own event, and what that segment records")
        return None

    def _inside(self, event: Any) -> bool:
        kind, owner = self.segment
        if kind == "scorer":
            return bool((event.type == "Judged" or (event.type == "Failed" and event.stage == "judge"))
                        and event.scorer_id == owner)
        if kind == "audit":
            return bool(event.type in ("PlantJudged", "PlantFailed") and event.audit_id == owner)
        return False


def _housekeeping(event: Any) -> bool:
    return bool(event.type == "ScopePurged" or (event.type == "Failed" and event.stage == "purge"))
