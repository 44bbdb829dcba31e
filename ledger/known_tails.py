"""What a writer knows of the runs it appended to: each run's tail, its seal, and its keys.

An append needs, under the ledger's tail lock, where the run's seal stands (a finished run takes
only what a segment admits, `ledger.seal`) and which of its batch's keys the run already holds.
Both follow from the run's rows, which only grow, so a writer that appended to a run remembers,
after its append, the run's last position and hash with the seal as it then stood and, when it
saw the run from its first row, every key the run holds. At its next append it reads the run's
tail (which it reads anyway, to continue the chain): the same position and hash mean no row has
joined the run since, and what it remembers is the run's state; anything else (another writer
appended, or this writer's last transaction rolled back after it noted the tail) and the state is
read from the ledger again, as without a memory. The seal is remembered as a copy and handed out
as a copy, so a batch refused halfway never changes what is remembered. The keys are one set per
run that only `note` adds to, as it replaces the run's entry with the new tail: an entry whose
tail still matches the ledger never holds a key the ledger lacks (if the transaction then fails,
the entry's tail is one the ledger never had, and it is not used).
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from dataclasses import dataclass

from benchledger.ledger.seal import Seal

__all__ = ["KnownTail", "KnownTails"]


@dataclass(frozen=True)
class KnownTail:
    """A run as this writer left it."""

    position: int
    hash: str
    seal: Seal
    keys: set[str] | None
    """Every idempotency key the run holds, when this writer saw the run from its first row
    (read it, never add to it: `KnownTails.note` does)."""


class KnownTails:
    """The last few runs a writer appended to (the least recently used is forgotten)."""

    def __init__(self, max_runs: int = 16) -> None:
        self.max_runs = max_runs
        self._runs: OrderedDict[str, KnownTail] = OrderedDict()

    def at(self, run_id: str, position: int, hash_: str) -> KnownTail | None:
        """What is remembered of the run, if its tail is still (position, hash); else None."""
        known = self._runs.get(run_id)
        if known is None or known.position != position or known.hash != hash_:
            return None
        self._runs.move_to_end(run_id)
        return KnownTail(known.position, known.hash, copy.copy(known.seal), known.keys)

    def knows_keys(self, run_id: str) -> bool:
        """Whether every key of the run is remembered (as of the tail remembered with them)."""
        known = self._runs.get(run_id)
        return known is not None and known.keys is not None

    def note(self, run_id: str, position: int, hash_: str, seal: Seal, keys: set[str] | None,
             added: list[str]) -> None:
        """Remember the run as an append just left it, at (position, hash) with `added` keys more
        than `keys` (the set the append started from, or a new run's empty set)."""
        if keys is not None:
            keys.update(added)
        self._runs[run_id] = KnownTail(position, hash_, copy.copy(seal), keys)
        self._runs.move_to_end(run_id)
        while len(self._runs) > self.max_runs:
            self._runs.popitem(last=False)

    def forget(self, run_id: str) -> None:
        self._runs.pop(run_id, None)
