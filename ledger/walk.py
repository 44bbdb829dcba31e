"""Walking the hash chains over event rows: the part of `verify` that needs no database.

One walker, `ChainWalk`, checks rows of both chain versions (see `ledger.chain`) in `seq` order
and names the first bad seq. It walks in one of two orders:

- along the ledger (every row, or a run's segment of it): `seq` follows the previous row's (a gap
  is deleted rows), and each row links to the ledger value of the row before it (a version-1 row
  by its `prev_hash`, a version-2 row by its `link`), so a deleted, inserted or moved row, or run,
  breaks the ledger's chain;
- along one run alone (`ChainWalk.of_run`: a version-2 run's rows, a copy of a run): each row's
  `prev_hash` is the hash of the run's previous row (`GENESIS` for the first), whatever its
  version, and `seq` only grows. This is also the test of a run being copyable: a version-1 run
  passes it only if none of its rows linked through another run's row.

Then, in either order, every row of a run the walk owns re-hashes to its `hash`, a version-2 row's
`prev_hash` is the hash of its run's previous row, and positions run 1, 2, 3, ... A version-1 row
is also re-hashed when it belongs to another run, since its hash is the ledger's chain itself;
another run's version-2 row only has its link checked. The order of the checks is the order of
the messages: where the row stands first (its link to what comes before it in the walk), then its
bytes, then its place in its run.

`step` is the rule, row by row; `walk` is the same rule inline (it runs per row of every `verify`
and checked read) and hands any row it doubts to `step`, which names what is wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import cast

from benchledger.ledger.chain import CHAIN_RUN, GENESIS, batch_linker, ledger_link
from benchledger.ledger.mapper import ChainRow, EventRow

__all__ = ["Problem", "ChainWalk", "position_problem", "changed", "unlinked", "missing_rows"]

Problem = tuple["int | None", str]
"""(first bad seq or None, what is wrong)."""


class _Linkers(dict[tuple[str, str], Callable[..., str]]):
    """`batch_linker`s by (run, recorded_at): the rows of one append share their frames."""

    def __missing__(self, key: tuple[str, str]) -> Callable[..., str]:
        if len(self) > 1024:
            self.clear()
        link = self[key] = batch_linker(*key)
        return link

    def rehash(self, row: ChainRow | EventRow) -> str:
        """The hash the row's stored bytes give, linked to its stored `prev_hash`."""
        payload = row.payload
        return self[row.run_id, row.recorded_at](
            row.prev_hash, row.position, row.type, row.schema_version, row.idempotency_key,
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


def _moved_back(seq: int, run_id: str) -> Problem:
    return seq, f"seq {seq} of run {run_id} comes before the run's earlier event: rows were moved"


class ChainWalk:
    """A walk over rows in seq order from (prev_seq, prev_value); `step` names the first problem.

    With `own_run` None every run is checked in full (a whole ledger, walked from seq 0 and
    `GENESIS`); with a run id, only that run's rows are (a segment starting at the run's first
    row, or with `of_run` the run's rows alone).
    """

    def __init__(self, prev_seq: int = 0, prev_value: str = GENESIS, own_run: str | None = None) -> None:
        self.last_seq, self.value, self.own_run = prev_seq, prev_value, own_run
        self.along_ledger = True
        """False for a walk over one run's rows alone (`of_run`): links are checked within the run."""
        self.checked = 0
        self._heads: dict[str, tuple[int, str]] = {}
        self._linkers = _Linkers()

    @classmethod
    def of_run(cls, run_id: str, last_position: int = 0, last_hash: str = GENESIS) -> ChainWalk:
        """A walk over the rows of one run alone, after the event at `last_position` with `last_hash`
        (none: the run's start)."""
        walk = cls(own_run=run_id)
        walk.along_ledger = False
        if last_position:
            walk._heads[run_id] = (last_position, last_hash)
        return walk

    def step(self, row: ChainRow | EventRow) -> Problem | None:
        """Check one row after the rows already stepped over; None when it holds."""
        seq, run_id, position, stored_prev, stored_hash = (
            row.seq, row.run_id, row.position, row.prev_hash, row.hash)
        own = self.own_run is None or run_id == self.own_run
        last_position, last_hash = self._heads.get(run_id, (0, GENESIS))
        if not self.along_ledger:
            chain, link = CHAIN_RUN, None  # linked within its run, whatever its version
            if run_id != self.own_run:
                return seq, f"seq {seq} is an event of run {run_id}, not of run {self.own_run}"
            if stored_prev != last_hash:
                return _off_run_chain(seq, run_id)
        else:
            assert isinstance(row, ChainRow), "a walk along the ledger reads the chain columns"
            chain, link = row.chain, row.link
            if seq != self.last_seq + 1:
                return missing_rows(self.last_seq + 1, seq - 1)
            if chain == CHAIN_RUN:
                if link != ledger_link(self.value, stored_hash):
                    return unlinked(seq)
            elif stored_prev != self.value:
                return unlinked(seq)
        if (own or chain != CHAIN_RUN) and self._linkers.rehash(row) != stored_hash:
            return changed(row)
        if own:
            if chain == CHAIN_RUN and stored_prev != last_hash:
                return _off_run_chain(seq, run_id)
            problem = position_problem(seq, run_id, position, last_position)
            if problem:
                return problem
            if seq <= self.last_seq:
                return _moved_back(seq, run_id)
            self._heads[run_id] = (position, stored_hash)
            self.checked += 1
        self.last_seq = seq
        if self.along_ledger:
            self.value = link if chain == CHAIN_RUN and link is not None else stored_hash
        return None

    def walk(self, rows: Iterable[ChainRow] | Iterable[EventRow]) -> Problem | None:
        """Step over every row; the first problem, if any.

        A whole ledger and a run alone are walked inline, the checks of `step` in one expression
        (this runs per row of `verify` and of every checked read), and any row they doubt is
        handed to `step`, which names what is wrong; a segment steps row by row.
        """
        if self.own_run is not None and self.along_ledger:
            return next((problem for row in rows if (problem := self.step(row))), None)
        heads, linkers, along, own_run = self._heads, self._linkers, self.along_ledger, self.own_run
        last_seq, value, checked = self.last_seq, self.value, self.checked
        # The run and the append of the row before, held in locals: rows come in long stretches of
        # one run and one append, so most rows touch no dict.
        run: str | None = None
        at: str | None = None
        run_head, link_row = (0, GENESIS), batch_linker("", "")
        for row in rows:
            seq, run_id, position, type_, version, recorded_at, key, payload, stored_prev, stored_hash = row[:10]
            if run_id != run:
                if run is not None:
                    heads[run] = run_head
                run, run_head, at = run_id, heads.get(run_id, (0, GENESIS)), None
            if recorded_at != at:
                at, link_row = recorded_at, linkers[run_id, recorded_at]
            if not along:
                holds = stored_prev == run_head[1] and seq > last_seq and run_id == own_run
            elif (chained := cast(ChainRow, row))[-2] == CHAIN_RUN:  # along the ledger: ChainRows
                link = chained[-1]
                holds = (link == ledger_link(value, stored_hash) and stored_prev == run_head[1]
                         and seq == last_seq + 1)
            else:
                link = None
                holds = stored_prev == value and seq == last_seq + 1
            if not (holds and position == run_head[0] + 1 and link_row(
                    stored_prev, position, type_, version, key,
                    payload if isinstance(payload, bytes) else payload.encode()) == stored_hash):
                if run is not None:
                    heads[run] = run_head
                self.last_seq, self.value, self.checked = last_seq, value, checked
                problem = self.step(row)
                if problem:
                    return problem
                last_seq, value, checked = self.last_seq, self.value, self.checked
                run = at = None  # step moved the heads on: read them again
                continue
            run_head, last_seq, checked = (position, stored_hash), seq, checked + 1
            if along:
                value = link if link is not None else stored_hash
        if run is not None:
            heads[run] = run_head
        self.last_seq, self.value, self.checked = last_seq, value, checked
        return None
