"""Bounded JSON from outside: the one way the tool parses JSON that it did not write itself.

Releases, conformance fixtures, price tables, sweep files, answer files and the replies of memory
systems and model endpoints are all someone else's bytes. Parsed with the stdlib alone, a file of
100,000 nested brackets ends in a `RecursionError` traceback, and a 4 GB file is read whole before
anything looks at it. Here the bytes are refused past a size limit before they are parsed (a file by
its size on disk, a stream as it is read, never buffering more than the limit), and the parse is
pydantic-core's `from_json`: the jiter parser pydantic already uses for every `model_validate_json`,
well kept, as fast as the stdlib's C decoder, and refusing nesting deeper than `MAX_DEPTH` on its own
(a limit built into jiter, not a setting). The stdlib has no depth limit to set, and a pre-scan of
every file in Python would cost seconds on a large release; jiter's costs nothing.

On the error path only, the text is looked at again to say what was wrong in one line: how deep and
where, or the stdlib's own message and line for a syntax error (its messages are the ones users
already know). Where jiter refuses what the stdlib accepts (a lone surrogate escape such as
`"\\ud800"`), the stdlib's value is returned, so that within the limits a file reads exactly as it
did before; the benchmark readers that care refuse lone surrogates themselves.

How to use it:

    value, text = load_file(path)                           # a JSON file; text for line lookups
    value, text = load_file(path, limit=64 * MiB)           # a smaller ceiling for a small file
    for number, value in load_lines(path): ...              # JSON Lines, errors on the file's line
    value = load_json(body, source="recall reply")          # bytes or text already in memory
    body = read_limited(response.iter_bytes(), limit=n, source="recall reply")   # a stream
    image = named_file(root / name, named_by=fixture)       # a file another file names

Every refusal is a `BadInput` (exit 2) naming the file or source and the limit: `JsonTooLarge`,
`JsonTooDeep`, `JsonSyntaxError`, `NamedFileMissing`. A caller reading a reply from a memory system or an endpoint
turns it into that call's operational failure instead (a `Failed` event, never a wrong answer).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pydantic_core

from benchledger.errors import BadInput

__all__ = [
    "MiB", "GiB", "MAX_DEPTH", "FILE_LIMIT", "REPLY_LIMIT", "JsonTooLarge", "JsonTooDeep",
    "JsonSyntaxError", "NamedFileMissing", "huge_integer", "load_file", "load_lines", "load_json", "read_limited", "named_file", "depth_exceeded_at",
]

MiB = 1 << 20
GiB = 1 << 30
MAX_DEPTH = 201
"""Nesting levels jiter parses (its recursion limit); one more is refused."""
FILE_LIMIT = 4 * GiB
"""The largest JSON file read by default: the largest real release file (LongMemEval-M, 2.7 GB) fits."""
REPLY_LIMIT = 64 * MiB
"""The largest reply body read by default from a memory system or a model endpoint (a real recall
reply, even a whole LongMemEval-M haystack, is a few MB)."""

_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class JsonTooLarge(BadInput):
    """More bytes than the limit; nothing past the limit was read."""

    def __init__(self, source: str, *, limit: int, size: int | None = None) -> None:
        got = f"{size:,} bytes" if size is not None else "more bytes"
        super().__init__(f"{got}, over the limit of {limit:,} bytes", file=source)
        self.limit, self.size = limit, size


class JsonTooDeep(BadInput):
    """Containers nested deeper than `MAX_DEPTH`."""

    def __init__(self, source: str, *, line: int | None) -> None:
        super().__init__(f"JSON nested deeper than the limit of {MAX_DEPTH} levels", file=source, line=line)
        self.limit = MAX_DEPTH


class JsonSyntaxError(BadInput):
    """Not JSON at all: the stdlib decoder's message and line."""


class NamedFileMissing(BadInput):
    """A file that a fixture, release or run names is not there."""

    def __init__(self, path: Path, *, named_by: str, field: str | None = None) -> None:
        super().__init__(f"names {path}, which is missing", file=named_by, field=field)
        self.path = path


def depth_exceeded_at(text: str, limit: int = MAX_DEPTH) -> int | None:
    """Character offset of the first bracket opening level `limit + 1`, or None (strings skipped)."""
    depth = 0
    for token in _TOKENS.finditer(text):
        mark = token.group()
        if mark in "[{":
            depth += 1
            if depth > limit:
                return token.start()
        elif mark in "]}":
            depth -= 1
    return None


