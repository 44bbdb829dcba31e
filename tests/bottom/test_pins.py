"""Pin tables (`benchledger.pins`): the file format read and written, refused when malformed; the
canonical URL of a pinned file (`tests/adapters/benchmarks/test_pin_tables.py` holds the shipped tables)."""

from __future__ import annotations

import pytest

from benchledger.pins import FORMAT, Pin, PinTable, Unpinned, canonical_url

SHA = "a" * 64


def _table() -> PinTable:
    return PinTable("Toy", (
        Pin("weekly/a.json", SHA, 10, "github.com/o/r", "1" * 40, "data/weekly/a.json", "the tests"),
        Pin("source/eval.py", "b" * 64, 20, "github.com/o/code", "2" * 40, "eval.py", "the tests", role="code"),
        Unpinned("corpus.json", "huggingface.co/datasets/o/d", None, "corpus.json", "nobody states it")))


def test_a_table_reads_back_what_it_writes():
    table = _table()
    again = PinTable.from_json(table.to_json())
    assert again.entries == table.entries and again.benchmark == "Toy"
    assert table.pin("weekly/a.json").source_path == "data/weekly/a.json"
    assert table.pin("corpus.json") is None and table.entry("corpus.json").why == "nobody states it"
    assert table.pin("nosuch.json") is None and len(table) == 3
    assert [p.path for p in table.pins()] == ["weekly/a.json", "source/eval.py"]


def test_a_malformed_table_is_refused():
    data = _table().to_json()
    with pytest.raises(ValueError, match="format 'benchledger-pins/0'"):
        PinTable.from_json({**data, "format": "benchledger-pins/0"})
    short = {**data, "groups": [{**data["groups"][0], "files": {"a.json": ["abc", 1]}}]}
    with pytest.raises(ValueError, match="a pin is"):
        PinTable.from_json(short)
    no_revision = {**data, "groups": [{**data["groups"][0], "revision": None}]}
    with pytest.raises(ValueError, match="needs the revision"):
        PinTable.from_json(no_revision)
    twice = PinTable("Toy", (*_table().given, Unpinned("weekly/a.json", "github.com/o/r", None, "x", "again")))
    with pytest.raises(ValueError, match="lists weekly/a.json twice"):
        twice.entries


def test_the_canonical_url_is_the_files_own_host():
    assert canonical_url("github.com/o/r", "1" * 40, "data/a.json") == \
        f"https://raw.githubusercontent.com/o/r/{'1' * 40}/data/a.json"
    assert canonical_url("huggingface.co/datasets/o/d", "c" * 40, "x.json") == \
        f"https://huggingface.co/datasets/o/d/resolve/{'c' * 40}/x.json"
    with pytest.raises(ValueError):
        canonical_url("example.com/x", "1", "y")
