"""Reading a released JSON file and naming the line of whatever in it is wrong.

LoCoMo, LongMemEval and Memora ship plain JSON documents. Each adapter validates the parsed value
with pydantic models of the release's own shape; when validation fails, the error's `loc` path
(e.g. `(3, "qa", 37, "category")`) is turned into the line where that item starts. Finding the
line needs positions the C decoder does not keep, so only on that error path the file is parsed
again with the stdlib's pure-Python scanner, whose object and array hooks record where each
container starts. The fast path pays nothing.
"""

from __future__ import annotations

import json
import json.scanner
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from benchledger.errors import BadInput

__all__ = ["huge_integer", "read_json", "line_of", "validate", "dotted"]

ModelT = TypeVar("ModelT", bound=BaseModel)


def read_json(path: Path) -> tuple[Any, str]:
    """Parse a UTF-8 JSON file; missing files, bad bytes and bad JSON raise BadInput with a line."""
    if not path.is_file():
        raise BadInput("file not found", file=str(path))
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise BadInput(f"not UTF-8 (byte {err.start}: {err.reason})", file=str(path),
                       line=data[: err.start].count(b"\n") + 1) from err
    try:
        return json.loads(text), text
    except json.JSONDecodeError as err:
        raise BadInput(f"not valid JSON: {err.msg} (column {err.colno})", file=str(path),
                       line=err.lineno) from err
    except ValueError:  # an integer longer than Python converts
        raise huge_integer(text, path) from None
    except RecursionError:
        raise BadInput("JSON nested too deeply", file=str(path)) from None


def huge_integer(text: str, path: Path, *, line: int | None = None, offset: int = 0) -> BadInput:
    """The one-line error for JSON holding an integer longer than Python converts (its digit limit)."""
    limit = sys.get_int_max_str_digits()
    match = re.compile(r"\d{%d,}" % (limit + 1)).search(text, offset)
    if match is not None and line is None:
        line = text[:match.start()].count("\n") + 1
    digits = f"{len(match.group())} digits" if match else f"more than {limit} digits"
    return BadInput(f"an integer of {digits}, longer than the {limit} digits Python reads", file=str(path),
                    line=line)


def _positions(text: str) -> tuple[Any, dict[int, int]]:
    """Parse again, mapping id(container) -> character offset where it starts."""
    starts: dict[int, int] = {}
    # The pure-Python scanner's hooks are undocumented (and untyped); they are the only way to learn
    # where each container starts without writing a JSON parser.
    decoder: Any = json.JSONDecoder()
    scanner: Any = json.scanner
    parse_object, parse_array = decoder.parse_object, decoder.parse_array

    def object_at(s_and_end, *args):
        value, end = parse_object(s_and_end, *args)
        starts[id(value)] = s_and_end[1] - 1
        return value, end

    def array_at(s_and_end, *args):
        value, end = parse_array(s_and_end, *args)
        starts[id(value)] = s_and_end[1] - 1
        return value, end

    decoder.parse_object, decoder.parse_array = object_at, array_at
    decoder.scan_once = scanner.py_make_scanner(decoder)
    return decoder.decode(text), starts


def line_of(text: str, path: Sequence[int | str]) -> int:
    """1-based line where the deepest container on `path` starts (scalars report their parent)."""
    value, starts = _positions(text)
    offset = starts.get(id(value), 0)
    for step in path:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            break
        if id(value) in starts:
            offset = starts[id(value)]
    return text.count("\n", 0, offset) + 1


def dotted(path: Sequence[int | str]) -> str:
    """`(3, "qa", 37, "category")` -> `[3].qa[37].category`."""
    return "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path).lstrip(".")


def _data_path(value: Any, loc: Sequence[int | str]) -> tuple[int | str, ...]:
    """The steps of a validation `loc` that exist in the data (drops union and wrapper tags)."""
    path: list[int | str] = []
    for index, step in enumerate(loc):
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value):
            value = value[step]
        elif index < len(loc) - 1:
            continue  # a tag pydantic adds (union member, wrapper), not a step into the data
        path.append(step)
    return tuple(path)


def validate(model: type[ModelT], value: Any, *, file: Path, text: str,
             prefix: Sequence[int | str] = ()) -> ModelT:
    """Validate `value` (found at `prefix` in the file) or raise BadInput naming line and field."""
    try:
        return model.model_validate(value)
    except ValidationError as err:
        first = err.errors()[0]
        path = (*prefix, *_data_path(value, first["loc"]))
        raise BadInput(first["msg"], file=str(file), line=line_of(text, path),
                       field=dotted(path)) from None
