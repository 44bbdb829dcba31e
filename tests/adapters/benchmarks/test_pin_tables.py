"""Every benchmark's shipped pin table is complete: each pin says for which revision and who states it,
each file without one says why; and the tables hold the pins the public sources state."""

from __future__ import annotations

import re

import pytest

from benchledger.adapters.benchmarks.registry import available_benchmarks
from benchledger.pins import FORMAT, Pin, PinTable


@pytest.mark.parametrize("entry", [e for e in available_benchmarks() if e.loaded is not None and
                                   e.loaded.pin_table() is not None], ids=lambda e: e.name)
def test_every_shipped_table_says_for_each_file_who_pins_it_or_why_nothing_does(entry):
    table = entry.loaded.pin_table()
    assert table.benchmark == entry.loaded.name and len(table) > 0
    for item in table:
        assert not item.path.startswith(("/", "../")) and ".." not in item.path.split("/")
        if item.role == "code":
            assert item.path == f"source/{item.source_path}"
        if isinstance(item, Pin):
            assert re.fullmatch(r"[0-9a-f]{64}", item.sha256) and item.bytes > 0, item.path
            assert re.fullmatch(r"[0-9a-f]{40}", item.revision), item.path
            assert item.pinned_by.strip(), item.path
        else:
            assert item.why.strip(), item.path
    assert PinTable.from_json(table.to_json()).entries == table.entries


def test_the_tables_ship_the_pins_the_sources_state():
    benchmarks = {e.loaded.name: e.loaded for e in available_benchmarks() if e.loaded is not None}
    longmemeval = benchmarks["LongMemEval"].pin_table()
    assert {p.path: (p.sha256[:12], p.bytes) for p in longmemeval.pins() if p.role == "release"} == {
        "longmemeval_s_cleaned.json": ("d6f21ea9d60a", 277_383_467),
        "longmemeval_m_cleaned.json": ("9d79e5524794", 2_737_100_077),
        "longmemeval_oracle.json": ("821a2034d219", 15_388_478)}
    assert {p.revision for p in longmemeval.pins() if p.role == "release"} == {"98d7416c24c778c2fee6e6f3006e7a073259d48f"}
    locomo = benchmarks["LoCoMo"].pin_table().pin("locomo10.json")
    assert (locomo.sha256, locomo.bytes) == ("79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4",
                                             2_805_274)
    assert [u.path for u in benchmarks["LongMemEval-V2"].pin_table().unpinned()] == [
        "questions.jsonl", "trajectories.jsonl", "haystacks/lme_v2_small.json", "haystacks/lme_v2_medium.json"]
    assert all(u.path.startswith("data/final/") for u in benchmarks["GroupMemBench"].pin_table().unpinned())
    assert FORMAT == "benchledger-pins/1"
