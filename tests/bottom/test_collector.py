"""Building long-lived objects with the cycle collector paused: nothing leaks, nothing stays paused,
and typing and folding a long run run no collection while they build."""

from __future__ import annotations

import gc
import sqlite3

import pytest

from benchledger.bench.fold_bench import run_events
from benchledger.bench.synthetic import BODY
from benchledger.collector import building_long_lived
from benchledger.ledger.mapper import ROW_COLUMNS, rows_to_stored
from benchledger.ledger.store import Ledger
from benchledger.projections.state import fold_run


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_the_collector_is_paused_inside_and_running_after_even_on_error() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with building_long_lived():
            assert not gc.isenabled()
            with building_long_lived():  # nested: the outer block resumes it
                assert not gc.isenabled()
            assert not gc.isenabled()
            raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_cycle_built_inside_is_still_collected_once_dropped() -> None:
    freeze_count = gc.get_freeze_count()
    with building_long_lived():
        a, b = Node(), Node()
        a.other, b.other = b, a
    assert gc.get_freeze_count() == freeze_count  # moved to the oldest generation, not frozen
    collected = []
    gc.callbacks.append(lambda phase, info: phase == "stop" and collected.append(info["collected"]))
    try:
        del a, b
        gc.collect()
    finally:
        gc.callbacks.pop()
    assert sum(collected) >= 2


def test_what_the_program_froze_itself_stays_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with building_long_lived():
            Node()
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_only_a_block_that_built_a_young_generation_moves_it_to_the_oldest() -> None:
    threshold = gc.get_threshold()[0]
    gc.collect()
    with building_long_lived():
        few = [Node() for _ in range(threshold // 10)]
    assert gc.get_count()[0] >= len(few)  # left young: no move, so no walk of what a program froze
    with building_long_lived():
        many = [Node() for _ in range(threshold * 2)]
    assert gc.get_count()[0] < len(few)  # moved: the young generation starts again from nothing
    assert len(many) == threshold * 2


def test_typing_and_folding_a_long_run_run_no_collection_while_they_build(tmp_path) -> None:
    events = run_events(6_000)
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        ledger.writer.append("long", events)
    conn = sqlite3.connect(tmp_path / "ledger.db")
    rows = conn.execute(f"SELECT {ROW_COLUMNS} FROM events ORDER BY seq").fetchall()
    conn.close()
    collections: list[int] = []
    gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info["generation"]))
    try:
        stored = rows_to_stored(rows)
        typing_collections = list(collections)
        state = fold_run("long", stored)
        fold_collections = collections[len(typing_collections):]
    finally:
        gc.callbacks.pop()
    assert len(stored) == 6_000 and state.events == 6_000
    assert typing_collections == [] and fold_collections == []


def test_a_checked_read_of_a_long_run_runs_no_collection_from_fetch_to_typed_events(tmp_path) -> None:
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        ledger.writer.append("long", run_events(6_000), blobs=[BODY])
    collections: list[int] = []
    with Ledger.open(tmp_path / "ledger.db", create=False) as ledger:
        gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info["generation"]))
        try:
            checked = ledger.reader.verified_events("long")
        finally:
            gc.callbacks.pop()
    assert len(checked) == 6_000 and collections == []
