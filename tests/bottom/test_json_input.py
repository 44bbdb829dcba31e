"""The bounded JSON loader (`benchledger.json_input`): depth and size limits on both sides, one line
naming the file and the limit, and values within the limits exactly as the stdlib reads them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from benchledger.errors import BadInput
from benchledger.json_input import (
    MAX_DEPTH, JsonTooDeep, JsonTooLarge, NamedFileMissing, load_file, load_json, load_lines, named_file,
    read_limited,
)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_depth_at_the_limit_parses_and_one_more_level_is_one_line_naming_file_line_and_limit(tmp_path: Path) -> None:
    at_limit = tmp_path / "ok.json"
    at_limit.write_text(nested(MAX_DEPTH))
    value, _text = load_file(at_limit)
    for _ in range(MAX_DEPTH - 1):
        value = value[0]
    assert value == []
    deep = tmp_path / "deep.json"
    deep.write_text('{"a":\n' + nested(MAX_DEPTH))  # the object is level one: the array's last level is one too many
    with pytest.raises(JsonTooDeep) as err:
        load_file(deep)
    assert str(err.value) == f"{deep}:2: JSON nested deeper than the limit of {MAX_DEPTH} levels"


def test_a_hundred_thousand_levels_are_refused_fast_and_brackets_inside_strings_are_not_levels(tmp_path: Path) -> None:
    with pytest.raises(JsonTooDeep):
        load_json(nested(100_000), source="reply")
    assert load_json(json.dumps({"text": "[" * 100_000}), source="reply") == {"text": "[" * 100_000}


def test_size_at_the_limit_parses_and_one_byte_more_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text('{"a": 1}')
    assert load_file(path, limit=8)[0] == {"a": 1}
    with pytest.raises(JsonTooLarge) as err:
        load_file(path, limit=7)
    assert str(err.value) == f"{path}: 8 bytes, over the limit of 7 bytes"
    with pytest.raises(JsonTooLarge):
        load_json(b'{"a": 1}', source="recall reply", limit=7)


def test_a_stream_is_refused_as_soon_as_it_passes_the_limit_and_never_read_further() -> None:
    pulled: list[int] = []

    def chunks():
        for index in range(1000):
            pulled.append(index)
            yield b"x" * 10

    assert read_limited(iter([b"ab", b"cd"]), limit=4, source="reply") == b"abcd"
    with pytest.raises(JsonTooLarge) as err:
        read_limited(chunks(), limit=25, source="recall reply from http://127.0.0.1:1/recall")
    assert pulled == [0, 1, 2], "the chunk that crossed the limit is the last one read"
    assert "recall reply from http://127.0.0.1:1/recall: more bytes, over the limit of 25 bytes" == str(err.value)


def test_syntax_errors_keep_the_stdlib_message_and_line_and_jsonl_lines_count_from_the_file(tmp_path: Path) -> None:
    path = tmp_path / "table.json"
    path.write_text('{\n "a": 1,\n}')
    with pytest.raises(BadInput, match=r"table.json:3: not valid JSON: Expecting property name"):
        load_file(path)
    lines = tmp_path / "records.jsonl"
    lines.write_text('{"a": 1}\n\n{"b": 2}\n' + nested(MAX_DEPTH + 1) + "\n")
    with pytest.raises(JsonTooDeep, match=r"records.jsonl:4: "):
        list(load_lines(lines))
    lines.write_text('{"a": 1}\n\n{"b": "\u2028"}\n')
    assert list(load_lines(lines)) == [(1, {"a": 1}), (3, {"b": "\u2028"})]


def test_within_the_limits_values_are_the_stdlibs_even_where_jiter_alone_refuses() -> None:
    text = '{"s": "\\ud800", "n": 1e400, "m": -0.0, "k": NaN, "big": 123456789012345678901234567890, "d": 1, "d": 2}'
    got, want = load_json(text, source="x"), json.loads(text)
    assert got["s"] == want["s"] == "\ud800" and got["big"] == want["big"] and got["d"] == 2
    assert got["n"] == math.inf and math.copysign(1, got["m"]) == -1 and math.isnan(got["k"])
    with pytest.raises(BadInput, match="an integer of 5000 digits"):
        load_json("1" * 5000, source="x")
    with pytest.raises(BadInput, match=r"x:1: not UTF-8 \(byte 1"):
        load_json(b'"\xff"', source="x")


def test_a_missing_named_file_is_one_line_naming_the_file_that_names_it(tmp_path: Path) -> None:
    present = tmp_path / "a.png"
    present.write_bytes(b"png")
    assert named_file(present, named_by="fixture.json") == present
    with pytest.raises(NamedFileMissing) as err:
        named_file(tmp_path / "b.png", named_by=tmp_path / "fixture.json", field="examples[0].question_image")
    assert str(err.value) == (f"{tmp_path / 'fixture.json'}: field 'examples[0].question_image': "
                              f"names {tmp_path / 'b.png'}, which is missing")
    assert err.value.exit_code == 2