def huge_integer(text: str, source: str | Path, *, line: int | None = None, offset: int = 0) -> BadInput:
    """The one-line error for JSON holding an integer longer than Python converts (its digit limit)."""
    limit = sys.get_int_max_str_digits()
    match = re.compile(r"\d{%d,}" % (limit + 1)).search(text, offset)
    if match is not None and line is None:
        line = text.count("\n", 0, match.start()) + 1
    digits = f"{len(match.group())} digits" if match else f"more than {limit} digits"
    return BadInput(f"an integer of {digits}, longer than the {limit} digits Python reads", file=str(source),
                    line=line)


def _decode(data: bytes, source: str, *, first_line: int = 1) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise BadInput(f"not UTF-8 (byte {err.start}: {err.reason})", file=source,
                       line=data[: err.start].count(b"\n") + first_line) from None


def load_json(data: bytes | str, *, source: str | Path, limit: int = REPLY_LIMIT, first_line: int = 1) -> Any:
    """Parse JSON already in memory (a reply body; with `first_line`, a line of a JSONL file) within
    `limit` bytes and `MAX_DEPTH` levels."""
    source = str(source)
    if len(data) > limit:
        raise JsonTooLarge(source, limit=limit, size=len(data))
    text = _decode(data, source) if isinstance(data, bytes) else data
    try:
        return pydantic_core.from_json(text)
    except ValueError:
        pass
    offset = depth_exceeded_at(text)
    if offset is not None:
        raise JsonTooDeep(source, line=text.count("\n", 0, offset) + first_line)
    try:  # within the depth limit the stdlib cannot recurse too far; its message says what is wrong
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise JsonSyntaxError(f"not valid JSON: {err.msg} (column {err.colno})", file=source,
                              line=err.lineno + first_line - 1) from None
    except ValueError:  # an integer longer than Python converts
        raise huge_integer(text, source, line=first_line if first_line > 1 else None) from None


def load_lines(path: Path, *, limit: int = FILE_LIMIT) -> Iterator[tuple[int, Any]]:
    """A JSON Lines file streamed as (line number, value) for every non-blank line (split at newlines
    only, as JSON Lines is), each bounded as above and the whole file by `limit`."""
    _checked_size(path, limit)
    total = 0
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            total += len(raw)
            if total > limit:
                raise JsonTooLarge(str(path), limit=limit)
            if raw.strip():
                yield number, load_json(_decode(raw, str(path), first_line=number), source=path, limit=limit,
                                        first_line=number)


def _checked_size(path: Path, limit: int) -> None:
    try:
        size = path.stat().st_size
    except OSError:
        raise BadInput("file not found", file=str(path)) from None
    if not path.is_file():
        raise BadInput("not a file", file=str(path))
    if size > limit:
        raise JsonTooLarge(str(path), limit=limit, size=size)


def _read_text(path: Path, limit: int) -> str:
    _checked_size(path, limit)
    with path.open("rb") as handle:
        data = handle.read(limit + 1)  # a file growing while it is read still stops at the limit
    if len(data) > limit:
        raise JsonTooLarge(str(path), limit=limit)
    return _decode(data, str(path))


def load_file(path: Path, *, limit: int = FILE_LIMIT) -> tuple[Any, str]:
    """A UTF-8 JSON file's value and text, refused in one line past `limit` bytes or `MAX_DEPTH`."""
    text = _read_text(path, limit)
    return load_json(text, source=path, limit=limit), text


def read_limited(chunks: Iterable[bytes], *, limit: int, source: str) -> bytes:
    """Join a stream's chunks, refusing (JsonTooLarge) as soon as they pass `limit` bytes."""
    parts: list[bytes] = []
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > limit:
            raise JsonTooLarge(source, limit=limit)
        parts.append(chunk)
    return b"".join(parts)


def named_file(path: Path, *, named_by: str | Path, field: str | None = None) -> Path:
    """`path` when it is a file; otherwise one line naming the file that names it and the missing one."""
    if not path.is_file():
        raise NamedFileMissing(path, named_by=str(named_by), field=field)
    return path
