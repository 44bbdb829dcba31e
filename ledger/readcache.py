"""A bounded cache of the runs a `Ledger` has read, valid forever because rows never change.

A run's events are append-only with gapless positions, so the typed events read for positions
1..P stay right for as long as the file is a ledger; the next read only fetches positions after
P. This spares re-validating every event's JSON when a run is folded again and again (the run
loop re-folds after each stage). The least recently used run is dropped beyond `max_runs`.
`verify` never reads through this cache: it checks the stored bytes.
"""

from __future__ import annotations

from collections import OrderedDict

from benchledger.ledger.mapper import StoredEvent

__all__ = ["RunCache"]


class RunCache:
    """run_id -> its events in position order, for the few most recently read runs."""

    def __init__(self, max_runs: int = 4) -> None:
        self.max_runs = max_runs
        self._runs: OrderedDict[str, list[StoredEvent]] = OrderedDict()

    def last_position(self, run_id: str) -> int:
        """Position of the last cached event of the run (0 when none are cached)."""
        events = self._runs.get(run_id)
        return events[-1].position if events else 0

    def get(self, run_id: str) -> list[StoredEvent]:
        """The cached events (the cache's own list: copy before handing it out)."""
        events = self._runs.get(run_id)
        if events is None:
            return []
        self._runs.move_to_end(run_id)
        return events

    def add_read(self, run_id: str, new: list[StoredEvent]) -> None:
        """Add the rows read after the cached ones (in position order)."""
        if new:
            self._runs.setdefault(run_id, []).extend(new)
            self._touch(run_id)

    def replace(self, run_id: str, events: list[StoredEvent]) -> None:
        """Keep exactly these events (a whole run, just read and checked) for the run."""
        self._runs[run_id] = list(events)
        self._touch(run_id)

    def add_written(self, run_id: str, new: list[StoredEvent]) -> None:
        """Add rows this process just appended, if the run is cached and they follow it."""
        if new and run_id in self._runs and new[0].position == self.last_position(run_id) + 1:
            self._runs[run_id].extend(new)
            self._touch(run_id)
        # otherwise another writer's events lie between: the next read fetches them all

    def _touch(self, run_id: str) -> None:
        self._runs.move_to_end(run_id)
        while len(self._runs) > self.max_runs:
            self._runs.popitem(last=False)
