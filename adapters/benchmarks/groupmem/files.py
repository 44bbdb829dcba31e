"""Safe reading of a GroupMemBench release folder: paths, bytes, text, JSON with positions.

Everything the adapter reads goes through here, so the same rules hold for the corpus, the
question files and the prompts:

- a domain name is one plain path segment (`^[A-Za-z0-9_-]+$`), so `..` or a separator can never
  steer a read outside the release;
- a file (or a symlink on the way to it) must resolve inside the release root;
- text must be UTF-8; a bad byte is reported with the line it sits on; a file is at most
  `json_input.FILE_LIMIT` bytes;
- the corpus JSON is walked with `json.JSONDecoder.raw_decode` one message at a time, which keeps
  the C decoder's speed and records where each message object starts, so a bad message is
  reported with its line in the file rather than only an index.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchledger.adapters.benchmarks.json_source import huge_integer
from benchledger.adapters.benchmarks.release_paths import contained_file
from benchledger.errors import BadInput
from benchledger.json_input import FILE_LIMIT, JsonTooLarge

__all__ = [
    "DOMAIN_PATTERN", "check_domain", "contained_path", "read_text", "line_at",
    "PositionedMessage", "scan_channels",
]

DOMAIN_PATTERN = re.compile(r"[A-Za-z0-9_-]+")
_WS = re.compile(r"[ \t\n\r]*")
_decoder = json.JSONDecoder()


def check_domain(domain: str) -> str:
    """Return the domain when it is one safe path segment, else raise BadInput."""
    if not isinstance(domain, str) or not DOMAIN_PATTERN.fullmatch(domain):
        raise BadInput(
            f"domain {domain!r} must match ^[A-Za-z0-9_-]+$ (no path separators, no '..')",
            field="domain",
        )
    return domain


def contained_path(root: Path, path: Path) -> Path:
    """`path` resolved, refusing anything (symlinks included) that lands outside `root`."""
    return contained_file(root, path)


def read_text(root: Path, path: Path) -> str:
    """Read a UTF-8 file inside `root`; missing, outside or non-UTF-8 files raise BadInput."""
    if path.is_symlink() and not path.exists():
        raise BadInput("is a symbolic link that leads nowhere (a loop, or a missing target)", file=str(path))
    if not path.is_file():
        raise BadInput("expected file is missing", file=str(path))
    resolved = contained_path(root, path)
    if (size := resolved.stat().st_size) > FILE_LIMIT:
        raise JsonTooLarge(str(path), limit=FILE_LIMIT, size=size)
    data = resolved.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise BadInput(f"not UTF-8 (byte {err.start}: {err.reason})", file=str(path),
                       line=line) from err


def line_at(text: str, offset: int) -> int:
    """1-based line of a character offset (only computed when an error needs it)."""
    return text.count("\n", 0, offset) + 1


@dataclass(frozen=True, slots=True)
class PositionedMessage:
    channel: str
    index: int
    """Index of the message within its channel's list."""
    offset: int
    """Character offset in the file where the message's JSON value starts."""
    value: Any


def _skip(text: str, pos: int) -> int:
    whitespace = _WS.match(text, pos)
    assert whitespace is not None  # the pattern matches the empty string too
    return whitespace.end()


def _expect(text: str, pos: int, char: str, path: Path, what: str) -> int:
    pos = _skip(text, pos)
    if text[pos:pos + 1] != char:
        raise BadInput(f"expected {char!r} {what}", file=str(path),
                       line=line_at(text, pos))
    return pos + 1


def _decode(text: str, pos: int, path: Path) -> tuple[Any, int]:
    try:
        return _decoder.raw_decode(text, pos)
    except json.JSONDecodeError as err:
        raise BadInput(f"not valid JSON: {err.msg} (column {err.colno})", file=str(path),
                       line=err.lineno) from err
    except RecursionError:
        raise BadInput("JSON nested too deeply", file=str(path), line=line_at(text, pos)) from None
    except ValueError:  # an integer longer than Python converts
        raise huge_integer(text, path, offset=pos) from None


def scan_channels(text: str, path: Path) -> tuple[list[str], list[PositionedMessage]]:
    """Walk `{channel: [message, ...], ...}` recording each message's start offset.

    Returns the channel names in file order and every message value with its position. Raises
    BadInput for invalid JSON, a top level that is not an object, a channel that is not a list,
    a duplicated channel name, or trailing content.
    """
    pos = _skip(text, 0)
    if text[pos:pos + 1] != "{":
        _decode(text, pos, path)  # reports real JSON errors (e.g. empty file) with their line
        raise BadInput("top level must be a JSON object keyed by channel name", file=str(path),
                       line=line_at(text, pos))
    pos = _skip(text, pos + 1)
    channels: list[str] = []
    messages: list[PositionedMessage] = []
    if text[pos:pos + 1] == "}":
        pos += 1
    else:
        while True:
            key_pos = _skip(text, pos)
            if text[key_pos:key_pos + 1] != '"':
                _decode(text, key_pos, path)
                raise BadInput("expected a channel name", file=str(path),
                               line=line_at(text, key_pos))
            channel, pos = _decode(text, key_pos, path)
            if channel in channels:
                raise BadInput("channel appears twice", file=str(path),
                               line=line_at(text, key_pos), field=f"channels[{channel!r}]")
            channels.append(channel)
            pos = _expect(text, pos, ":", path, "after a channel name")
            pos = _skip(text, pos)
            if text[pos:pos + 1] != "[":
                _decode(text, pos, path)
                raise BadInput("a channel must be a list of messages", file=str(path),
                               line=line_at(text, pos), field=f"channels[{channel!r}]")
            pos = _skip(text, pos + 1)
            index = 0
            if text[pos:pos + 1] == "]":
                pos += 1
            else:
                while True:
                    start = _skip(text, pos)
                    value, pos = _decode(text, start, path)
                    messages.append(PositionedMessage(channel, index, start, value))
                    index += 1
                    pos = _skip(text, pos)
                    if text[pos:pos + 1] == "]":
                        pos += 1
                        break
                    pos = _expect(text, pos, ",", path, "between messages")
            pos = _skip(text, pos)
            if text[pos:pos + 1] == "}":
                pos += 1
                break
            pos = _expect(text, pos, ",", path, "between channels")
    if _skip(text, pos) != len(text):
        raise BadInput("unexpected content after the top-level object", file=str(path),
                       line=line_at(text, _skip(text, pos)))
    return channels, messages
