"""Walking the hash chains over event rows: the part of `verify` that needs no database.

Rows arrive as `ChainRow`s (the `mapper.ROW_COLUMNS` and then `chain, link`) in `seq` order, and
each check names the first bad seq (see `ledger.chain` for the two versions):

- every row: `seq` follows the previous row's (a gap is deleted rows), and the row chains to the
  ledger value of the row before it (a version-1 row by its `prev_hash`, a version-2 row by its
  `link`), so a deleted, inserted or moved row, or run, breaks the ledger's chain;
- every row of a run the walk owns: its bytes still hash to its `hash`, a version-2 row's
  `prev_hash` is the hash of its run's previous row (`GENESIS` for the first), and positions run
  1, 2, 3, ... A version-1 row is also re-hashed when it belongs to another run, since its hash
  is the ledger's chain itself; another run's version-2 row only has its link checked.

`ChainWalk` walks a whole ledger (it owns every run) or a run's segment of it (a version-1 run,
whose rows link through other runs' rows). `walk_run_chain` is the fast path for a run written
under version 2 alone: its own rows, in order, and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from benchledger.ledger.chain import CHAIN_RUN, GENESIS, batch_linker, ledger_link
from benchledger.ledger.mapper import EventRow

__all__ = ["ChainRow", "Problem", "ChainWalk", "walk_run_chain", "position_problem", "changed", "unlinked",
           "missing_rows"]

class ChainRow(NamedTuple):
    """An event row (`mapper.EventRow`'s columns) with its chain columns: version and ledger link."""

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
        return EventRow._make(self[:10])

Problem = tuple["int | None", str]
"""(first bad seq or None, what is wrong)."""


class Linkers:
    """`batch_linker`s by (run, recorded_at): the rows of one append share their frames."""

    def __init__(self) -> None:
        self._linkers: dict[tuple[str, str], Callable[..., str]] = {}

    def rehash(self, row: ChainRow | EventRow) -> str:
        """The hash the row's stored bytes give, linked to its stored `prev_hash`."""
        run_id, recorded_at, payload = row.run_id, row.recorded_at, row.payload
        link = self._linkers.get((run_id, recorded_at))
        if link is None:
            if len(self._linkers) > 1024:
                self._linkers.clear()
            link = self._linkers[(run_id, recorded_at)] = batch_linker(run_id, recorded_at)
        return link(row.prev_hash, row.position, row.type, row.schema_version, row.idempotency_key,
                    payload if isinstance(payload, bytes) else payload.encode())


def changed(row: ChainRow | EventRow) -> Problem:
    return row.seq, f"seq {row.seq} ({row.type} of run {row.run_id}) was changed: its bytes do not match its hash"


def unlinked(seq: int) -> Problem:
    return seq, f"seq {seq} does not link to the row before it: a row was deleted, inserted or moved"


def missing_rows(first: int, last: int) -> Problem:
    return first, f"rows with seq {first}..{last} are missing (deleted)"


def _off_run_chain(seq: int, run_id: str) -> Problem:
    return seq, (f"seq {seq} does not link to the previous event of run {run_id}: an event of the "
                 "run was deleted, inserted or moved")


def position_problem(seq: int, run_id: str, position: int, last_position: int) -> Problem | None:
    if position != last_position + 1:
        return seq, (f"seq {seq} has position {position} in run {run_id}, expected "
                     f"{last_position + 1}: an event of the run is missing or moved")
    return None


class ChainWalk:
    """A walk over rows in seq order from (prev_seq, prev_value); `step` names the first problem.

    With `own_run` None every run is checked in full (a whole ledger, walked from seq 0 and
    `GENESIS`); with a run id, only that run's rows are (a segment starting at the run's first row).
    """

    def __init__(self, prev_seq: int = 0, prev_value: str = GENESIS, own_run: str | None = None) -> None:
        self.last_seq, self.value, self.own_run = prev_seq, prev_value, own_run
        self.checked = 0
        self._heads: dict[str, tuple[int, str]] = {}
        self._linkers = Linkers()

    def step(self, row: ChainRow) -> Problem | None:
        """Check one row after the rows already stepped over; None when it holds."""
        seq, run_id, position, stored_prev, stored_hash, chain, link = (
            row.seq, row.run_id, row.position, row.prev_hash, row.hash, row.chain, row.link)
        if seq != self.last_seq + 1:
            return missing_rows(self.last_seq + 1, seq - 1)
        own = self.own_run is None or run_id == self.own_run
        if chain == CHAIN_RUN:
            if link != ledger_link(self.value, stored_hash):
                return unlinked(seq)
        elif stored_prev != self.value:
            return unlinked(seq)
        if (own or chain != CHAIN_RUN) and self._linkers.rehash(row) != stored_hash:
            return changed(row)
        if own:
            last_position, last_hash = self._heads.get(run_id, (0, GENESIS))
            if chain == CHAIN_RUN and stored_prev != last_hash:
                return _off_run_chain(seq, run_id)
            problem = position_problem(seq, run_id, position, last_position)
            if problem:
                return problem
            self._heads[run_id] = (position, stored_hash)
            self.checked += 1
        self.last_seq = seq
        self.value = link if chain == CHAIN_RUN and link is not None else stored_hash
        return None

    def walk(self, rows: Iterable[ChainRow]) -> Problem | None:
        """Step over every row; the first problem, if any.

        A whole ledger is walked inline (this runs per row of `verify`), and any row the inline
        checks doubt is handed to `step`, which names what is wrong; a segment steps row by row.
        """
        if self.own_run is not None:
            return next((problem for row in rows if (problem := self.step(row))), None)
        heads, linkers = self._heads, self._linkers
        last_seq, value, checked = self.last_seq, self.value, self.checked
        for row in rows:
            seq, run_id, position, _, _, _, _, _, stored_prev, stored_hash, chain, link = row
            last_position, last_hash = heads.get(run_id, (0, GENESIS))
            if chain == CHAIN_RUN:
                holds = link == ledger_link(value, stored_hash) and stored_prev == last_hash
            else:
                holds = stored_prev == value
            if not (holds and seq == last_seq + 1 and position == last_position + 1
                    and linkers.rehash(row) == stored_hash):
                self.last_seq, self.value, self.checked = last_seq, value, checked
                problem = self.step(row)
                if problem:
                    return problem
                last_seq, value, checked = self.last_seq, self.value, self.checked
                continue
            heads[run_id] = (position, stored_hash)
            last_seq, value, checked = seq, link if chain == CHAIN_RUN and link is not None else stored_hash, checked + 1
        self.last_seq, self.value, self.checked = last_seq, value, checked
        return None


def walk_run_chain(rows: list[EventRow], run_id: str) -> Problem | None:
    """The first problem of a version-2 run's own rows (`ROW_COLUMNS`, in seq order), or None.

    Each row must re-hash to its hash, link to the run's previous row (the first to `GENESIS`)
    and take the next position; this is what a checked read pays per event, so it runs inline.
    """
    prev_hash, last_position, last_seq = GENESIS, 0, 0
    linkers: dict[str, Callable[..., str]] = {}
    for row in rows:
        seq, _, position, type_, version, recorded_at, key, payload, stored_prev, stored_hash = row
        link = linkers.get(recorded_at)
        if link is None:
            link = linkers[recorded_at] = batch_linker(run_id, recorded_at)
        if stored_prev != prev_hash:
            return _off_run_chain(seq, run_id)
        if link(stored_prev, position, type_, version, key,
                payload if isinstance(payload, bytes) else payload.encode()) != stored_hash:
            return changed(row)
        if position != last_position + 1 or seq <= last_seq:
            return position_problem(seq, run_id, position, last_position) or (
                seq, f"seq {seq} of run {run_id} comes before the run's earlier event: rows were moved")
        prev_hash, last_position, last_seq = stored_hash, position, seq
    return None
