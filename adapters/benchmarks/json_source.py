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
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from benchledger.errors import BadInput
from benchledger.json_input import FILE_LIMIT, huge_integer, load_file

__all__ = ["huge_integer", "read_json", "line_of", "validate", "dotted"]

ModelT = TypeVar("ModelT", bound=BaseModel)


def read_json(path: Path, *, limit: int = FILE_LIMIT) -> tuple[Any, str]:
    """Parse a UTF-8 JSON file within the bounded loader's limits (`benchledger.json_input`): missing
    files, bad bytes, bad JSON, too large or too deep raise BadInput with a line."""
    return load_file(path, limit=limit)


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
