"""The one chain walker (`ledger.walk.ChainWalk`) over rows built in memory, no database.

The same rows are walked along the ledger and along their run alone; the inline walk must name
exactly what stepping row by row names, for any one field of any row changed.
"""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from benchledger.ledger.chain import GENESIS
from benchledger.ledger.mapper import ChainRow
from benchledger.ledger.walk import ChainWalk
from chain_rows import AT, relinked

RUNS = ("run-a", "run-b", "run-a", "run-c", "run-b", "run-a")


def ledger_rows(chain: int, runs: tuple[str, ...] = RUNS) -> list[ChainRow]:
    """Rows of the runs in this seq order, every one under `chain`, hashed and linked."""
    positions: dict[str, int] = {}
    rows = []
    for seq, run_id in enumerate(runs, 1):
        positions[run_id] = positions.get(run_id, 0) + 1
        payload = f'{{"n": {seq}}}'.encode()
        rows.append((seq, run_id, positions[run_id], "Failed", 1, AT, f"k{seq}", payload, "", "", chain, None))
    return [ChainRow._make(row) for row in relinked(rows)]


def stepped(walk: ChainWalk, rows: list[ChainRow]) -> tuple[int | None, str] | None:
    return next((problem for row in rows if (problem := walk.step(row))), None)


def test_a_clean_ledger_walks_along_the_ledger_and_each_run_along_itself():
    for chain in (1, 2):
        rows = ledger_rows(chain)
        walk = ChainWalk()
        assert walk.walk(rows) is None and walk.checked == len(rows)
    rows = ledger_rows(2)
    for run_id in ("run-a", "run-b", "run-c"):
        own = [row for row in rows if row.run_id == run_id]
        walk = ChainWalk.of_run(run_id)
        assert walk.walk(own) is None and walk.checked == len(own)
        assert walk.walk(row.event_row() for row in own[:0]) is None


def test_a_changed_byte_is_named_at_the_same_seq_in_either_order():
    rows = ledger_rows(2)
    rows[2] = rows[2]._replace(payload=b'{"n": 9}')
    assert ChainWalk().walk(rows) == (3, "seq 3 (Failed of run run-a) was changed: its bytes do not match its hash")
    own = [row.event_row() for row in rows if row.run_id == "run-a"]
    assert ChainWalk.of_run("run-a").walk(own) == ChainWalk().walk(rows)
    assert ChainWalk.of_run("run-b").walk([row for row in rows if row.run_id == "run-b"]) is None


def test_a_version_1_run_checks_along_the_ledger_but_is_no_chain_of_its_own():
    rows = ledger_rows(1)
    segment = ChainWalk(own_run="run-b")  # run-b's rows link through run-a's row between them
    assert segment.walk(rows) is None and segment.checked == 2
    own = [row for row in rows if row.run_id == "run-b"]
    problem = ChainWalk.of_run("run-b").walk(own)
    assert problem is not None and problem[0] == 2  # its first row already links to run-a's
    alone = ledger_rows(1, ("run-a", "run-a", "run-b"))  # nothing written between its events
    assert ChainWalk.of_run("run-a").walk(alone[:2]) is None


def test_a_walk_along_a_run_takes_only_its_rows_after_the_prefix_it_starts_from():
    rows = [row for row in ledger_rows(2) if row.run_id == "run-a"]
    assert ChainWalk.of_run("run-a", 1, rows[0].hash).walk(rows[1:]) is None
    assert ChainWalk.of_run("run-a", 1, rows[0].hash).walk(rows) == (
        1, "seq 1 does not link to the previous event of run run-a: an event of the run was deleted, "
           "inserted or moved")
    assert ChainWalk.of_run("run-a", 2, rows[1].hash).walk(rows[1:])[0] == 3
    other = ledger_rows(2, ("run-b",))[0]
    assert ChainWalk.of_run("run-a").walk([other]) == (1, "seq 1 is an event of run run-b, not of run run-a")
    assert ChainWalk.of_run("run-b").walk([other]) is None and GENESIS == other.prev_hash


FIELDS = ("seq", "run_id", "position", "type", "recorded_at", "idempotency_key", "payload", "prev_hash",
          "hash", "chain", "link")


def changed(row: ChainRow, field: str, rows: list[ChainRow]) -> ChainRow:
    """The row with one field changed: a number moved on, a hash or run taken from the next row."""
    value = getattr(row, field)
    if field in ("seq", "position"):
        return row._replace(**{field: value + 1})
    if field == "chain":
        return row._replace(chain=3 - value)
    if field in ("prev_hash", "hash", "link", "run_id"):
        return row._replace(**{field: getattr(rows[row.seq % len(rows)], field)})
    return row._replace(**{field: value + (b" " if field == "payload" else "x")})


@given(chain=st.sampled_from([1, 2]), index=st.integers(0, len(RUNS) - 1), field=st.sampled_from(FIELDS))
def test_the_inline_walk_names_what_stepping_row_by_row_names(chain, index, field):
    rows = ledger_rows(chain)
    rows[index] = changed(rows[index], field, rows)
    assert ChainWalk().walk(rows) == stepped(ChainWalk(), rows)
    run_id = rows[index].run_id
    own = [row for row in rows if row.run_id == run_id]
    assert ChainWalk.of_run(run_id).walk(own) == stepped(ChainWalk.of_run(run_id), own)
    if rows != ledger_rows(chain):
        assert ChainWalk().walk(rows) is not None  # along the ledger, every changed field shows


@pytest.mark.parametrize("chain", [1, 2])
def test_a_walk_goes_on_from_where_it_stopped(chain):
    rows = ledger_rows(chain)
    walk = ChainWalk()
    assert walk.walk(rows[:3]) is None and walk.walk(rows[3:]) is None and walk.checked == len(rows)
    rows[4] = rows[4]._replace(position=1)  # and every hash and link made consistent again
    rows = [ChainRow._make(row) for row in relinked(rows)]
    walk = ChainWalk()
    assert walk.walk(rows[:3]) is None
    assert walk.walk(rows[3:]) == (5, "seq 5 has position 1 in run run-b, expected 2: an event of the run "
                                      "is missing or moved")
